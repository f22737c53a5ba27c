/**
 * The secret shapes the archive redacts (applied by ./redact.ts, listed in docs/security.md).
 *
 * Adapted from gitleaks' default configuration (https://github.com/gitleaks/gitleaks,
 * config/gitleaks.toml; MIT License, Copyright (c) 2019 Zachary Rice). A rule taken from
 * there keeps its gitleaks id; `source: 'compactd'` marks compactd's own additions. gitleaks
 * scans repositories with Go's RE2, which is linear whatever the pattern; V8 backtracks, so
 * the patterns are rewritten to keep every match attempt linear:
 *
 * - No quantified group contains an unbounded quantifier (no `(a+)+`, `(a|b)*`).
 * - A run that may be long starts only where a run of its class starts (`tokenStart`), so
 *   a 100 KB run of token characters is scanned once, not once per offset.
 * - Two quantifiers side by side either take disjoint classes or are bounded, so a failed
 *   attempt backtracks over one run at most once.
 *
 * gitleaks' entropy thresholds and allowlists become `accept` checks on the candidate.
 */

export interface RedactionRule {
  /** gitleaks' id where the rule comes from gitleaks; the `[REDACTED:<id>]` label. */
  id: string
  description: string
  source: 'gitleaks' | 'compactd'
  /** Lower-case strings, one of which is in any text the rule can match: the cheap pre-check. */
  keywords: readonly string[]
  /** Flags `g` and `d`. The named group `secret` (or `secret2`) is replaced; without one, the whole match. */
  pattern: RegExp
  /** Rejects a candidate that has the shape but is no secret (a placeholder, code, a word). */
  accept?: (secret: string, groups: Readonly<Record<string, string | undefined>>) => boolean
}

/**
 * `prefix` (a literal, or a small alternation of literals) where a run of token characters
 * starts: not right after a letter, digit, `_` or `-`, except the `n` of a JSON escape `\n`
 * (in a JSON-encoded .env file that letter is what precedes the key). The literal comes
 * first and the lookbehind repeats it: V8 then scans for the literal, where a lookbehind in
 * front is tried at every offset (20 times slower, measured).
 */
const tokenStart = (prefix: string): string => String.raw`${prefix}(?<=(?:^|[^A-Za-z0-9_\-]|\\[nrt])${prefix})`
/** A newline, raw or JSON-escaped. */
const NEWLINE = String.raw`(?:\r?\n|\\r?\\n)`

const rx = (source: string, flags = ''): RegExp => new RegExp(source, `gd${flags}`)

export function shannonEntropy(s: string): number {
  const counts = new Map<string, number>()
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length)
  return bits
}

/**
 * A random key of 20+ characters from a 62-symbol alphabet has a digit or both cases
 * (the odds against are below 1 in 10⁴); a body of one-case words (`sk-learn-pipeline`,
 * `cpd_table_name_here`) is a name.
 */
export function looksRandom(s: string): boolean {
  return /[0-9]/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s))
}

/**
 * Placeholders and templates: `${VAR}`, `$VAR` (and PHP's `$client->…`), `<your-key>`,
 * `{{ x }}`, `%(x)s`, YAML tags (`!vault`), anchors and aliases; `xxxx`, `****`, `...`;
 * words that say "not a real value"; text already redacted. `$2b$12$…` (bcrypt) is a value.
 */
const PLACEHOLDER_START = /^(?:[<{!*&#]|%[(\w]|\$[A-Za-z_{(])/
const PLACEHOLDER_WORD = /xxxx|\*\*\*|\.\.\.|…|changeme|change_me|replace|your|example|placeholder|dummy|redacted/i
export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER_START.test(value) || PLACEHOLDER_WORD.test(value) || new Set(value).size <= 2
}

/** Passwords in URLs that stand for "the password goes here". */
const URL_PLACEHOLDER_PASSWORDS = new Set(['password', 'passwd', 'pass', 'pwd', 'secret', 'pw'])

/**
 * Code, not a value: `process.env.TOKEN`, `this.auth.token`, `opts?.apiKey`, `env.KEY!`:
 * identifiers joined by `.` or `?.`. Written as a character run plus checks, not as a
 * repeated group, so no helper pattern nests quantifiers either.
 */
const isMemberChain = (value: string): boolean =>
  /^[A-Za-z_$][\w$?.]*[\w$]!?$/.test(value) && value.includes('.') && !/\.\.|\.[0-9]|\?(?!\.)/.test(value)
/** An identifier that names a secret is a reference to one: `AuthenticationMD5Password`, `apiKey2`. */
const SECRET_REFERENCE = /^[A-Za-z_$][\w$]*$/
const SECRET_WORD = /token|secret|pass|pwd|key|auth|credential/i
/** Numbers, versions, dates, times, addresses; hex literals up to 64 bits (`0x0B96`; a 256-bit `0x…` key is a value). */
const NUMBER_LIKE = /^(?:[0-9.:/+-]+|0x[0-9a-f]{1,16}n?)$/i
/** `/run/secrets/db`, `./token.txt`, `~/.npmrc`. Base64 that starts with `/` almost always has a `+` or `=`. */
const PATH_LIKE = /^(?:~|\.{1,2})?\/[\w./-]*$/
/** Names with digits that sit after `auth:`, `token:` or `password:` in code and configs: algorithms, encodings, typed arrays. */
const CODE_NAME_WITH_DIGITS = /^(?:base64(?:url)?|sha-?\d+|md5|utf-?8|oauth-?\d|x509|u?int\d+|float\d+|[hrep]s\d{3}|aes-?\d+(?:-\w+)?|aws4-hmac-sha256|hmac-sha\d+|(?:big)?(?:u?int|float)\d+(?:clamped)?array)$/i

/**
 * The value of a secret-named assignment (`generic-api-key`) or of a secret-named property
 * of a JSON object. Kept, by policy: code (a value followed by `(` or `[`, a member chain, an
 * identifier naming a secret), placeholders, numbers and versions, paths, URLs (their
 * passwords have their own rule), algorithm and type names, and words: a value must hold
 * a digit or a symbol other than `_ . - : /` to count (`username:password`,
 * `urn:ietf:params:oauth:…` are words). The regex already refused whitespace, so prose is
 * never a value.
 */
export function isSecretValue(value: string, followedByCode = false): boolean {
  if (followedByCode || value.length < 6 || /\s/.test(value)) return false
  if (isPlaceholder(value) || value.includes('://')) return false
  if (NUMBER_LIKE.test(value) || PATH_LIKE.test(value) || isMemberChain(value) || CODE_NAME_WITH_DIGITS.test(value)) return false
  if (SECRET_REFERENCE.test(value) && SECRET_WORD.test(value)) return false
  return /[^A-Za-z_.:/-]/.test(value)
}

const acceptRandom = (secret: string): boolean => looksRandom(secret)

/** Names that hold secrets: the keyword, then at most one qualifier (`_key`, `_value`, `Hash`…), then the end of the name. */
const SECRET_NAME = String.raw`(?:token|secret|pass(?:w(?:or)?d|phrase)?|pwd|api[_.\-]?key|access[_.\-]?key|private[_.\-]?key|auth(?:orization)?|credentials?)(?:[_.\-]?(?:key(?:[_.\-]?base)?|value|string|hash|salt|text))?(?![A-Za-z0-9_])`
/** A property name (a JSON key) that holds a secret: `api_key`, `authToken`, `DB_PASSWORD`; not `max_tokens` or `token_count`. */
export const SECRET_PROPERTY_NAME = new RegExp(SECRET_NAME + '$', 'i')

export const REDACTION_RULES: readonly RedactionRule[] = [
  // First: the other rules must not cut a key block into pieces.
  {
    id: 'private-key',
    description: 'PEM / OpenSSH / PGP private-key block, BEGIN to END (also with JSON `\\n` escapes); an unterminated block up to the end of its base64; 64+ characters of body',
    source: 'gitleaks',
    keywords: ['-----begin'],
    // Body to END: `[^-]*` stops at the first hyphen, i.e. at the END line (the legacy
    // Proc-Type/DEK-Info headers, the only hyphens in a body, are taken before it). With no
    // END, the base64 lines after the header (no spaces, so prose after a cut key is kept).
    pattern: rx(
      String.raw`-----BEGIN[ A-Z0-9_\-]{0,100}PRIVATE KEY(?: BLOCK)?-----` +
        String.raw`(?:(?:\s|\\[rn]){0,4}Proc-Type:[^\r\n\\]{0,100}${NEWLINE}DEK-Info:[^\r\n\\]{0,200})?` +
        String.raw`(?:[^\-]*-----END[ A-Z0-9_\-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\r\n\\]*)`,
      'i',
    ),
    // gitleaks' 64 characters of body: a bare header, or a `XXXX` example, is no key.
    accept: (block) => {
      const body = block.replace(/-----[^-]*-----/g, '').replace(/\\[rn]|[^A-Za-z0-9+/=]/g, '')
      return body.length >= 64 && new Set(body).size > 4
    },
  },
  {
    id: 'anthropic-admin-api-key',
    description: 'Anthropic admin key (sk-ant-admin01-…)',
    source: 'gitleaks',
    keywords: ['sk-ant-admin01-'],
    pattern: rx(tokenStart('sk-ant-admin01-') + String.raw`[A-Za-z0-9_\-]{20,}`),
    accept: acceptRandom,
  },
  {
    id: 'anthropic-api-key',
    description: 'Anthropic API or OAuth key (sk-ant-api03-…, sk-ant-oat01-…)',
    source: 'gitleaks',
    keywords: ['sk-ant-'],
    pattern: rx(tokenStart('sk-ant-') + String.raw`(?!admin01-)[A-Za-z0-9_\-]{20,}`),
    accept: acceptRandom,
  },
  {
    id: 'openai-api-key',
    description: 'OpenAI-style key: sk- then 20+ characters (sk-proj-, sk-svcacct-, sk-admin-, legacy sk-)',
    source: 'gitleaks',
    keywords: ['sk-'],
    // Broader than gitleaks' (which needs the `T3BlbkFJ` marker): other providers issue sk- keys too.
    pattern: rx(tokenStart('sk-') + String.raw`(?!ant-)[A-Za-z0-9_\-]{20,}`),
    accept: acceptRandom,
  },
  {
    id: 'github-pat',
    description: 'GitHub personal access token (ghp_)',
    source: 'gitleaks',
    keywords: ['ghp_'],
    pattern: rx(tokenStart('ghp_') + String.raw`[A-Za-z0-9]{36,}`),
    accept: acceptRandom,
  },
  {
    id: 'github-oauth',
    description: 'GitHub OAuth access token (gho_)',
    source: 'gitleaks',
    keywords: ['gho_'],
    pattern: rx(tokenStart('gho_') + String.raw`[A-Za-z0-9]{36,}`),
    accept: acceptRandom,
  },
  {
    id: 'github-app-token',
    description: 'GitHub App user or installation token (ghu_, ghs_)',
    source: 'gitleaks',
    keywords: ['ghu_', 'ghs_'],
    pattern: rx(tokenStart('gh[us]_') + String.raw`[A-Za-z0-9]{36,}`),
    accept: acceptRandom,
  },
  {
    id: 'github-refresh-token',
    description: 'GitHub refresh token (ghr_)',
    source: 'gitleaks',
    keywords: ['ghr_'],
    pattern: rx(tokenStart('ghr_') + String.raw`[A-Za-z0-9]{36,}`),
    accept: acceptRandom,
  },
  {
    id: 'github-fine-grained-pat',
    description: 'GitHub fine-grained personal access token (github_pat_)',
    source: 'gitleaks',
    keywords: ['github_pat_'],
    pattern: rx(tokenStart('github_pat_') + String.raw`[A-Za-z0-9_]{82,}`),
    accept: acceptRandom,
  },
  {
    id: 'gitlab-pat',
    description: 'GitLab personal access token (glpat-, routable form included)',
    source: 'gitleaks',
    keywords: ['glpat-'],
    pattern: rx(tokenStart('glpat-') + String.raw`[A-Za-z0-9_\-]{20,}(?:\.[0-9a-z]{9})?`),
    accept: acceptRandom,
  },
  {
    id: 'slack-bot-token',
    description: 'Slack bot token (xoxb-)',
    source: 'gitleaks',
    keywords: ['xoxb-'],
    pattern: rx(tokenStart('xoxb-') + String.raw`[0-9]{8,14}-[A-Za-z0-9\-]{18,}`),
  },
  {
    id: 'slack-user-token',
    description: 'Slack user token (xoxp-, xoxe-)',
    source: 'gitleaks',
    keywords: ['xoxp-', 'xoxe-'],
    pattern: rx(tokenStart('xox[pe]-') + String.raw`[0-9]{8,14}-[A-Za-z0-9\-]{20,}`),
  },
  {
    id: 'slack-legacy-workspace-token',
    description: 'Slack legacy workspace token (xoxa-, xoxr-)',
    source: 'gitleaks',
    keywords: ['xoxa-', 'xoxr-'],
    pattern: rx(tokenStart('xox[ar]-') + String.raw`(?:[0-9]-)?[0-9A-Za-z]{8,48}(?![0-9A-Za-z])`),
  },
  {
    id: 'slack-legacy-token',
    description: 'Slack legacy token (xoxo-, xoxs-)',
    source: 'gitleaks',
    keywords: ['xoxo-', 'xoxs-'],
    pattern: rx(tokenStart('xox[os]-') + String.raw`[0-9]{1,20}-[0-9]{1,20}-[0-9]{1,20}-[a-fA-F0-9]{8,}`),
  },
  {
    id: 'slack-app-token',
    description: 'Slack app-level token (xapp-)',
    source: 'gitleaks',
    keywords: ['xapp-'],
    pattern: rx(tokenStart('xapp-') + String.raw`[0-9]-[A-Z0-9]{1,20}-[0-9]{1,20}-[a-z0-9]{8,}`, 'i'),
  },
  {
    id: 'slack-webhook-url',
    description: 'Slack incoming-webhook URL (hooks.slack.com/services|workflows|triggers/…)',
    source: 'gitleaks',
    keywords: ['hooks.slack.com/'],
    pattern: rx(String.raw`(?:https?://)?hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{20,}`),
  },
  {
    id: 'aws-access-token',
    description: 'AWS access key id (AKIA, ASIA, ABIA, ACCA, A3T…); the documentation example (…EXAMPLE) is kept',
    source: 'gitleaks',
    keywords: ['akia', 'asia', 'abia', 'acca', 'a3t'],
    pattern: rx(tokenStart('(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)') + String.raw`[A-Z2-7]{16}(?![A-Za-z0-9_\-])`),
    // gitleaks' allowlist and entropy threshold: real ids are random base32.
    accept: (id) => !id.endsWith('EXAMPLE') && shannonEntropy(id) >= 3,
  },
  {
    id: 'aws-secret-access-key',
    description: 'AWS secret access key (40 base64 characters) assigned to aws_secret_access_key / SecretAccessKey',
    source: 'compactd',
    keywords: ['secret'],
    pattern: rx(
      String.raw`(?:aws[_.\-]?)?secret[_.\-]?access[_.\-]?key\\?["'\x60]?[ \t]{0,8}(?:=>|:=|=|:)[ \t]{0,8}\\?["'\x60]?(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=._])`,
      'i',
    ),
    // 40 random base64 characters hold a digit, `+` or `/` (odds against: 1 in 4,000); a
    // 40-letter identifier does not. The documentation example (…EXAMPLEKEY) is kept.
    accept: (key) => /[0-9+/]/.test(key) && !/example/i.test(key),
  },
  {
    id: 'gcp-api-key',
    description: 'Google API key (AIza…)',
    source: 'gitleaks',
    keywords: ['aiza'],
    pattern: rx(tokenStart('AIza') + String.raw`[A-Za-z0-9_\-]{35}(?![A-Za-z0-9_\-])`),
  },
  {
    id: 'stripe-access-token',
    description: 'Stripe secret or restricted key (sk_live_, rk_live_, sk_test_, …)',
    source: 'gitleaks',
    keywords: ['sk_live_', 'rk_live_', 'sk_test_', 'rk_test_', 'sk_prod_', 'rk_prod_'],
    pattern: rx(tokenStart('[sr]k_(?:live|test|prod)_') + String.raw`[A-Za-z0-9]{10,}`),
    accept: acceptRandom,
  },
  {
    id: 'npm-access-token',
    description: 'npm access token (npm_)',
    source: 'gitleaks',
    keywords: ['npm_'],
    pattern: rx(tokenStart('npm_') + String.raw`[A-Za-z0-9]{36}(?![A-Za-z0-9])`),
    accept: acceptRandom,
  },
  {
    id: 'compactd-api-key',
    description: "compactd's own API key (cpd_ then 20+ base64url characters)",
    source: 'compactd',
    // The prefix is KEY_PREFIX in src/tenancy/api-keys.ts; the engine imports nothing from there.
    keywords: ['cpd_'],
    pattern: rx(tokenStart('cpd_') + String.raw`[A-Za-z0-9_\-]{20,}`),
    accept: acceptRandom,
  },
  {
    id: 'jwt',
    description: 'JSON Web Token (eyJ….eyJ….signature)',
    source: 'gitleaks',
    keywords: ['eyj'],
    pattern: rx(tokenStart('eyJ') + String.raw`[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]*`),
  },
  {
    id: 'url-credentials',
    description: 'Password in a URL (scheme://user:password@host); the user and host are kept',
    source: 'compactd',
    keywords: ['://'],
    // The user part has no `:`, the password no `@`: each ends at one place, and both are
    // bounded. No `[` in the user part: `https://[REDACTED:github-pat]@host` is a label.
    pattern: rx(String.raw`://(?<=[A-Za-z0-9]://)[^\s:@/?#"'\x60\\<>\[\]]{0,128}:(?<secret>[^\s@/?#"'\x60\\<>]{1,256})@`),
    // A URL password is kept only when it is a placeholder: `postgres:postgres@` is a real (weak) password.
    accept: (password) => !isPlaceholder(password) && !URL_PLACEHOLDER_PASSWORDS.has(password.toLowerCase()),
  },
  {
    id: 'authorization-bearer',
    description: 'Bearer token (Authorization: Bearer …, or Bearer … alone)',
    source: 'compactd',
    keywords: ['bearer'],
    pattern: rx(tokenStart('[Bb]earer') + String.raw`[ \t]{1,8}(?<secret>[A-Za-z0-9._~+/\-]{8,}=*)`),
    accept: (token) => !isPlaceholder(token) && !isMemberChain(token) && (/[0-9]/.test(token) || (token.length >= 20 && looksRandom(token))),
  },
  {
    id: 'authorization-basic',
    description: 'Basic credentials in an Authorization header (base64 of user:password)',
    source: 'compactd',
    keywords: ['basic'],
    pattern: rx(String.raw`authorization\\?["']?[ \t]{0,8}[:=][ \t]{0,8}\\?["']?basic[ \t]{1,8}(?<secret>[A-Za-z0-9+/]{8,}={0,2})`, 'i'),
    // Basic credentials decode to `user:password`; a word after `Basic` does not.
    accept: (b64) => Buffer.from(b64, 'base64').toString('latin1').includes(':'),
  },
  // Last: the specific rules above have labelled what they know, and their labels are not values.
  {
    id: 'generic-api-key',
    description:
      'The value in `NAME=value`, `NAME: value`, `"name": "value"` (also `=>`, `:=`, JSON-escaped quotes) where NAME has token, secret, pass, password, passwd, passphrase, pwd, api_key, access_key, private_key, auth, authorization or credential(s); the name is kept',
    source: 'gitleaks',
    keywords: ['token', 'secret', 'pass', 'pwd', 'api', 'access', 'private', 'auth', 'credential'],
    // No `\s` in a value (prose and messages have spaces); a bare value also stops at code
    // punctuation, and `code` records a `(` or `[` right after it (a call or an index: code).
    // `&` stays in a bare value: a password's tail after `&` must not leak, so in a query
    // string the next parameter goes with the value.
    pattern: rx(
      SECRET_NAME +
        String.raw`\\?["'\x60]?[ \t]{0,8}(?:=>|:=|\?=|=|:)[ \t]{0,8}` +
        String.raw`(?:\\?(?<q>["'\x60])(?<secret>[^\s"'\x60\\]{6,})\\?\k<q>|(?<secret2>[^\s"'\x60\\,;(){}\[\]<>|]{6,})(?<code>[(\[]?))`,
      'i',
    ),
    accept: (value, groups) => isSecretValue(value, Boolean(groups.code)),
  },
]

/** A small argument parser: positionals, `--flag value`, `--flag=value` and boolean flags; anything else is a usage error. */

export class UsageError extends Error {
  override readonly name = 'UsageError'
}

/** A CLI failure to print as one line (bad input, an unreachable server, a refused request). */
export class CliError extends Error {
  override readonly name = 'CliError'
}

export interface FlagSpec {
  /** Flags that take a value. */
  values: readonly string[]
  /** Flags that take none. */
  booleans: readonly string[]
}

export interface ParsedArgs {
  positionals: string[]
  values: Map<string, string>
  booleans: Set<string>
}

export function parseArgs(argv: readonly string[], spec: FlagSpec): ParsedArgs {
  const out: ParsedArgs = { positionals: [], values: new Map(), booleans: new Set() }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      out.positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('--') || arg === '-') {
      if (arg.startsWith('-') && arg !== '-') throw new UsageError(`unknown option ${arg}`)
      out.positionals.push(arg)
      continue
    }
    const eq = arg.indexOf('=')
    const name = arg.slice(2, eq < 0 ? undefined : eq)
    if (spec.booleans.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`)
      out.booleans.add(name)
    } else if (spec.values.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i]
      if (value === undefined || (eq < 0 && value.startsWith('--'))) throw new UsageError(`--${name} needs a value`)
      if (out.values.has(name)) throw new UsageError(`--${name} given twice`)
      out.values.set(name, value)
    } else throw new UsageError(`unknown option --${name}`)
  }
  return out
}

/** A positive integer flag, or undefined when absent. */
export function intFlag(args: ParsedArgs, name: string, min = 1, max = 100_000_000): number | undefined {
  const raw = args.values.get(name)
  if (raw === undefined) return undefined
  if (!/^\d+$/.test(raw.replace(/[_,]/g, ''))) throw new UsageError(`--${name}: expected a whole number, got ${JSON.stringify(raw)}`)
  const n = Number(raw.replace(/[_,]/g, ''))
  if (n < min || n > max) throw new UsageError(`--${name}: expected ${min}–${max.toLocaleString('en-US')}, got ${n}`)
  return n
}

/** A flag restricted to `choices`, or undefined when absent. */
export function choiceFlag<T extends string>(args: ParsedArgs, name: string, choices: readonly T[]): T | undefined {
  const raw = args.values.get(name)
  if (raw === undefined) return undefined
  if (!choices.includes(raw as T)) throw new UsageError(`--${name}: expected ${choices.join(', ')}, got ${JSON.stringify(raw)}`)
  return raw as T
}

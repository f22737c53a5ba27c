"""Types and routes of the compactd API 0.1.0.

Generated from openapi.yaml by clients/generate.ts: do not edit. `npm run openapi`
regenerates it; test/clients/python.test.ts fails when it is stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Literal, Mapping, NotRequired, Optional, TypedDict, Union


@dataclass(frozen=True)
class Operation:
    """One route of the API: its parameters (name: required), body and response types by status."""

    method: str
    path: str
    summary: str
    path_params: Mapping[str, bool]
    query_params: Mapping[str, bool]
    header_params: Mapping[str, bool]
    request: Optional[str]
    responses: Mapping[int, str]


class ErrorInputIssuesItem(TypedDict):
    path: str
    message: str


# Error body returned with every 4xx/5xx status.
class ErrorInput(TypedDict):
    # Stable error code, e.g. `validation_error`, `invalid_messages`, `unauthorized`.
    error: str
    # Human-readable explanation.
    message: str
    # For validation errors: each problem with the path of the offending field.
    issues: NotRequired[List[ErrorInputIssuesItem]]
    # Echo of the `x-request-id` of this request, for support.
    requestId: NotRequired[str]


# What this compaction archived: present when a sessionId was given and the conversation
# was compacted (not on a dry run).
class ArchiveReportInput(TypedDict):
    # `archived`: what this compaction dropped is stored and searchable. `over_quota`:
    # the tenant's archive is full, nothing was archived and no references were printed.
    # `disabled`: ARCHIVE_ENABLED is off.
    status: Literal["archived", "over_quota", "disabled"]
    # Messages stored by this compaction.
    archived: int
    # Messages already in the session's archive (a resent history is archived once).
    deduplicated: int
    # Secrets replaced by `[REDACTED:rule]` in the messages stored.
    redactions: int
    # Bytes the stored messages take.
    bytes: int
    # The tenant's archive size after this compaction.
    usedBytes: int
    # ARCHIVE_QUOTA_BYTES.
    quotaBytes: int
    # Why nothing was archived, when status is not `archived`.
    reason: NotRequired[str]


class ArchiveHitInput(TypedDict):
    # The archived message: read it with GET /sessions/{id}/archive/{ref}.
    ref: str
    role: str
    # The tool whose output (or call) this is.
    toolName: Union[str, None]
    # The passage around the best match, 300–800 characters (the whole text when
    # shorter).
    snippet: str
    # Relevance: higher is better; comparable within one search.
    score: float
    # The checkpoint that archived it (null: a session's evicted message).
    checkpointNum: Union[int, None]
    # Its index in the messages of that compaction (a session's seq for an evicted one).
    position: int
    source: Literal["compact", "session", "proxy"]


class ArchiveSearchInput(TypedDict):
    hits: List[ArchiveHitInput]
    # The words searched for, rarest first, after stopwords and words too common in this
    # session to rank by.
    terms: List[str]
    # Archived messages not searchable yet: the search indexes up to 2,000 before it
    # reads, and says how many more wait (search again).
    pending: NotRequired[int]


class ArchivedMessageInput(TypedDict):
    ref: str
    role: str
    toolName: Union[str, None]
    checkpointNum: Union[int, None]
    position: int
    source: Literal["compact", "session", "proxy"]
    # Format of `messages`.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The original message as sent (secrets redacted), in `format`; for an assistant
    # message with tool calls, followed by their archived results, so the pair stays
    # whole. Omitted when `lines` or `grep` is given.
    messages: NotRequired[List[Any]]
    # With `lines` or `grep`: the selected lines, each prefixed with its number and a
    # tab.
    text: NotRequired[str]
    # Lines in the message's text.
    totalLines: int
    # With `grep`: lines that matched.
    matchedLines: NotRequired[int]
    # True when the selection was cut at 64 KB: ask for a narrower `lines` range.
    truncated: bool
    # Secrets redacted in this message before it was archived.
    redactions: int


class BreakerStatusInputRecentItem(TypedDict):
    at: str
    messages: int
    freedTokens: int
    windowTokens: int


class BreakerStatusInput(TypedDict):
    # `open`: automatic compactions (the proxy, GET /context) of this session are
    # refused.
    state: Literal["closed", "open"]
    # Why it opened.
    reason: NotRequired[str]
    # Seconds until an automatic compaction is tried again.
    retryAfterSeconds: NotRequired[int]
    # ISO 8601.
    openedAt: NotRequired[str]
    # The latest automatic compactions since the last manual one or reset, oldest first:
    # when, at how many messages, what they freed of which window.
    recent: List[BreakerStatusInputRecentItem]


class CheckpointInput(TypedDict):
    # The session it belongs to.
    sessionId: str
    # 1, 2, ... per session, gap-free in the order compactions were stored.
    checkpointNum: int
    # Compaction round of the summary (null when the compaction only masked).
    round: Union[int, None]
    # What produced it: a strategy of GET /strategies (mask, rules, llm, truncate).
    strategy: Union[str, None]
    # First compacted message index of the compacted input.
    fromMessageIndex: Union[int, None]
    # Last compacted message index of the compacted input.
    toMessageIndex: Union[int, None]
    # Messages summarised or masked.
    messagesCompressed: Union[int, None]
    # The summary text (`## Session Summary (Compaction Round N)` ...); empty when the
    # compaction only masked.
    summary: str
    # Continuation facts: currentTask, completedSteps, pendingSteps, keyDecisions,
    # relevantFiles, errors, userRequests.
    keyFacts: Union[Dict[str, Any], None]
    # Tokens of the conversation before compaction.
    originalTokens: Union[int, None]
    # Tokens after.
    compressedTokens: Union[int, None]
    # originalTokens / compressedTokens.
    compressionRatio: Union[float, None]
    # Cost of the summarizer calls.
    summaryCostUsd: Union[float, None]
    # The budget it compacted to (null on checkpoints stored before this field existed).
    targetTokens: Union[int, None]
    # The model the tokens were counted for.
    model: Union[str, None]
    # How long the compaction took, in milliseconds (folded: the sum).
    durationMs: Union[int, None]
    # Tokens of the summary it wrote (null when it only masked, or for a fold).
    summaryTokens: Union[int, None]
    # When older checkpoints were folded into this one (COMPACTION_MAX_CHECKPOINTS):
    # every original checkpoint number it stands for, its own included. Totals are their
    # sums.
    foldedFrom: Union[List[int], None]
    # ISO 8601.
    createdAt: str


# Which configured model writes the `llm` summary, so only with `llm` in strategy (or in
# COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400 naming
# body.summarizer. Keys and base URLs come only from server configuration: any other
# field (baseURL, apiKey, url...) is a 400. Default: SUMMARIZER_DEFAULT_PROVIDER.
class CompactRequestInputSummarizer(TypedDict):
    # Summarizer provider. One without an API key on the server is no usable summarizer:
    # the llm step falls back, with the reason in `fallbacks`.
    provider: Literal["openai", "anthropic"]
    # One of the models the server allows (SUMMARIZER_OPENAI_MODELS /
    # SUMMARIZER_ANTHROPIC_MODELS); another is a 400. Default: the first one.
    model: NotRequired[str]


# The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning
# parts and Responses reasoning items of earlier turns are dropped first, before any
# strategy. The turn in progress (the conversation ends with tool calls or results)
# keeps its reasoning, as Anthropic requires; pinned messages are not touched; a
# Responses reasoning item whose turn carries server item ids stays (the API refuses
# those items without it). The response reports the tokens freed (`thinking`).
class CompactRequestInputThinking(TypedDict):
    # Assistant turns (counted from the end) whose reasoning stays; `all` keeps every
    # one; 0 drops all but the turn in progress.
    keep: Union[int, Literal["all"]]


# The prompt cache's state and prices: the event then reports what this compaction costs
# in cache writes against what it saves over the next requests (`event.cache`;
# docs/api.md has the arithmetic).
class CompactRequestInputCache(TypedDict):
    # Tokens of this conversation the provider has cached now (its usage's cached_tokens
    # / cache_read_input_tokens). Default: all of it.
    cachedPrefixTokens: NotRequired[int]
    # USD per million uncached input tokens. Default: the model registry's.
    inputPrice: NotRequired[float]
    # USD per million cached tokens read. Default: the registry's input price times the
    # provider's cache discount.
    cacheReadPrice: NotRequired[float]
    # USD per million tokens written to the cache. Default: the input price (OpenAI,
    # Google, DeepSeek) or 1.25× it (Anthropic, unknown models).
    cacheWritePrice: NotRequired[float]
    # Requests over which the saving is counted, the next one included. Default 10.
    horizonTurns: NotRequired[int]


# A conversation to compact, and how.
class CompactRequestInput(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits
    # and the tokenizer. Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]
    # Token budget the output must fit (counted like /estimate for `model`). Default:
    # the model's compaction threshold, as /estimate returns it.
    targetTokens: NotRequired[int]
    # Leading user turns kept verbatim (the original task). System messages before them
    # are always kept. Default 1.
    keepFirst: NotRequired[int]
    # Most recent messages kept verbatim; the boundary moves earlier rather than
    # separate a tool call from its results. Given, the window is kept whenever it fits.
    # Default 10 (COMPACTION_KEEP_RECENT), taking at most half of what the system prompt
    # and task leave of the target when more would leave the summary under 1,000 tokens:
    # past that it shrinks (the last message always stays) so the summary has room.
    keepRecent: NotRequired[int]
    # Instead of keepRecent: keep the most recent messages up to this many tokens.
    # Giving both is a 400.
    keepRecentTokens: NotRequired[int]
    # A strategy or a pipeline, cheapest first (GET /strategies lists them). `mask`:
    # replace old tool results with short placeholders; the calls stay. `rules`: offline
    # structured summary (task, files, failures, decisions, next step), deterministic
    # and free. `llm`: summary written by the configured model. `truncate`: keep the
    # start and end of the text. The pipeline's summarizers fall back to rules →
    # truncate. Default: COMPACTION_DEFAULT_STRATEGY; unset, `["mask","llm","rules"]`
    # when the server has a summarizer configured (an OpenAI or Anthropic key), else
    # `["mask","rules"]`.
    strategy: NotRequired[Union[Literal["mask", "rules", "llm", "truncate"], List[Literal["mask", "rules", "llm", "truncate"]]]]
    # The most recent tool results are never masked. Default 3.
    keepToolResults: NotRequired[int]
    # Tools whose results are never masked (e.g. a memory or plan tool).
    excludeTools: NotRequired[List[str]]
    # Also shorten tool-call arguments of masked calls: a token threshold, or true for
    # 200. Default false.
    clearToolInputs: NotRequired[Union[bool, int]]
    # Keep error messages and failing commands of masked or summarised tool results.
    # Default true.
    preserveErrorDetails: NotRequired[bool]
    # Cap on the summary sections (task, instructions, files, errors, decisions, state,
    # pending work); never more than 15% of targetTokens. The action log appended to the
    # same message uses what the rest of the budget leaves. Default 2000
    # (COMPACTION_MAX_SUMMARY_TOKENS).
    maxSummaryTokens: NotRequired[int]
    # Role of the summary message. Default user. With Anthropic, system/developer put it
    # in the top-level `system`.
    summaryRole: NotRequired[Literal["system", "developer", "user", "assistant"]]
    # Which configured model writes the `llm` summary, so only with `llm` in strategy
    # (or in COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400
    # naming body.summarizer. Keys and base URLs come only from server configuration:
    # any other field (baseURL, apiKey, url...) is a 400. Default:
    # SUMMARIZER_DEFAULT_PROVIDER.
    summarizer: NotRequired[CompactRequestInputSummarizer]
    # Extra guidance for the summary (what to keep), for the llm strategy.
    instructions: NotRequired[str]
    # `append` adds instructions to the built-in summary prompt; `replace` replaces its
    # guidance. Default append.
    instructionsMode: NotRequired[Literal["replace", "append"]]
    # What the summary should give room to (a subsystem, a decision, a file). Added to
    # the default guidance, never replacing it: the llm prompt gets it as a section of
    # its own; the rules summary ranks the action-log lines mentioning its words above
    # the others of their importance. `instructions` with `instructionsMode: replace`
    # stays the way to replace the prompt.
    focus: NotRequired[str]
    # Indices (0-based, into `messages`) of messages kept verbatim, byte for byte,
    # wherever they sit, with the tool calls or results they pair with. Checked on the
    # output: what the budget cannot hold is a 422 `contract_unkept` listing it; an
    # index past the end is a 400.
    pin: NotRequired[List[int]]
    # Strings that must appear in the output (an identifier, a rule, a URL, a
    # constraint). compactd keeps the latest message holding one when the summary does
    # not; what the budget cannot hold is a 422 `contract_unkept`; a string not in the
    # input is a 400 naming it.
    preserve: NotRequired[List[str]]
    # Compact only when it saves at least this many tokens; otherwise the conversation
    # comes back unchanged (compacted: false, with the reason). Wins over targetTokens:
    # a small saving is not worth the prompt-cache break it costs. Checked on the plan
    # before any summarizer is called.
    minGainTokens: NotRequired[int]
    # The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK
    # reasoning parts and Responses reasoning items of earlier turns are dropped first,
    # before any strategy. The turn in progress (the conversation ends with tool calls
    # or results) keeps its reasoning, as Anthropic requires; pinned messages are not
    # touched; a Responses reasoning item whose turn carries server item ids stays (the
    # API refuses those items without it). The response reports the tokens freed
    # (`thinking`).
    thinking: NotRequired[CompactRequestInputThinking]
    # The prompt cache's state and prices: the event then reports what this compaction
    # costs in cache writes against what it saves over the next requests (`event.cache`;
    # docs/api.md has the arithmetic).
    cache: NotRequired[CompactRequestInputCache]
    # `when-profitable`: compact only when the saving over `cache.horizonTurns`
    # outweighs the cache writes (checked on the plan before a summarizer is paid, and
    # on the result); otherwise compacted: false with the reason. Default always.
    cachePolicy: NotRequired[Literal["always", "when-profitable"]]
    # Return the plan and estimated result without changing anything, calling a model or
    # storing a checkpoint.
    dryRun: NotRequired[bool]
    # Compact even when the conversation already fits targetTokens. A conversation
    # smaller than any compaction of it could be comes back unchanged (compacted: false,
    # with the reason).
    force: NotRequired[bool]
    # Your id for the conversation (1-200 characters of A-Z a-z 0-9 . _ : -). When
    # given, each compaction is stored as a numbered checkpoint, and round numbers
    # continue from the latest one.
    sessionId: NotRequired[str]
    # Input whose tool calls and results do not pair up: `repair` drops orphan results
    # and answers missing ones (listed in `repairs`); `reject` is a 400. Default repair.
    onBrokenInput: NotRequired[Literal["repair", "reject"]]
    # Override the model's context window (e.g. for an unknown model).
    contextLimit: NotRequired[int]
    # Tokens reserved for the system prompt and tools. Default 2000
    # (COMPACTION_SYSTEM_RESERVE).
    systemReserve: NotRequired[int]
    # Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE).
    outputReserve: NotRequired[int]
    # Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER).
    safetyBuffer: NotRequired[int]
    # Fraction of the available window at which to compact. Default 0.8.
    thresholdPercent: NotRequired[float]


class CompactResponseInputFallbacksItem(TypedDict):
    strategy: str
    reason: str


class CompactResponseInputRepairsItem(TypedDict):
    index: int
    action: str


CompactResponseInputPlanItem = TypedDict(
    "CompactResponseInputPlanItem",
    {
        # First input index (-1: the top-level system).
        "from": int,
        "to": int,
        "action": Literal["keep", "mask", "condense", "summarize"],
        "reason": str,
    },
)


# The cache economics of this compaction (with `cache` or `cachePolicy`).
class CompactResponseInputEventCache(TypedDict):
    inputPrice: float
    cacheReadPrice: float
    cacheWritePrice: float
    tokensBefore: int
    tokensAfter: int
    cachedPrefixTokens: int
    # The output's leading tokens that are the input's, unchanged: still cached.
    keptPrefixTokens: int
    horizonTurns: int
    # Extra cache writes the next request pays because of the compaction.
    writeCostUsd: float
    summarizerCostUsd: float
    # The next horizonTurns requests without compacting.
    costWithoutUsd: float
    # The same requests after compacting, the summarizer included.
    costWithUsd: float
    # costWithoutUsd − costWithUsd.
    savingUsd: float
    # Requests after which the compaction has paid for itself; null: never.
    breakEvenTurns: Union[int, None]
    profitable: bool
    # true: the plan's estimate, checked before any summarizer was paid; false: the
    # result's figures.
    estimated: bool


# Figures of this compaction, for monitoring.
class CompactResponseInputEvent(TypedDict):
    # Compaction round: 1, or one more than the previous summary (in the input or the
    # session).
    round: int
    tokensBefore: int
    # Tokens of the output (estimated for a dry run).
    tokensAfter: int
    # tokensBefore / tokensAfter.
    compressionRatio: float
    messagesCompacted: int
    strategy: str
    # Tokens of the summary message as sent: its sections and action log (the reserve,
    # for a dry run).
    summaryTokens: int
    # The room the summary message had: targetTokens less the rest of the output (head,
    # kept turns, tail). summaryTokens against it is how much of the budget the summary
    # left unused; 0 without a summary.
    summaryRoomTokens: int
    # Cost of summarizer calls (0 offline).
    costUsd: float
    durationMs: int
    # The cache economics of this compaction (with `cache` or `cachePolicy`).
    cache: NotRequired[CompactResponseInputEventCache]


# Continuation facts read from the summary: task, steps done and pending, decisions,
# files, errors, later user requests.
class CompactResponseInputSummaryKeyFacts(TypedDict):
    currentTask: str
    completedSteps: List[str]
    pendingSteps: List[str]
    keyDecisions: List[str]
    relevantFiles: List[str]
    errors: List[str]
    userRequests: List[str]


# The summary inserted, when one was written.
class CompactResponseInputSummary(TypedDict):
    # The summary, starting with `## Session Summary (Compaction Round N)`.
    text: str
    # Continuation facts read from the summary: task, steps done and pending, decisions,
    # files, errors, later user requests.
    keyFacts: CompactResponseInputSummaryKeyFacts
    # Role of the summary message.
    role: str
    # Index of the summary message in `messages` (-1: in the top-level system).
    index: int


# With `pin` or `preserve`: what the preservation contract checked (a 200 means all of
# it held).
class CompactResponseInputContract(TypedDict):
    # The pinned message indices, each checked present byte for byte.
    pinned: List[int]
    # The preserved strings, each checked present.
    preserved: List[str]


# What the thinking policy did.
class CompactResponseInputThinking(TypedDict):
    keep: Union[int, Literal["all"]]
    # Reasoning blocks or items removed.
    blocksDropped: int
    # Messages whose reasoning was removed (a message of reasoning alone is removed
    # whole).
    messagesChanged: int
    # Reasoning the policy would drop but the provider's rules keep (Responses items
    # tied to server ids).
    keptForProvider: int
    # Tokens the removed reasoning took.
    tokensFreed: int


# Present when storing this checkpoint took the session over COMPACTION_MAX_CHECKPOINTS
# and the oldest were folded into one.
CompactResponseInputCheckpointFolded = TypedDict(
    "CompactResponseInputCheckpointFolded",
    {
        # The checkpoint the oldest ones were folded into (it keeps its number).
        "into": int,
        # Every original checkpoint number that checkpoint now stands for.
        "from": List[int],
    },
)


# The checkpoint this compaction was stored as (sessionId given, compaction done).
class CompactResponseInputCheckpoint(TypedDict):
    sessionId: str
    # Number of the stored checkpoint (1, 2, ... per session, gap-free).
    checkpointNum: int
    # Present when storing this checkpoint took the session over
    # COMPACTION_MAX_CHECKPOINTS and the oldest were folded into one.
    folded: NotRequired[CompactResponseInputCheckpointFolded]


class CompactResponseInput(TypedDict):
    # False when the input is returned unchanged (it fits, dry run, or compaction would
    # not help).
    compacted: bool
    # Why nothing was changed, when compacted is false.
    reason: NotRequired[str]
    # The conversation in the input format. Kept messages are byte-identical to the
    # input objects.
    messages: List[Any]
    # Top-level system prompt: Anthropic output, or the `system` you sent (returned
    # unchanged).
    system: NotRequired[Any]
    # Format of `messages` (the input format).
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Model the budget was counted for.
    model: str
    # The budget used (the request's, or the model's compaction threshold).
    targetTokens: int
    # What produced the result: the summarizer that wrote the summary, `mask` when
    # masking sufficed, `none` when unchanged.
    strategy: Literal["mask", "rules", "llm", "truncate", "none"]
    # Strategies that were tried and failed or were unavailable, in order, with the
    # reason (e.g. `rate_limited: openai gpt-4o-mini: rate limited (HTTP 429)`).
    fallbacks: List[CompactResponseInputFallbacksItem]
    # Fixes applied to broken tool-call pairing in the input (onBrokenInput repair).
    repairs: List[CompactResponseInputRepairsItem]
    # What happens to each range of input messages.
    plan: List[CompactResponseInputPlanItem]
    # Figures of this compaction, for monitoring.
    event: CompactResponseInputEvent
    # The summary inserted, when one was written.
    summary: NotRequired[CompactResponseInputSummary]
    # With `pin` or `preserve`: what the preservation contract checked (a 200 means all
    # of it held).
    contract: NotRequired[CompactResponseInputContract]
    # What the thinking policy did.
    thinking: NotRequired[CompactResponseInputThinking]
    # The checkpoint this compaction was stored as (sessionId given, compaction done).
    checkpoint: NotRequired[CompactResponseInputCheckpoint]
    archive: NotRequired[ArchiveReportInput]


class StrategiesResponseInputStrategiesItem(TypedDict):
    name: Literal["mask", "rules", "llm", "truncate"]
    description: str
    # Runs only with a summarizer model configured on the server; without one it falls
    # back (see fallbacks).
    needsLlm: bool
    # Writes the summary of the compacted turns.
    summarizes: bool
    # Shrinks the middle turns that stay in the conversation.
    keeps: bool


class StrategiesResponseInput(TypedDict):
    # Every strategy `strategy` accepts, in the order of the docs.
    strategies: List[StrategiesResponseInputStrategiesItem]
    # The pipeline used when a request gives no strategy (COMPACTION_DEFAULT_STRATEGY).
    default: List[Literal["mask", "rules", "llm", "truncate"]]
    # Pipelines worth offering in a menu: the default first, then each strategy as it is
    # usually run.
    pipelines: List[List[Literal["mask", "rules", "llm", "truncate"]]]


class DisplayMessageInputCallsItem(TypedDict):
    id: str
    name: str
    # The arguments as sent, serialized.
    args: str


class DisplayMessageInputResultsItem(TypedDict):
    # The call it answers.
    id: str
    text: str
    isError: NotRequired[bool]


class DisplayMessageInput(TypedDict):
    # The role: system, developer, user, assistant or tool.
    role: str
    # Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line.
    text: str
    # Its tool calls.
    calls: List[DisplayMessageInputCallsItem]
    # Its tool results.
    results: List[DisplayMessageInputResultsItem]


class DisplayRequestInput(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]


class DisplayResponseInput(TypedDict):
    # The detected (or given) format.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The top-level system prompt, when given.
    system: NotRequired[DisplayMessageInput]
    messages: List[DisplayMessageInput]


class FormatsResponseInputFormatsItem(TypedDict):
    # The value of `format` in requests and responses.
    name: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Its name for people.
    label: str


class FormatsResponseInput(TypedDict):
    # Every message format the API reads and writes, in the order the docs list them.
    formats: List[FormatsResponseInputFormatsItem]
    # The format assumed when nothing can be detected (a plain user/assistant string
    # array).
    default: Literal["openai", "anthropic", "ai-sdk", "responses"]


# A conversation to count.
class EstimateRequestInput(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits
    # and the tokenizer. Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]
    # Tool definitions sent with the request (OpenAI `tools` or Anthropic `tools`);
    # their schemas count toward the prompt.
    tools: NotRequired[List[Any]]
    # `tokenizer`: exact o200k_base/cl100k_base counts (OpenAI models). `heuristic`:
    # fast character-class estimate. `provider`: Anthropic count_tokens, falling back to
    # the heuristic when unavailable. Default: tokenizer for OpenAI models, heuristic
    # with a safety margin for others.
    method: NotRequired[Literal["tokenizer", "heuristic", "provider"]]
    # Override the model's context window (e.g. for an unknown model).
    contextLimit: NotRequired[int]
    # Tokens reserved for the system prompt and tools. Default 2000
    # (COMPACTION_SYSTEM_RESERVE).
    systemReserve: NotRequired[int]
    # Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE).
    outputReserve: NotRequired[int]
    # Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER).
    safetyBuffer: NotRequired[int]
    # Fraction of the available window at which to compact. Default 0.8.
    thresholdPercent: NotRequired[float]


class EstimateResponseInputPerMessageItem(TypedDict):
    # Index in `messages`; -1 is a separate system prompt.
    index: int
    role: str
    tokens: int


# Present when the requested method was unavailable and the heuristic was used instead.
EstimateResponseInputFallback = TypedDict(
    "EstimateResponseInputFallback",
    {
        "from": str,
        "reason": str,
    },
)


class EstimateResponseInput(TypedDict):
    # The model the limits refer to (the request's, or DEFAULT_MODEL).
    model: str
    # False when the model is not in the registry and configurable defaults were used.
    modelKnown: bool
    # openai, anthropic, google, deepseek or unknown.
    provider: str
    # The detected (or given) message format.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The method that produced totalTokens.
    method: Literal["tokenizer", "heuristic", "provider"]
    # Tokenizer encoding, when method is tokenizer.
    encoding: NotRequired[str]
    # Multiplier applied to heuristic counts for models whose tokenizer is not
    # o200k-like (1 = none).
    safetyMargin: float
    # Prompt tokens: messages, per-message overhead, tools and reply priming.
    totalTokens: int
    # Tokens of the tool definitions, included in totalTokens.
    toolsTokens: int
    # Tokens of each message, overhead included. With method provider these are
    # heuristic estimates. Left out with `?perMessage=false`.
    perMessage: NotRequired[List[EstimateResponseInputPerMessageItem]]
    # The model's context window.
    contextLimit: int
    # The model's maximum output tokens.
    maxOutputTokens: int
    # (contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent.
    # 0 when the server's default reserves fill the model's window (see thresholdNote).
    threshold: int
    # Present when threshold is 0 because the model's window is smaller than the
    # server's default reserves (gpt-4's 8,192 < 11,000): the numbers, and what to give
    # (smaller reserves, or targetTokens to /compact). The count is exact all the same.
    thresholdNote: NotRequired[str]
    # totalTokens ≥ threshold (always true when threshold is 0).
    shouldCompact: bool
    # Present when the requested method was unavailable and the heuristic was used
    # instead.
    fallback: NotRequired[EstimateResponseInputFallback]


# An agent session log to convert.
class ImportRequestInput(TypedDict):
    # The log: the file's text as one string (JSON Lines or a JSON document, exactly as
    # the agent wrote it), or a JSON document (SWE-agent trajectory, Gemini CLI session)
    # as a value. Empty text, or text that is no log, is a 400 invalid_log. The whole
    # body is limited to BODY_LIMIT_BYTES.
    log: Union[str, List[Any], Dict[str, Any]]
    # Which agent wrote it: claude-code (Claude Code session JSONL), codex (Codex CLI
    # rollout JSONL), gemini-cli (Gemini CLI session JSON), pi (pi session JSONL),
    # swe-agent (SWE-agent and mini-swe-agent trajectories). Detected from the content
    # when omitted.
    source: NotRequired[Literal["claude-code", "codex", "gemini-cli", "pi", "swe-agent"]]
    # Format of the returned messages: OpenAI Chat Completions (default), Anthropic
    # Messages, Vercel AI SDK ModelMessage or OpenAI Responses items (a Codex rollout
    # keeps its own items).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # `all` (default): every message of the log. `current`: what the agent's model saw
    # last: the leading system messages, then everything from the latest compaction's
    # summary on.
    scope: NotRequired[Literal["all", "current"]]


class ImportResponseInputCompactionsItem(TypedDict):
    # Index in `messages` where the compaction took effect: the agent's summary message
    # is there when `summary` is not null; messages before it are what the agent
    # compacted. null: not in the returned messages (scope current, earlier
    # compactions).
    position: Union[int, None]
    # Line of the log that records the compaction; null in a JSON document.
    line: Union[int, None]
    # Where in a JSON document.
    path: NotRequired[str]
    # Claude Code's trigger, when recorded.
    trigger: NotRequired[Literal["auto", "manual"]]
    # Tokens in the context just before the compaction, when the log records them:
    # Claude Code compactMetadata.preTokens, Codex token_count, pi tokensBefore, Gemini
    # CLI record tokens; else null.
    preTokens: Union[int, None]
    # The summary the agent wrote, without its harness wrapper; null when the log does
    # not hold it.
    summary: Union[str, None]
    timestamp: NotRequired[str]


class ImportResponseInputIssuesItem(TypedDict):
    # 1-based line of a line-based log; null in a JSON document.
    line: Union[int, None]
    # Where in a JSON document, e.g. `messages[377]`.
    path: NotRequired[str]
    # `broken`: not JSON, or not what its type promises. `unknown`: valid JSON of a type
    # this importer does not know.
    kind: Literal["broken", "unknown"]
    message: str


class ImportResponseInputRepairsItem(TypedDict):
    line: Union[int, None]
    path: NotRequired[str]
    action: str


class ImportResponseInputStats(TypedDict):
    # Lines of a line-based log.
    lines: NotRequired[int]
    # Entries read (JSON lines, or elements of a JSON document).
    entries: int
    # Entries of known types that hold no conversation: metadata, UI events, token
    # counts, subagent sidechains.
    skipped: int
    # Messages returned.
    messages: int


# What the log says about the session.
class ImportResponseInputSession(TypedDict):
    # The agent's own session id.
    id: NotRequired[str]
    cwd: NotRequired[str]
    # The last model the log names.
    model: NotRequired[str]
    # The writer, when a source has several (swe-agent or mini-swe-agent).
    agent: NotRequired[str]
    agentVersion: NotRequired[str]
    startedAt: NotRequired[str]


class ImportResponseInput(TypedDict):
    # The agent that wrote the log.
    source: Literal["claude-code", "codex", "gemini-cli", "pi", "swe-agent"]
    # True when `source` was detected from the content, false when given.
    detected: bool
    # Format of `messages`.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    scope: Literal["all", "current"]
    # The conversation in `format`, tool calls paired with their results. Ready for
    # /estimate, /compact or a provider.
    messages: List[Any]
    # Anthropic top-level system prompt (format anthropic, when the log has system
    # messages).
    system: NotRequired[Any]
    # Compactions found in the log: Claude Code's compact_boundary and continued-session
    # summary, Codex compacted items, Gemini CLI <state_snapshot>, pi compaction
    # entries.
    compactions: List[ImportResponseInputCompactionsItem]
    # Broken and unknown lines, skipped (never fatal), at most 200.
    issues: List[ImportResponseInputIssuesItem]
    # Issues beyond the 200 listed.
    issuesOmitted: int
    # Tool calls without a result answered with "[no result recorded]", results without
    # a call dropped (as POST /compact onBrokenInput repair).
    repairs: List[ImportResponseInputRepairsItem]
    stats: ImportResponseInputStats
    # What the log says about the session.
    session: ImportResponseInputSession


# An OpenAI Chat Completions request, passed on to UPSTREAM_OPENAI_URL/chat/completions
# (every other field unchanged; `stream` streams).
class ProxyChatCompletionsRequestInput(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # OpenAI Chat Completions messages: compacted past the threshold.
    messages: List[Any]


# An OpenAI Responses request, passed on to UPSTREAM_OPENAI_URL/responses.
# `instructions` are kept; with `previous_response_id` the provider holds the history
# and nothing is compacted.
class ProxyResponsesRequestInput(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # Responses input items: compacted past the threshold (a string input never is).
    input: Union[str, List[Any]]


# An Anthropic Messages request, passed on to UPSTREAM_ANTHROPIC_URL/v1/messages.
# `system` is kept (a summary may be folded into it).
class ProxyMessagesRequestInput(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # Anthropic messages: compacted past the threshold.
    messages: List[Any]


# Anthropic's count_tokens request, answered by compactd's own counter (the heuristic
# for Anthropic models, with its margin).
class ProxyCountTokensRequestInput(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    messages: List[Any]


class ProxyCountTokensResponseInput(TypedDict):
    input_tokens: int


class SessionSummaryInputUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class SessionSummaryInput(TypedDict):
    # The session.
    sessionId: str
    # Summary version (0 while none exists). Versions are kept; the highest is current.
    version: int
    # The summary document as stored, with each item's `<!-- … -->` machine comment
    # (times, importance, files). Send this back to PUT /summary to edit it.
    content: str
    # The same document without the machine comments: what to send to a model.
    text: str
    # Tokens of `content`; never more than `budget`.
    tokens: int
    # The session's summary budget, in tokens.
    budget: int
    # When this version was written (ISO 8601).
    updatedAt: Union[str, None]
    # Who wrote this version.
    source: Union[Literal["background", "manual"], None]
    # True when evicted messages are not folded in yet (an update is due), or when the
    # database was unreachable.
    stale: bool
    # Evicted messages not yet in the summary.
    evictedAwaitingSummary: int
    # The queued background update, if any.
    update: Union[SessionSummaryInputUpdate, None]
    # True when the database could not be read: this is the last summary this process
    # saw (or, with status 503, the placeholder "[Summary temporarily unavailable]").
    degraded: bool


class PutSessionSummaryResponseInputUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class PutSessionSummaryResponseInput(TypedDict):
    # The session.
    sessionId: str
    # Summary version (0 while none exists). Versions are kept; the highest is current.
    version: int
    # The summary document as stored, with each item's `<!-- … -->` machine comment
    # (times, importance, files). Send this back to PUT /summary to edit it.
    content: str
    # The same document without the machine comments: what to send to a model.
    text: str
    # Tokens of `content`; never more than `budget`.
    tokens: int
    # The session's summary budget, in tokens.
    budget: int
    # When this version was written (ISO 8601).
    updatedAt: Union[str, None]
    # Who wrote this version.
    source: Union[Literal["background", "manual"], None]
    # True when evicted messages are not folded in yet (an update is due), or when the
    # database was unreachable.
    stale: bool
    # Evicted messages not yet in the summary.
    evictedAwaitingSummary: int
    # The queued background update, if any.
    update: Union[PutSessionSummaryResponseInputUpdate, None]
    # True when the database could not be read: this is the last summary this process
    # saw (or, with status 503, the placeholder "[Summary temporarily unavailable]").
    degraded: bool
    # Continuation fields your text did not state (no "Current task:", "Completed:",
    # "Pending:", "Key decisions:" or "Relevant files:" line), so they were carried over
    # from the version you replaced and added to its `## Continuation` block. Empty when
    # you stated them all. To clear a field, state it as none, e.g. "Current task:
    # none".
    continuationCarriedOver: List[Literal["currentTask", "completedSteps", "pendingSteps", "keyDecisions", "relevantFiles"]]


# A summary written by hand. It becomes a new version, and the next background update
# builds on it.
class PutSummaryRequestInput(TypedDict):
    # The new summary document (markdown: "## Previously in This Session", "##
    # Yesterday", "## This Week", "## Continuation"). Items may keep their `<!-- … -->`
    # comments from GET; lines without one take the time of the newest dated item (the
    # update's time when none has one). Continuation fields it does not state are
    # carried over from the version it replaces (see continuationCarriedOver). Must fit
    # the session's summaryBudget.
    content: str
    # The version you read (compare-and-set): when another version was written since,
    # the request fails with 409 and writes nothing. Omitted: the current version at the
    # time of the write.
    baseVersion: NotRequired[int]


class SummaryRefreshInput(TypedDict):
    # The session.
    sessionId: str
    # new: an entry was queued; merged: the pending entry was raised to high priority.
    queued: Literal["new", "merged"]
    # Refreshes are queued at high priority.
    priority: Literal["high"]
    # Evicted messages the update will fold in.
    evictedAwaitingSummary: int


# The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning
# parts and Responses reasoning items of earlier turns are dropped first, before any
# strategy. The turn in progress (the conversation ends with tool calls or results)
# keeps its reasoning, as Anthropic requires; pinned messages are not touched; a
# Responses reasoning item whose turn carries server item ids stays (the API refuses
# those items without it). The response reports the tokens freed (`thinking`).
class SessionSettingsRequestInputThinking(TypedDict):
    # Assistant turns (counted from the end) whose reasoning stays; `all` keeps every
    # one; 0 drops all but the turn in progress.
    keep: Union[int, Literal["all"]]


# When automatic compaction happens.
class SessionSettingsRequestInputTrigger(TypedDict):
    # `auto` (default): GET /context and the proxy compact past the threshold. `manual`:
    # only POST /compact (or the proxy's `x-compactd-compact: now`) compacts. `off`:
    # nothing compacts this session, POST /compact with its id included (a 409).
    mode: Literal["off", "manual", "auto"]
    # `auto` compacts past this many tokens (a number ≥ 1) or this share of the model's
    # window (a number < 1). Default: the budget (GET /context) or the model's threshold
    # (the proxy).
    threshold: NotRequired[float]
    # Never compact automatically while the last assistant message has tool calls
    # without results.
    notMidTurn: NotRequired[bool]


class SessionSettingsRequestInputSystemItem(TypedDict):
    type: Literal["text"]
    text: str


# Model that writes `llm` mode summaries. Keys and base URLs come only from server
# configuration.
class SessionSettingsRequestInputSummarizer(TypedDict):
    # Summarizer provider; it must be configured on the server (its API key set).
    provider: Literal["openai", "anthropic"]
    # One of the models the server allows for the provider. Default: the first one.
    model: NotRequired[str]


# A session's settings; omitted fields keep their value (or the default for a new
# session).
class SessionSettingsRequestInput(TypedDict):
    # Seqs (GET /sessions/:id/messages) of messages GET /context always sends verbatim,
    # with their tool pairs, even once folded into the summary. Checked on every
    # /context: what its budget cannot hold is a 422 `contract_unkept`. null removes the
    # pins.
    pin: NotRequired[Union[List[int], None]]
    # Strings GET /context and POST /compact (with this sessionId) must keep; a string
    # not in the conversation yet is listed in `contract.absent`, not an error. null
    # removes them.
    preserve: NotRequired[Union[List[str], None]]
    # What the session's compactions give room to (see POST /compact `focus`). null
    # removes it.
    focus: NotRequired[Union[str, None]]
    thinking: NotRequired[Union[SessionSettingsRequestInputThinking, None]]
    trigger: NotRequired[Union[SessionSettingsRequestInputTrigger, None]]
    # Format of the session's messages (openai, anthropic, ai-sdk). Set by the first
    # append when omitted; it cannot change once messages are stored.
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the session talks to: sets token counting and the default /context budget.
    # Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # The recent window keeps at most this many messages (system messages excepted).
    # Default 20.
    windowMessages: NotRequired[int]
    # ...and at most this many tokens. Default 16000.
    windowTokens: NotRequired[int]
    # Hard limit of the rolling summary, in tokens: enforced even when a summarizer
    # overshoots. Default 10000.
    summaryBudget: NotRequired[int]
    # Evicted exchanges that trigger a background summary update (seed 000's
    # BATCH_SIZE). Default 4.
    batchSize: NotRequired[int]
    # `rules`: offline summary (default). `llm`: the configured summarizer writes it
    # with seed 000's background-agent prompt, falling back to rules on any failure.
    mode: NotRequired[Literal["rules", "llm"]]
    # System prompt sent first by GET /context (a string, or Anthropic text blocks).
    # null removes it.
    system: NotRequired[Union[str, List[SessionSettingsRequestInputSystemItem], None]]
    summarizer: NotRequired[Union[SessionSettingsRequestInputSummarizer, None]]


# Summarizer of llm mode.
class SessionInputSettingsSummarizer(TypedDict):
    provider: str
    model: NotRequired[str]


# The thinking policy.
class SessionInputSettingsThinking(TypedDict):
    keep: Union[int, Literal["all"]]


# When automatic compaction happens.
class SessionInputSettingsTrigger(TypedDict):
    mode: Literal["off", "manual", "auto"]
    threshold: NotRequired[float]
    notMidTurn: NotRequired[bool]


# The session's settings.
class SessionInputSettings(TypedDict):
    # Format of the stored messages.
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model of the session.
    model: NotRequired[str]
    # System prompt, when set.
    system: NotRequired[Any]
    # Window size in messages.
    windowMessages: int
    # Window size in tokens.
    windowTokens: int
    # Summary budget in tokens.
    summaryBudget: int
    # Evicted exchanges per background update.
    batchSize: int
    # Summary mode.
    mode: Literal["rules", "llm"]
    # Summarizer of llm mode.
    summarizer: NotRequired[SessionInputSettingsSummarizer]
    # Pinned message seqs.
    pin: NotRequired[List[int]]
    # Strings every compaction keeps.
    preserve: NotRequired[List[str]]
    # What the compactions give room to.
    focus: NotRequired[str]
    # The thinking policy.
    thinking: NotRequired[SessionInputSettingsThinking]
    # When automatic compaction happens.
    trigger: NotRequired[SessionInputSettingsTrigger]


class SessionInputSummary(TypedDict):
    version: int
    tokens: int
    updatedAt: str
    source: str


class SessionInputUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class SessionInput(TypedDict):
    # The session id.
    id: str
    # The session's settings.
    settings: SessionInputSettings
    # Messages appended so far.
    messageCount: int
    # Messages in the recent window (system messages excepted).
    windowMessages: int
    # Tokens of the recent window.
    windowTokens: int
    # System/developer messages, always kept.
    systemMessages: int
    # Messages that left the window and are not yet in the summary.
    evictedAwaitingSummary: int
    # Messages folded into the summary.
    summarizedMessages: int
    # The current summary version, if any.
    summary: Union[SessionInputSummary, None]
    # The queued background update, if any.
    update: Union[SessionInputUpdate, None]
    # ISO 8601.
    createdAt: str
    # ISO 8601: last settings change or append.
    updatedAt: str


class AppendMessagesRequestInputSystemItem(TypedDict):
    type: Literal["text"]
    text: str


# Messages to append to the session.
class AppendMessagesRequestInput(TypedDict):
    # The exchange(s) to append, oldest first, in the session's format. A `timestamp`
    # (or `createdAt`) on a message dates it for aging; otherwise the append time does.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Anthropic-style top-level system prompt (a string or text blocks); stored as the
    # session's system prompt.
    system: NotRequired[Union[str, List[AppendMessagesRequestInputSystemItem]]]


class AppendMessagesResponseInput(TypedDict):
    # The session.
    sessionId: str
    # Messages appended by this request.
    appended: int
    # Sequence number of the first appended message.
    firstSeq: Union[int, None]
    # Sequence number of the last appended message.
    lastSeq: Union[int, None]
    # Messages in the session.
    messageCount: int
    # Messages in the recent window now.
    windowMessages: int
    # Tokens of the recent window now.
    windowTokens: int
    # Messages this request pushed out of the window.
    evicted: int
    # Evicted messages not yet folded into the summary.
    evictedAwaitingSummary: int
    # The same, in exchanges: an update is queued once it reaches batchSize.
    evictedExchangesAwaitingSummary: int
    # True when this request queued a background summary update.
    updateQueued: bool
    # When messages were evicted: what of them the archive stored (searchable with GET
    # /sessions/{id}/search).
    archive: NotRequired[ArchiveReportInput]


# With the session's `pin` or `preserve`: what the contract checked (a 200 means all of
# it held).
class SessionContextInputContract(TypedDict):
    # Seqs of the pinned messages, each checked present (byte for byte in the session's
    # format).
    pinned: List[int]
    # Preserved strings, each checked present.
    preserved: List[str]
    # Preserved strings the session does not hold (yet): nothing to keep.
    absent: List[str]


class SessionContextInput(TypedDict):
    # The session.
    sessionId: str
    # Format of `messages` (and `system`).
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Model the tokens were counted for.
    model: str
    # The budget the context fits.
    budget: int
    # Tokens of the returned context.
    tokens: int
    # True when the compaction engine had to trim it to the budget.
    compacted: bool
    # What trimmed it: none, or an offline strategy (mask, rules, truncate).
    strategy: str
    # The summary version included (0: none yet).
    summaryVersion: int
    # True when evicted messages were not yet in the summary: they are included verbatim
    # (or compacted) instead, so nothing is lost.
    stale: bool
    # Why the context was not compacted though it is over the budget: the session's
    # trigger (mode, threshold, notMidTurn).
    reason: NotRequired[str]
    # With the session's `pin` or `preserve`: what the contract checked (a 200 means all
    # of it held).
    contract: NotRequired[SessionContextInputContract]
    # Ready to send: system messages, the summary, messages awaiting summary, then the
    # recent window. Valid for the provider (tool calls keep their results).
    messages: List[Any]
    # Anthropic: the top-level system prompt (system messages and the summary).
    system: NotRequired[Any]


class SessionContinuationInput(TypedDict):
    # The session.
    sessionId: str
    # Summary version it was read from.
    version: int
    # When that version was written.
    updatedAt: Union[str, None]
    # True when evicted messages are not folded in yet.
    stale: bool
    # True when the database could not be read and this comes from the last summary this
    # process saw.
    degraded: bool
    # The task being worked on (the latest meaningful request).
    currentTask: str
    # Steps already done.
    completedSteps: List[str]
    # Steps remaining.
    pendingSteps: List[str]
    # Decisions made.
    keyDecisions: List[str]
    # Files being worked on, most recent first.
    relevantFiles: List[str]
    # The same as seed 003's `[Previous Session Context]` block, ready to inject.
    prompt: str


class CheckpointPageInput(TypedDict):
    # Checkpoints, newest (highest number) first.
    items: List[CheckpointInput]
    # Pass as `cursor` for the next (older) page; null on the last page.
    nextCursor: Union[str, None]


class SessionStatsInput(TypedDict):
    # The session.
    sessionId: str
    # Checkpoints stored (after folding).
    checkpoints: int
    # Sum of originalTokens − compressedTokens over the checkpoints.
    tokensSaved: int
    # Sum of summaryCostUsd.
    totalSummaryCostUsd: float
    # Token-weighted: sum(originalTokens) / sum(compressedTokens) (unchanged by
    # folding).
    averageCompressionRatio: float
    # Sum of originalTokens.
    totalOriginalTokens: int
    # Sum of compressedTokens.
    totalCompressedTokens: int
    # The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit
    # breaker").
    breaker: BreakerStatusInput


class BreakerResetInput(TypedDict):
    sessionId: str
    # The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit
    # breaker").
    breaker: BreakerStatusInput


class SessionListInputItemsItemWindowLimit(TypedDict):
    messages: int
    tokens: int


class SessionListInputItemsItemUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]
    # Attempts so far.
    attempts: int
    # The last attempt's error, when it failed.
    lastError: Union[str, None]


class SessionListInputItemsItem(TypedDict):
    # The session id (or the sessionId given to POST /compact).
    id: str
    # `session`: a session with a rolling summary; `series`: only compactions stored
    # with POST /compact and a sessionId; `both`.
    kind: Literal["session", "series", "both"]
    # ISO 8601: the latest append, settings change, summary version or checkpoint.
    lastActivity: str
    # Messages appended (0 for a series).
    messageCount: int
    # Messages in the recent window now (system messages excepted).
    windowMessages: int
    # Tokens of the recent window now.
    windowTokens: int
    # The session's window size (null for a series).
    windowLimit: Union[SessionListInputItemsItemWindowLimit, None]
    # Current rolling-summary version (0: none).
    summaryVersion: int
    # Tokens of the current summary.
    summaryTokens: int
    # Checkpoints stored (after folding).
    checkpoints: int
    # Sum of originalTokens − compressedTokens over the checkpoints.
    tokensSaved: int
    # The queued background summary update, if any.
    update: Union[SessionListInputItemsItemUpdate, None]
    # Failed attempts of the queued update (0 when none failed).
    updateFailures: int


class SessionListInput(TypedDict):
    items: List[SessionListInputItemsItem]
    # Pass as `cursor` (with the same q, sort and order) for the next page; null on the
    # last page.
    nextCursor: Union[str, None]
    # Rows matching `q`, on every page.
    total: int


class SummaryVersionPageInputItemsItem(TypedDict):
    # The version (1, 2, ...).
    version: int
    # Tokens of the version.
    tokens: int
    # ISO 8601: when it was written.
    updatedAt: str
    # As GET /summary reports it.
    source: Literal["background", "manual"]
    # `background`: an update that folded evicted messages in; `aging`: the daily
    # re-aging (nothing new folded); `manual`: PUT /summary.
    writtenBy: Literal["background", "aging", "manual"]
    # Mode of the background update (rules, llm, llm-fallback); null for a manual
    # version or when the update's record was purged (RUN_HISTORY_MS).
    mode: Union[str, None]
    # Messages the update folded in; null as for mode.
    foldedMessages: Union[int, None]


class SummaryVersionPageInput(TypedDict):
    items: List[SummaryVersionPageInputItemsItem]
    # Pass as `cursor` for the next (older) page; null on the last page.
    nextCursor: Union[str, None]


class SummaryVersionInput(TypedDict):
    # The session.
    sessionId: str
    # The version (1, 2, ...).
    version: int
    # Tokens of the version.
    tokens: int
    # ISO 8601: when it was written.
    updatedAt: str
    # As GET /summary reports it.
    source: Literal["background", "manual"]
    # `background`: an update that folded evicted messages in; `aging`: the daily
    # re-aging (nothing new folded); `manual`: PUT /summary.
    writtenBy: Literal["background", "aging", "manual"]
    # Mode of the background update (rules, llm, llm-fallback); null for a manual
    # version or when the update's record was purged (RUN_HISTORY_MS).
    mode: Union[str, None]
    # Messages the update folded in; null as for mode.
    foldedMessages: Union[int, None]
    # The document as stored, with the items' `<!-- … -->` comments.
    content: str
    # The same without the comments.
    text: str


class SessionMessagePageInputItemsItem(TypedDict):
    # Position in the session (1, 2, ...).
    seq: int
    # The message's role.
    role: str
    # Its tokens, counted for the session's model when appended.
    tokens: int
    # Where it is now.
    status: Literal["window", "evicted", "summarized"]
    # ISO 8601: its own timestamp, else when it was appended.
    messageAt: str
    # The message as appended.
    message: Any


class SessionMessagePageInput(TypedDict):
    # The session.
    sessionId: str
    # The session's message format.
    format: Union[Literal["openai", "anthropic", "ai-sdk", "responses"], None]
    items: List[SessionMessagePageInputItemsItem]
    # Pass as `cursor` for the next (newer) page; null on the last page.
    nextCursor: Union[str, None]


class ErrorIssuesItem(TypedDict):
    path: str
    message: str


# Error body returned with every 4xx/5xx status.
class Error(TypedDict):
    # Stable error code, e.g. `validation_error`, `invalid_messages`, `unauthorized`.
    error: str
    # Human-readable explanation.
    message: str
    # For validation errors: each problem with the path of the offending field.
    issues: NotRequired[List[ErrorIssuesItem]]
    # Echo of the `x-request-id` of this request, for support.
    requestId: NotRequired[str]


# What this compaction archived: present when a sessionId was given and the conversation
# was compacted (not on a dry run).
class ArchiveReport(TypedDict):
    # `archived`: what this compaction dropped is stored and searchable. `over_quota`:
    # the tenant's archive is full, nothing was archived and no references were printed.
    # `disabled`: ARCHIVE_ENABLED is off.
    status: Literal["archived", "over_quota", "disabled"]
    # Messages stored by this compaction.
    archived: int
    # Messages already in the session's archive (a resent history is archived once).
    deduplicated: int
    # Secrets replaced by `[REDACTED:rule]` in the messages stored.
    redactions: int
    # Bytes the stored messages take.
    bytes: int
    # The tenant's archive size after this compaction.
    usedBytes: int
    # ARCHIVE_QUOTA_BYTES.
    quotaBytes: int
    # Why nothing was archived, when status is not `archived`.
    reason: NotRequired[str]


class ArchiveHit(TypedDict):
    # The archived message: read it with GET /sessions/{id}/archive/{ref}.
    ref: str
    role: str
    # The tool whose output (or call) this is.
    toolName: Union[str, None]
    # The passage around the best match, 300–800 characters (the whole text when
    # shorter).
    snippet: str
    # Relevance: higher is better; comparable within one search.
    score: float
    # The checkpoint that archived it (null: a session's evicted message).
    checkpointNum: Union[int, None]
    # Its index in the messages of that compaction (a session's seq for an evicted one).
    position: int
    source: Literal["compact", "session", "proxy"]


class ArchiveSearch(TypedDict):
    hits: List[ArchiveHit]
    # The words searched for, rarest first, after stopwords and words too common in this
    # session to rank by.
    terms: List[str]
    # Archived messages not searchable yet: the search indexes up to 2,000 before it
    # reads, and says how many more wait (search again).
    pending: NotRequired[int]


class ArchivedMessage(TypedDict):
    ref: str
    role: str
    toolName: Union[str, None]
    checkpointNum: Union[int, None]
    position: int
    source: Literal["compact", "session", "proxy"]
    # Format of `messages`.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The original message as sent (secrets redacted), in `format`; for an assistant
    # message with tool calls, followed by their archived results, so the pair stays
    # whole. Omitted when `lines` or `grep` is given.
    messages: NotRequired[List[Any]]
    # With `lines` or `grep`: the selected lines, each prefixed with its number and a
    # tab.
    text: NotRequired[str]
    # Lines in the message's text.
    totalLines: int
    # With `grep`: lines that matched.
    matchedLines: NotRequired[int]
    # True when the selection was cut at 64 KB: ask for a narrower `lines` range.
    truncated: bool
    # Secrets redacted in this message before it was archived.
    redactions: int


class BreakerStatusRecentItem(TypedDict):
    at: str
    messages: int
    freedTokens: int
    windowTokens: int


class BreakerStatus(TypedDict):
    # `open`: automatic compactions (the proxy, GET /context) of this session are
    # refused.
    state: Literal["closed", "open"]
    # Why it opened.
    reason: NotRequired[str]
    # Seconds until an automatic compaction is tried again.
    retryAfterSeconds: NotRequired[int]
    # ISO 8601.
    openedAt: NotRequired[str]
    # The latest automatic compactions since the last manual one or reset, oldest first:
    # when, at how many messages, what they freed of which window.
    recent: List[BreakerStatusRecentItem]


class Checkpoint(TypedDict):
    # The session it belongs to.
    sessionId: str
    # 1, 2, ... per session, gap-free in the order compactions were stored.
    checkpointNum: int
    # Compaction round of the summary (null when the compaction only masked).
    round: Union[int, None]
    # What produced it: a strategy of GET /strategies (mask, rules, llm, truncate).
    strategy: Union[str, None]
    # First compacted message index of the compacted input.
    fromMessageIndex: Union[int, None]
    # Last compacted message index of the compacted input.
    toMessageIndex: Union[int, None]
    # Messages summarised or masked.
    messagesCompressed: Union[int, None]
    # The summary text (`## Session Summary (Compaction Round N)` ...); empty when the
    # compaction only masked.
    summary: str
    # Continuation facts: currentTask, completedSteps, pendingSteps, keyDecisions,
    # relevantFiles, errors, userRequests.
    keyFacts: Union[Dict[str, Any], None]
    # Tokens of the conversation before compaction.
    originalTokens: Union[int, None]
    # Tokens after.
    compressedTokens: Union[int, None]
    # originalTokens / compressedTokens.
    compressionRatio: Union[float, None]
    # Cost of the summarizer calls.
    summaryCostUsd: Union[float, None]
    # The budget it compacted to (null on checkpoints stored before this field existed).
    targetTokens: Union[int, None]
    # The model the tokens were counted for.
    model: Union[str, None]
    # How long the compaction took, in milliseconds (folded: the sum).
    durationMs: Union[int, None]
    # Tokens of the summary it wrote (null when it only masked, or for a fold).
    summaryTokens: Union[int, None]
    # When older checkpoints were folded into this one (COMPACTION_MAX_CHECKPOINTS):
    # every original checkpoint number it stands for, its own included. Totals are their
    # sums.
    foldedFrom: Union[List[int], None]
    # ISO 8601.
    createdAt: str


# Which configured model writes the `llm` summary, so only with `llm` in strategy (or in
# COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400 naming
# body.summarizer. Keys and base URLs come only from server configuration: any other
# field (baseURL, apiKey, url...) is a 400. Default: SUMMARIZER_DEFAULT_PROVIDER.
class CompactRequestSummarizer(TypedDict):
    # Summarizer provider. One without an API key on the server is no usable summarizer:
    # the llm step falls back, with the reason in `fallbacks`.
    provider: Literal["openai", "anthropic"]
    # One of the models the server allows (SUMMARIZER_OPENAI_MODELS /
    # SUMMARIZER_ANTHROPIC_MODELS); another is a 400. Default: the first one.
    model: NotRequired[str]


# The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning
# parts and Responses reasoning items of earlier turns are dropped first, before any
# strategy. The turn in progress (the conversation ends with tool calls or results)
# keeps its reasoning, as Anthropic requires; pinned messages are not touched; a
# Responses reasoning item whose turn carries server item ids stays (the API refuses
# those items without it). The response reports the tokens freed (`thinking`).
class CompactRequestThinking(TypedDict):
    # Assistant turns (counted from the end) whose reasoning stays; `all` keeps every
    # one; 0 drops all but the turn in progress.
    keep: Union[int, Literal["all"]]


# The prompt cache's state and prices: the event then reports what this compaction costs
# in cache writes against what it saves over the next requests (`event.cache`;
# docs/api.md has the arithmetic).
class CompactRequestCache(TypedDict):
    # Tokens of this conversation the provider has cached now (its usage's cached_tokens
    # / cache_read_input_tokens). Default: all of it.
    cachedPrefixTokens: NotRequired[int]
    # USD per million uncached input tokens. Default: the model registry's.
    inputPrice: NotRequired[float]
    # USD per million cached tokens read. Default: the registry's input price times the
    # provider's cache discount.
    cacheReadPrice: NotRequired[float]
    # USD per million tokens written to the cache. Default: the input price (OpenAI,
    # Google, DeepSeek) or 1.25× it (Anthropic, unknown models).
    cacheWritePrice: NotRequired[float]
    # Requests over which the saving is counted, the next one included. Default 10.
    horizonTurns: NotRequired[int]


# A conversation to compact, and how.
class CompactRequest(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits
    # and the tokenizer. Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]
    # Token budget the output must fit (counted like /estimate for `model`). Default:
    # the model's compaction threshold, as /estimate returns it.
    targetTokens: NotRequired[int]
    # Leading user turns kept verbatim (the original task). System messages before them
    # are always kept. Default 1.
    keepFirst: NotRequired[int]
    # Most recent messages kept verbatim; the boundary moves earlier rather than
    # separate a tool call from its results. Given, the window is kept whenever it fits.
    # Default 10 (COMPACTION_KEEP_RECENT), taking at most half of what the system prompt
    # and task leave of the target when more would leave the summary under 1,000 tokens:
    # past that it shrinks (the last message always stays) so the summary has room.
    keepRecent: NotRequired[int]
    # Instead of keepRecent: keep the most recent messages up to this many tokens.
    # Giving both is a 400.
    keepRecentTokens: NotRequired[int]
    # A strategy or a pipeline, cheapest first (GET /strategies lists them). `mask`:
    # replace old tool results with short placeholders; the calls stay. `rules`: offline
    # structured summary (task, files, failures, decisions, next step), deterministic
    # and free. `llm`: summary written by the configured model. `truncate`: keep the
    # start and end of the text. The pipeline's summarizers fall back to rules →
    # truncate. Default: COMPACTION_DEFAULT_STRATEGY; unset, `["mask","llm","rules"]`
    # when the server has a summarizer configured (an OpenAI or Anthropic key), else
    # `["mask","rules"]`.
    strategy: NotRequired[Union[Literal["mask", "rules", "llm", "truncate"], List[Literal["mask", "rules", "llm", "truncate"]]]]
    # The most recent tool results are never masked. Default 3.
    keepToolResults: NotRequired[int]
    # Tools whose results are never masked (e.g. a memory or plan tool).
    excludeTools: NotRequired[List[str]]
    # Also shorten tool-call arguments of masked calls: a token threshold, or true for
    # 200. Default false.
    clearToolInputs: NotRequired[Union[bool, int]]
    # Keep error messages and failing commands of masked or summarised tool results.
    # Default true.
    preserveErrorDetails: NotRequired[bool]
    # Cap on the summary sections (task, instructions, files, errors, decisions, state,
    # pending work); never more than 15% of targetTokens. The action log appended to the
    # same message uses what the rest of the budget leaves. Default 2000
    # (COMPACTION_MAX_SUMMARY_TOKENS).
    maxSummaryTokens: NotRequired[int]
    # Role of the summary message. Default user. With Anthropic, system/developer put it
    # in the top-level `system`.
    summaryRole: NotRequired[Literal["system", "developer", "user", "assistant"]]
    # Which configured model writes the `llm` summary, so only with `llm` in strategy
    # (or in COMPACTION_DEFAULT_STRATEGY when strategy is omitted): otherwise a 400
    # naming body.summarizer. Keys and base URLs come only from server configuration:
    # any other field (baseURL, apiKey, url...) is a 400. Default:
    # SUMMARIZER_DEFAULT_PROVIDER.
    summarizer: NotRequired[CompactRequestSummarizer]
    # Extra guidance for the summary (what to keep), for the llm strategy.
    instructions: NotRequired[str]
    # `append` adds instructions to the built-in summary prompt; `replace` replaces its
    # guidance. Default append.
    instructionsMode: NotRequired[Literal["replace", "append"]]
    # What the summary should give room to (a subsystem, a decision, a file). Added to
    # the default guidance, never replacing it: the llm prompt gets it as a section of
    # its own; the rules summary ranks the action-log lines mentioning its words above
    # the others of their importance. `instructions` with `instructionsMode: replace`
    # stays the way to replace the prompt.
    focus: NotRequired[str]
    # Indices (0-based, into `messages`) of messages kept verbatim, byte for byte,
    # wherever they sit, with the tool calls or results they pair with. Checked on the
    # output: what the budget cannot hold is a 422 `contract_unkept` listing it; an
    # index past the end is a 400.
    pin: NotRequired[List[int]]
    # Strings that must appear in the output (an identifier, a rule, a URL, a
    # constraint). compactd keeps the latest message holding one when the summary does
    # not; what the budget cannot hold is a 422 `contract_unkept`; a string not in the
    # input is a 400 naming it.
    preserve: NotRequired[List[str]]
    # Compact only when it saves at least this many tokens; otherwise the conversation
    # comes back unchanged (compacted: false, with the reason). Wins over targetTokens:
    # a small saving is not worth the prompt-cache break it costs. Checked on the plan
    # before any summarizer is called.
    minGainTokens: NotRequired[int]
    # The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK
    # reasoning parts and Responses reasoning items of earlier turns are dropped first,
    # before any strategy. The turn in progress (the conversation ends with tool calls
    # or results) keeps its reasoning, as Anthropic requires; pinned messages are not
    # touched; a Responses reasoning item whose turn carries server item ids stays (the
    # API refuses those items without it). The response reports the tokens freed
    # (`thinking`).
    thinking: NotRequired[CompactRequestThinking]
    # The prompt cache's state and prices: the event then reports what this compaction
    # costs in cache writes against what it saves over the next requests (`event.cache`;
    # docs/api.md has the arithmetic).
    cache: NotRequired[CompactRequestCache]
    # `when-profitable`: compact only when the saving over `cache.horizonTurns`
    # outweighs the cache writes (checked on the plan before a summarizer is paid, and
    # on the result); otherwise compacted: false with the reason. Default always.
    cachePolicy: NotRequired[Literal["always", "when-profitable"]]
    # Return the plan and estimated result without changing anything, calling a model or
    # storing a checkpoint.
    dryRun: NotRequired[bool]
    # Compact even when the conversation already fits targetTokens. A conversation
    # smaller than any compaction of it could be comes back unchanged (compacted: false,
    # with the reason).
    force: NotRequired[bool]
    # Your id for the conversation (1-200 characters of A-Z a-z 0-9 . _ : -). When
    # given, each compaction is stored as a numbered checkpoint, and round numbers
    # continue from the latest one.
    sessionId: NotRequired[str]
    # Input whose tool calls and results do not pair up: `repair` drops orphan results
    # and answers missing ones (listed in `repairs`); `reject` is a 400. Default repair.
    onBrokenInput: NotRequired[Literal["repair", "reject"]]
    # Override the model's context window (e.g. for an unknown model).
    contextLimit: NotRequired[int]
    # Tokens reserved for the system prompt and tools. Default 2000
    # (COMPACTION_SYSTEM_RESERVE).
    systemReserve: NotRequired[int]
    # Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE).
    outputReserve: NotRequired[int]
    # Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER).
    safetyBuffer: NotRequired[int]
    # Fraction of the available window at which to compact. Default 0.8.
    thresholdPercent: NotRequired[float]


class CompactResponseFallbacksItem(TypedDict):
    strategy: str
    reason: str


class CompactResponseRepairsItem(TypedDict):
    index: int
    action: str


CompactResponsePlanItem = TypedDict(
    "CompactResponsePlanItem",
    {
        # First input index (-1: the top-level system).
        "from": int,
        "to": int,
        "action": Literal["keep", "mask", "condense", "summarize"],
        "reason": str,
    },
)


# The cache economics of this compaction (with `cache` or `cachePolicy`).
class CompactResponseEventCache(TypedDict):
    inputPrice: float
    cacheReadPrice: float
    cacheWritePrice: float
    tokensBefore: int
    tokensAfter: int
    cachedPrefixTokens: int
    # The output's leading tokens that are the input's, unchanged: still cached.
    keptPrefixTokens: int
    horizonTurns: int
    # Extra cache writes the next request pays because of the compaction.
    writeCostUsd: float
    summarizerCostUsd: float
    # The next horizonTurns requests without compacting.
    costWithoutUsd: float
    # The same requests after compacting, the summarizer included.
    costWithUsd: float
    # costWithoutUsd − costWithUsd.
    savingUsd: float
    # Requests after which the compaction has paid for itself; null: never.
    breakEvenTurns: Union[int, None]
    profitable: bool
    # true: the plan's estimate, checked before any summarizer was paid; false: the
    # result's figures.
    estimated: bool


# Figures of this compaction, for monitoring.
class CompactResponseEvent(TypedDict):
    # Compaction round: 1, or one more than the previous summary (in the input or the
    # session).
    round: int
    tokensBefore: int
    # Tokens of the output (estimated for a dry run).
    tokensAfter: int
    # tokensBefore / tokensAfter.
    compressionRatio: float
    messagesCompacted: int
    strategy: str
    # Tokens of the summary message as sent: its sections and action log (the reserve,
    # for a dry run).
    summaryTokens: int
    # The room the summary message had: targetTokens less the rest of the output (head,
    # kept turns, tail). summaryTokens against it is how much of the budget the summary
    # left unused; 0 without a summary.
    summaryRoomTokens: int
    # Cost of summarizer calls (0 offline).
    costUsd: float
    durationMs: int
    # The cache economics of this compaction (with `cache` or `cachePolicy`).
    cache: NotRequired[CompactResponseEventCache]


# Continuation facts read from the summary: task, steps done and pending, decisions,
# files, errors, later user requests.
class CompactResponseSummaryKeyFacts(TypedDict):
    currentTask: str
    completedSteps: List[str]
    pendingSteps: List[str]
    keyDecisions: List[str]
    relevantFiles: List[str]
    errors: List[str]
    userRequests: List[str]


# The summary inserted, when one was written.
class CompactResponseSummary(TypedDict):
    # The summary, starting with `## Session Summary (Compaction Round N)`.
    text: str
    # Continuation facts read from the summary: task, steps done and pending, decisions,
    # files, errors, later user requests.
    keyFacts: CompactResponseSummaryKeyFacts
    # Role of the summary message.
    role: str
    # Index of the summary message in `messages` (-1: in the top-level system).
    index: int


# With `pin` or `preserve`: what the preservation contract checked (a 200 means all of
# it held).
class CompactResponseContract(TypedDict):
    # The pinned message indices, each checked present byte for byte.
    pinned: List[int]
    # The preserved strings, each checked present.
    preserved: List[str]


# What the thinking policy did.
class CompactResponseThinking(TypedDict):
    keep: Union[int, Literal["all"]]
    # Reasoning blocks or items removed.
    blocksDropped: int
    # Messages whose reasoning was removed (a message of reasoning alone is removed
    # whole).
    messagesChanged: int
    # Reasoning the policy would drop but the provider's rules keep (Responses items
    # tied to server ids).
    keptForProvider: int
    # Tokens the removed reasoning took.
    tokensFreed: int


# Present when storing this checkpoint took the session over COMPACTION_MAX_CHECKPOINTS
# and the oldest were folded into one.
CompactResponseCheckpointFolded = TypedDict(
    "CompactResponseCheckpointFolded",
    {
        # The checkpoint the oldest ones were folded into (it keeps its number).
        "into": int,
        # Every original checkpoint number that checkpoint now stands for.
        "from": List[int],
    },
)


# The checkpoint this compaction was stored as (sessionId given, compaction done).
class CompactResponseCheckpoint(TypedDict):
    sessionId: str
    # Number of the stored checkpoint (1, 2, ... per session, gap-free).
    checkpointNum: int
    # Present when storing this checkpoint took the session over
    # COMPACTION_MAX_CHECKPOINTS and the oldest were folded into one.
    folded: NotRequired[CompactResponseCheckpointFolded]


class CompactResponse(TypedDict):
    # False when the input is returned unchanged (it fits, dry run, or compaction would
    # not help).
    compacted: bool
    # Why nothing was changed, when compacted is false.
    reason: NotRequired[str]
    # The conversation in the input format. Kept messages are byte-identical to the
    # input objects.
    messages: List[Any]
    # Top-level system prompt: Anthropic output, or the `system` you sent (returned
    # unchanged).
    system: NotRequired[Any]
    # Format of `messages` (the input format).
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Model the budget was counted for.
    model: str
    # The budget used (the request's, or the model's compaction threshold).
    targetTokens: int
    # What produced the result: the summarizer that wrote the summary, `mask` when
    # masking sufficed, `none` when unchanged.
    strategy: Literal["mask", "rules", "llm", "truncate", "none"]
    # Strategies that were tried and failed or were unavailable, in order, with the
    # reason (e.g. `rate_limited: openai gpt-4o-mini: rate limited (HTTP 429)`).
    fallbacks: List[CompactResponseFallbacksItem]
    # Fixes applied to broken tool-call pairing in the input (onBrokenInput repair).
    repairs: List[CompactResponseRepairsItem]
    # What happens to each range of input messages.
    plan: List[CompactResponsePlanItem]
    # Figures of this compaction, for monitoring.
    event: CompactResponseEvent
    # The summary inserted, when one was written.
    summary: NotRequired[CompactResponseSummary]
    # With `pin` or `preserve`: what the preservation contract checked (a 200 means all
    # of it held).
    contract: NotRequired[CompactResponseContract]
    # What the thinking policy did.
    thinking: NotRequired[CompactResponseThinking]
    # The checkpoint this compaction was stored as (sessionId given, compaction done).
    checkpoint: NotRequired[CompactResponseCheckpoint]
    archive: NotRequired[ArchiveReport]


class StrategiesResponseStrategiesItem(TypedDict):
    name: Literal["mask", "rules", "llm", "truncate"]
    description: str
    # Runs only with a summarizer model configured on the server; without one it falls
    # back (see fallbacks).
    needsLlm: bool
    # Writes the summary of the compacted turns.
    summarizes: bool
    # Shrinks the middle turns that stay in the conversation.
    keeps: bool


class StrategiesResponse(TypedDict):
    # Every strategy `strategy` accepts, in the order of the docs.
    strategies: List[StrategiesResponseStrategiesItem]
    # The pipeline used when a request gives no strategy (COMPACTION_DEFAULT_STRATEGY).
    default: List[Literal["mask", "rules", "llm", "truncate"]]
    # Pipelines worth offering in a menu: the default first, then each strategy as it is
    # usually run.
    pipelines: List[List[Literal["mask", "rules", "llm", "truncate"]]]


class DisplayMessageCallsItem(TypedDict):
    id: str
    name: str
    # The arguments as sent, serialized.
    args: str


class DisplayMessageResultsItem(TypedDict):
    # The call it answers.
    id: str
    text: str
    isError: NotRequired[bool]


class DisplayMessage(TypedDict):
    # The role: system, developer, user, assistant or tool.
    role: str
    # Its text, reasoning (prefixed "(reasoning) ") and images ("[image]"), one a line.
    text: str
    # Its tool calls.
    calls: List[DisplayMessageCallsItem]
    # Its tool results.
    results: List[DisplayMessageResultsItem]


class DisplayRequest(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]


class DisplayResponse(TypedDict):
    # The detected (or given) format.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The top-level system prompt, when given.
    system: NotRequired[DisplayMessage]
    messages: List[DisplayMessage]


class FormatsResponseFormatsItem(TypedDict):
    # The value of `format` in requests and responses.
    name: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Its name for people.
    label: str


class FormatsResponse(TypedDict):
    # Every message format the API reads and writes, in the order the docs list them.
    formats: List[FormatsResponseFormatsItem]
    # The format assumed when nothing can be detected (a plain user/assistant string
    # array).
    default: Literal["openai", "anthropic", "ai-sdk", "responses"]


# A conversation to count.
class EstimateRequest(TypedDict):
    # The conversation, in OpenAI Chat Completions, Anthropic Messages, Vercel AI SDK
    # ModelMessage or OpenAI Responses (input items) format. The format is detected;
    # `format` overrides.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the conversation is for (e.g. gpt-4o, claude-sonnet-4-5). Sets the limits
    # and the tokenizer. Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # Anthropic-style top-level system prompt (string or text blocks). With other
    # formats it counts as a leading system message.
    system: NotRequired[Union[str, List[Any]]]
    # Tool definitions sent with the request (OpenAI `tools` or Anthropic `tools`);
    # their schemas count toward the prompt.
    tools: NotRequired[List[Any]]
    # `tokenizer`: exact o200k_base/cl100k_base counts (OpenAI models). `heuristic`:
    # fast character-class estimate. `provider`: Anthropic count_tokens, falling back to
    # the heuristic when unavailable. Default: tokenizer for OpenAI models, heuristic
    # with a safety margin for others.
    method: NotRequired[Literal["tokenizer", "heuristic", "provider"]]
    # Override the model's context window (e.g. for an unknown model).
    contextLimit: NotRequired[int]
    # Tokens reserved for the system prompt and tools. Default 2000
    # (COMPACTION_SYSTEM_RESERVE).
    systemReserve: NotRequired[int]
    # Tokens reserved for the reply. Default 4000 (COMPACTION_OUTPUT_RESERVE).
    outputReserve: NotRequired[int]
    # Tokens kept free for estimation error. Default 5000 (COMPACTION_SAFETY_BUFFER).
    safetyBuffer: NotRequired[int]
    # Fraction of the available window at which to compact. Default 0.8.
    thresholdPercent: NotRequired[float]


class EstimateResponsePerMessageItem(TypedDict):
    # Index in `messages`; -1 is a separate system prompt.
    index: int
    role: str
    tokens: int


# Present when the requested method was unavailable and the heuristic was used instead.
EstimateResponseFallback = TypedDict(
    "EstimateResponseFallback",
    {
        "from": str,
        "reason": str,
    },
)


class EstimateResponse(TypedDict):
    # The model the limits refer to (the request's, or DEFAULT_MODEL).
    model: str
    # False when the model is not in the registry and configurable defaults were used.
    modelKnown: bool
    # openai, anthropic, google, deepseek or unknown.
    provider: str
    # The detected (or given) message format.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # The method that produced totalTokens.
    method: Literal["tokenizer", "heuristic", "provider"]
    # Tokenizer encoding, when method is tokenizer.
    encoding: NotRequired[str]
    # Multiplier applied to heuristic counts for models whose tokenizer is not
    # o200k-like (1 = none).
    safetyMargin: float
    # Prompt tokens: messages, per-message overhead, tools and reply priming.
    totalTokens: int
    # Tokens of the tool definitions, included in totalTokens.
    toolsTokens: int
    # Tokens of each message, overhead included. With method provider these are
    # heuristic estimates. Left out with `?perMessage=false`.
    perMessage: NotRequired[List[EstimateResponsePerMessageItem]]
    # The model's context window.
    contextLimit: int
    # The model's maximum output tokens.
    maxOutputTokens: int
    # (contextLimit − systemReserve − outputReserve − safetyBuffer) × thresholdPercent.
    # 0 when the server's default reserves fill the model's window (see thresholdNote).
    threshold: int
    # Present when threshold is 0 because the model's window is smaller than the
    # server's default reserves (gpt-4's 8,192 < 11,000): the numbers, and what to give
    # (smaller reserves, or targetTokens to /compact). The count is exact all the same.
    thresholdNote: NotRequired[str]
    # totalTokens ≥ threshold (always true when threshold is 0).
    shouldCompact: bool
    # Present when the requested method was unavailable and the heuristic was used
    # instead.
    fallback: NotRequired[EstimateResponseFallback]


# An agent session log to convert.
class ImportRequest(TypedDict):
    # The log: the file's text as one string (JSON Lines or a JSON document, exactly as
    # the agent wrote it), or a JSON document (SWE-agent trajectory, Gemini CLI session)
    # as a value. Empty text, or text that is no log, is a 400 invalid_log. The whole
    # body is limited to BODY_LIMIT_BYTES.
    log: Union[str, List[Any], Dict[str, Any]]
    # Which agent wrote it: claude-code (Claude Code session JSONL), codex (Codex CLI
    # rollout JSONL), gemini-cli (Gemini CLI session JSON), pi (pi session JSONL),
    # swe-agent (SWE-agent and mini-swe-agent trajectories). Detected from the content
    # when omitted.
    source: NotRequired[Literal["claude-code", "codex", "gemini-cli", "pi", "swe-agent"]]
    # Format of the returned messages: OpenAI Chat Completions (default), Anthropic
    # Messages, Vercel AI SDK ModelMessage or OpenAI Responses items (a Codex rollout
    # keeps its own items).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # `all` (default): every message of the log. `current`: what the agent's model saw
    # last: the leading system messages, then everything from the latest compaction's
    # summary on.
    scope: NotRequired[Literal["all", "current"]]


class ImportResponseCompactionsItem(TypedDict):
    # Index in `messages` where the compaction took effect: the agent's summary message
    # is there when `summary` is not null; messages before it are what the agent
    # compacted. null: not in the returned messages (scope current, earlier
    # compactions).
    position: Union[int, None]
    # Line of the log that records the compaction; null in a JSON document.
    line: Union[int, None]
    # Where in a JSON document.
    path: NotRequired[str]
    # Claude Code's trigger, when recorded.
    trigger: NotRequired[Literal["auto", "manual"]]
    # Tokens in the context just before the compaction, when the log records them:
    # Claude Code compactMetadata.preTokens, Codex token_count, pi tokensBefore, Gemini
    # CLI record tokens; else null.
    preTokens: Union[int, None]
    # The summary the agent wrote, without its harness wrapper; null when the log does
    # not hold it.
    summary: Union[str, None]
    timestamp: NotRequired[str]


class ImportResponseIssuesItem(TypedDict):
    # 1-based line of a line-based log; null in a JSON document.
    line: Union[int, None]
    # Where in a JSON document, e.g. `messages[377]`.
    path: NotRequired[str]
    # `broken`: not JSON, or not what its type promises. `unknown`: valid JSON of a type
    # this importer does not know.
    kind: Literal["broken", "unknown"]
    message: str


class ImportResponseRepairsItem(TypedDict):
    line: Union[int, None]
    path: NotRequired[str]
    action: str


class ImportResponseStats(TypedDict):
    # Lines of a line-based log.
    lines: NotRequired[int]
    # Entries read (JSON lines, or elements of a JSON document).
    entries: int
    # Entries of known types that hold no conversation: metadata, UI events, token
    # counts, subagent sidechains.
    skipped: int
    # Messages returned.
    messages: int


# What the log says about the session.
class ImportResponseSession(TypedDict):
    # The agent's own session id.
    id: NotRequired[str]
    cwd: NotRequired[str]
    # The last model the log names.
    model: NotRequired[str]
    # The writer, when a source has several (swe-agent or mini-swe-agent).
    agent: NotRequired[str]
    agentVersion: NotRequired[str]
    startedAt: NotRequired[str]


class ImportResponse(TypedDict):
    # The agent that wrote the log.
    source: Literal["claude-code", "codex", "gemini-cli", "pi", "swe-agent"]
    # True when `source` was detected from the content, false when given.
    detected: bool
    # Format of `messages`.
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    scope: Literal["all", "current"]
    # The conversation in `format`, tool calls paired with their results. Ready for
    # /estimate, /compact or a provider.
    messages: List[Any]
    # Anthropic top-level system prompt (format anthropic, when the log has system
    # messages).
    system: NotRequired[Any]
    # Compactions found in the log: Claude Code's compact_boundary and continued-session
    # summary, Codex compacted items, Gemini CLI <state_snapshot>, pi compaction
    # entries.
    compactions: List[ImportResponseCompactionsItem]
    # Broken and unknown lines, skipped (never fatal), at most 200.
    issues: List[ImportResponseIssuesItem]
    # Issues beyond the 200 listed.
    issuesOmitted: int
    # Tool calls without a result answered with "[no result recorded]", results without
    # a call dropped (as POST /compact onBrokenInput repair).
    repairs: List[ImportResponseRepairsItem]
    stats: ImportResponseStats
    # What the log says about the session.
    session: ImportResponseSession


# An OpenAI Chat Completions request, passed on to UPSTREAM_OPENAI_URL/chat/completions
# (every other field unchanged; `stream` streams).
class ProxyChatCompletionsRequest(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # OpenAI Chat Completions messages: compacted past the threshold.
    messages: List[Any]


# An OpenAI Responses request, passed on to UPSTREAM_OPENAI_URL/responses.
# `instructions` are kept; with `previous_response_id` the provider holds the history
# and nothing is compacted.
class ProxyResponsesRequest(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # Responses input items: compacted past the threshold (a string input never is).
    input: Union[str, List[Any]]


# An Anthropic Messages request, passed on to UPSTREAM_ANTHROPIC_URL/v1/messages.
# `system` is kept (a summary may be folded into it).
class ProxyMessagesRequest(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    # Anthropic messages: compacted past the threshold.
    messages: List[Any]


# Anthropic's count_tokens request, answered by compactd's own counter (the heuristic
# for Anthropic models, with its margin).
class ProxyCountTokensRequest(TypedDict):
    # The provider's model id: its threshold decides whether the request is compacted.
    model: str
    messages: List[Any]


class ProxyCountTokensResponse(TypedDict):
    input_tokens: int


class SessionSummaryUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class SessionSummary(TypedDict):
    # The session.
    sessionId: str
    # Summary version (0 while none exists). Versions are kept; the highest is current.
    version: int
    # The summary document as stored, with each item's `<!-- … -->` machine comment
    # (times, importance, files). Send this back to PUT /summary to edit it.
    content: str
    # The same document without the machine comments: what to send to a model.
    text: str
    # Tokens of `content`; never more than `budget`.
    tokens: int
    # The session's summary budget, in tokens.
    budget: int
    # When this version was written (ISO 8601).
    updatedAt: Union[str, None]
    # Who wrote this version.
    source: Union[Literal["background", "manual"], None]
    # True when evicted messages are not folded in yet (an update is due), or when the
    # database was unreachable.
    stale: bool
    # Evicted messages not yet in the summary.
    evictedAwaitingSummary: int
    # The queued background update, if any.
    update: Union[SessionSummaryUpdate, None]
    # True when the database could not be read: this is the last summary this process
    # saw (or, with status 503, the placeholder "[Summary temporarily unavailable]").
    degraded: bool


class PutSessionSummaryResponseUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class PutSessionSummaryResponse(TypedDict):
    # The session.
    sessionId: str
    # Summary version (0 while none exists). Versions are kept; the highest is current.
    version: int
    # The summary document as stored, with each item's `<!-- … -->` machine comment
    # (times, importance, files). Send this back to PUT /summary to edit it.
    content: str
    # The same document without the machine comments: what to send to a model.
    text: str
    # Tokens of `content`; never more than `budget`.
    tokens: int
    # The session's summary budget, in tokens.
    budget: int
    # When this version was written (ISO 8601).
    updatedAt: Union[str, None]
    # Who wrote this version.
    source: Union[Literal["background", "manual"], None]
    # True when evicted messages are not folded in yet (an update is due), or when the
    # database was unreachable.
    stale: bool
    # Evicted messages not yet in the summary.
    evictedAwaitingSummary: int
    # The queued background update, if any.
    update: Union[PutSessionSummaryResponseUpdate, None]
    # True when the database could not be read: this is the last summary this process
    # saw (or, with status 503, the placeholder "[Summary temporarily unavailable]").
    degraded: bool
    # Continuation fields your text did not state (no "Current task:", "Completed:",
    # "Pending:", "Key decisions:" or "Relevant files:" line), so they were carried over
    # from the version you replaced and added to its `## Continuation` block. Empty when
    # you stated them all. To clear a field, state it as none, e.g. "Current task:
    # none".
    continuationCarriedOver: List[Literal["currentTask", "completedSteps", "pendingSteps", "keyDecisions", "relevantFiles"]]


# A summary written by hand. It becomes a new version, and the next background update
# builds on it.
class PutSummaryRequest(TypedDict):
    # The new summary document (markdown: "## Previously in This Session", "##
    # Yesterday", "## This Week", "## Continuation"). Items may keep their `<!-- … -->`
    # comments from GET; lines without one take the time of the newest dated item (the
    # update's time when none has one). Continuation fields it does not state are
    # carried over from the version it replaces (see continuationCarriedOver). Must fit
    # the session's summaryBudget.
    content: str
    # The version you read (compare-and-set): when another version was written since,
    # the request fails with 409 and writes nothing. Omitted: the current version at the
    # time of the write.
    baseVersion: NotRequired[int]


class SummaryRefresh(TypedDict):
    # The session.
    sessionId: str
    # new: an entry was queued; merged: the pending entry was raised to high priority.
    queued: Literal["new", "merged"]
    # Refreshes are queued at high priority.
    priority: Literal["high"]
    # Evicted messages the update will fold in.
    evictedAwaitingSummary: int


# The thinking policy: Anthropic thinking and redacted_thinking blocks, AI SDK reasoning
# parts and Responses reasoning items of earlier turns are dropped first, before any
# strategy. The turn in progress (the conversation ends with tool calls or results)
# keeps its reasoning, as Anthropic requires; pinned messages are not touched; a
# Responses reasoning item whose turn carries server item ids stays (the API refuses
# those items without it). The response reports the tokens freed (`thinking`).
class SessionSettingsRequestThinking(TypedDict):
    # Assistant turns (counted from the end) whose reasoning stays; `all` keeps every
    # one; 0 drops all but the turn in progress.
    keep: Union[int, Literal["all"]]


# When automatic compaction happens.
class SessionSettingsRequestTrigger(TypedDict):
    # `auto` (default): GET /context and the proxy compact past the threshold. `manual`:
    # only POST /compact (or the proxy's `x-compactd-compact: now`) compacts. `off`:
    # nothing compacts this session, POST /compact with its id included (a 409).
    mode: Literal["off", "manual", "auto"]
    # `auto` compacts past this many tokens (a number ≥ 1) or this share of the model's
    # window (a number < 1). Default: the budget (GET /context) or the model's threshold
    # (the proxy).
    threshold: NotRequired[float]
    # Never compact automatically while the last assistant message has tool calls
    # without results.
    notMidTurn: NotRequired[bool]


class SessionSettingsRequestSystemItem(TypedDict):
    type: Literal["text"]
    text: str


# Model that writes `llm` mode summaries. Keys and base URLs come only from server
# configuration.
class SessionSettingsRequestSummarizer(TypedDict):
    # Summarizer provider; it must be configured on the server (its API key set).
    provider: Literal["openai", "anthropic"]
    # One of the models the server allows for the provider. Default: the first one.
    model: NotRequired[str]


# A session's settings; omitted fields keep their value (or the default for a new
# session).
class SessionSettingsRequest(TypedDict):
    # Seqs (GET /sessions/:id/messages) of messages GET /context always sends verbatim,
    # with their tool pairs, even once folded into the summary. Checked on every
    # /context: what its budget cannot hold is a 422 `contract_unkept`. null removes the
    # pins.
    pin: NotRequired[Union[List[int], None]]
    # Strings GET /context and POST /compact (with this sessionId) must keep; a string
    # not in the conversation yet is listed in `contract.absent`, not an error. null
    # removes them.
    preserve: NotRequired[Union[List[str], None]]
    # What the session's compactions give room to (see POST /compact `focus`). null
    # removes it.
    focus: NotRequired[Union[str, None]]
    thinking: NotRequired[Union[SessionSettingsRequestThinking, None]]
    trigger: NotRequired[Union[SessionSettingsRequestTrigger, None]]
    # Format of the session's messages (openai, anthropic, ai-sdk). Set by the first
    # append when omitted; it cannot change once messages are stored.
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model the session talks to: sets token counting and the default /context budget.
    # Default: DEFAULT_MODEL.
    model: NotRequired[str]
    # The recent window keeps at most this many messages (system messages excepted).
    # Default 20.
    windowMessages: NotRequired[int]
    # ...and at most this many tokens. Default 16000.
    windowTokens: NotRequired[int]
    # Hard limit of the rolling summary, in tokens: enforced even when a summarizer
    # overshoots. Default 10000.
    summaryBudget: NotRequired[int]
    # Evicted exchanges that trigger a background summary update (seed 000's
    # BATCH_SIZE). Default 4.
    batchSize: NotRequired[int]
    # `rules`: offline summary (default). `llm`: the configured summarizer writes it
    # with seed 000's background-agent prompt, falling back to rules on any failure.
    mode: NotRequired[Literal["rules", "llm"]]
    # System prompt sent first by GET /context (a string, or Anthropic text blocks).
    # null removes it.
    system: NotRequired[Union[str, List[SessionSettingsRequestSystemItem], None]]
    summarizer: NotRequired[Union[SessionSettingsRequestSummarizer, None]]


# Summarizer of llm mode.
class SessionSettingsSummarizer(TypedDict):
    provider: str
    model: NotRequired[str]


# The thinking policy.
class SessionSettingsThinking(TypedDict):
    keep: Union[int, Literal["all"]]


# When automatic compaction happens.
class SessionSettingsTrigger(TypedDict):
    mode: Literal["off", "manual", "auto"]
    threshold: NotRequired[float]
    notMidTurn: NotRequired[bool]


# The session's settings.
class SessionSettings(TypedDict):
    # Format of the stored messages.
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Model of the session.
    model: NotRequired[str]
    # System prompt, when set.
    system: NotRequired[Any]
    # Window size in messages.
    windowMessages: int
    # Window size in tokens.
    windowTokens: int
    # Summary budget in tokens.
    summaryBudget: int
    # Evicted exchanges per background update.
    batchSize: int
    # Summary mode.
    mode: Literal["rules", "llm"]
    # Summarizer of llm mode.
    summarizer: NotRequired[SessionSettingsSummarizer]
    # Pinned message seqs.
    pin: NotRequired[List[int]]
    # Strings every compaction keeps.
    preserve: NotRequired[List[str]]
    # What the compactions give room to.
    focus: NotRequired[str]
    # The thinking policy.
    thinking: NotRequired[SessionSettingsThinking]
    # When automatic compaction happens.
    trigger: NotRequired[SessionSettingsTrigger]


class SessionUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]


class Session(TypedDict):
    # The session id.
    id: str
    # The session's settings.
    settings: SessionSettings
    # Messages appended so far.
    messageCount: int
    # Messages in the recent window (system messages excepted).
    windowMessages: int
    # Tokens of the recent window.
    windowTokens: int
    # System/developer messages, always kept.
    systemMessages: int
    # Messages that left the window and are not yet in the summary.
    evictedAwaitingSummary: int
    # Messages folded into the summary.
    summarizedMessages: int
    # The current summary version, if any.
    summary: Union[SessionSummary, None]
    # The queued background update, if any.
    update: Union[SessionUpdate, None]
    # ISO 8601.
    createdAt: str
    # ISO 8601: last settings change or append.
    updatedAt: str


class AppendMessagesRequestSystemItem(TypedDict):
    type: Literal["text"]
    text: str


# Messages to append to the session.
class AppendMessagesRequest(TypedDict):
    # The exchange(s) to append, oldest first, in the session's format. A `timestamp`
    # (or `createdAt`) on a message dates it for aging; otherwise the append time does.
    messages: List[Any]
    # Message format. Detected automatically when omitted; a plain user/assistant string
    # array is read as openai (identical in every format).
    format: NotRequired[Literal["openai", "anthropic", "ai-sdk", "responses"]]
    # Anthropic-style top-level system prompt (a string or text blocks); stored as the
    # session's system prompt.
    system: NotRequired[Union[str, List[AppendMessagesRequestSystemItem]]]


class AppendMessagesResponse(TypedDict):
    # The session.
    sessionId: str
    # Messages appended by this request.
    appended: int
    # Sequence number of the first appended message.
    firstSeq: Union[int, None]
    # Sequence number of the last appended message.
    lastSeq: Union[int, None]
    # Messages in the session.
    messageCount: int
    # Messages in the recent window now.
    windowMessages: int
    # Tokens of the recent window now.
    windowTokens: int
    # Messages this request pushed out of the window.
    evicted: int
    # Evicted messages not yet folded into the summary.
    evictedAwaitingSummary: int
    # The same, in exchanges: an update is queued once it reaches batchSize.
    evictedExchangesAwaitingSummary: int
    # True when this request queued a background summary update.
    updateQueued: bool
    # When messages were evicted: what of them the archive stored (searchable with GET
    # /sessions/{id}/search).
    archive: NotRequired[ArchiveReport]


# With the session's `pin` or `preserve`: what the contract checked (a 200 means all of
# it held).
class SessionContextContract(TypedDict):
    # Seqs of the pinned messages, each checked present (byte for byte in the session's
    # format).
    pinned: List[int]
    # Preserved strings, each checked present.
    preserved: List[str]
    # Preserved strings the session does not hold (yet): nothing to keep.
    absent: List[str]


class SessionContext(TypedDict):
    # The session.
    sessionId: str
    # Format of `messages` (and `system`).
    format: Literal["openai", "anthropic", "ai-sdk", "responses"]
    # Model the tokens were counted for.
    model: str
    # The budget the context fits.
    budget: int
    # Tokens of the returned context.
    tokens: int
    # True when the compaction engine had to trim it to the budget.
    compacted: bool
    # What trimmed it: none, or an offline strategy (mask, rules, truncate).
    strategy: str
    # The summary version included (0: none yet).
    summaryVersion: int
    # True when evicted messages were not yet in the summary: they are included verbatim
    # (or compacted) instead, so nothing is lost.
    stale: bool
    # Why the context was not compacted though it is over the budget: the session's
    # trigger (mode, threshold, notMidTurn).
    reason: NotRequired[str]
    # With the session's `pin` or `preserve`: what the contract checked (a 200 means all
    # of it held).
    contract: NotRequired[SessionContextContract]
    # Ready to send: system messages, the summary, messages awaiting summary, then the
    # recent window. Valid for the provider (tool calls keep their results).
    messages: List[Any]
    # Anthropic: the top-level system prompt (system messages and the summary).
    system: NotRequired[Any]


class SessionContinuation(TypedDict):
    # The session.
    sessionId: str
    # Summary version it was read from.
    version: int
    # When that version was written.
    updatedAt: Union[str, None]
    # True when evicted messages are not folded in yet.
    stale: bool
    # True when the database could not be read and this comes from the last summary this
    # process saw.
    degraded: bool
    # The task being worked on (the latest meaningful request).
    currentTask: str
    # Steps already done.
    completedSteps: List[str]
    # Steps remaining.
    pendingSteps: List[str]
    # Decisions made.
    keyDecisions: List[str]
    # Files being worked on, most recent first.
    relevantFiles: List[str]
    # The same as seed 003's `[Previous Session Context]` block, ready to inject.
    prompt: str


class CheckpointPage(TypedDict):
    # Checkpoints, newest (highest number) first.
    items: List[Checkpoint]
    # Pass as `cursor` for the next (older) page; null on the last page.
    nextCursor: Union[str, None]


class SessionStats(TypedDict):
    # The session.
    sessionId: str
    # Checkpoints stored (after folding).
    checkpoints: int
    # Sum of originalTokens − compressedTokens over the checkpoints.
    tokensSaved: int
    # Sum of summaryCostUsd.
    totalSummaryCostUsd: float
    # Token-weighted: sum(originalTokens) / sum(compressedTokens) (unchanged by
    # folding).
    averageCompressionRatio: float
    # Sum of originalTokens.
    totalOriginalTokens: int
    # Sum of compressedTokens.
    totalCompressedTokens: int
    # The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit
    # breaker").
    breaker: BreakerStatus


class BreakerReset(TypedDict):
    sessionId: str
    # The session's compaction circuit breaker (BREAKER_* settings; docs/api.md "Circuit
    # breaker").
    breaker: BreakerStatus


class SessionListItemsItemWindowLimit(TypedDict):
    messages: int
    tokens: int


class SessionListItemsItemUpdate(TypedDict):
    # pending: queued; running: a worker holds it; failed: gave up after MAX_RETRIES.
    status: Literal["pending", "running", "failed"]
    # Attempts so far.
    attempts: int
    # The last attempt's error, when it failed.
    lastError: Union[str, None]


class SessionListItemsItem(TypedDict):
    # The session id (or the sessionId given to POST /compact).
    id: str
    # `session`: a session with a rolling summary; `series`: only compactions stored
    # with POST /compact and a sessionId; `both`.
    kind: Literal["session", "series", "both"]
    # ISO 8601: the latest append, settings change, summary version or checkpoint.
    lastActivity: str
    # Messages appended (0 for a series).
    messageCount: int
    # Messages in the recent window now (system messages excepted).
    windowMessages: int
    # Tokens of the recent window now.
    windowTokens: int
    # The session's window size (null for a series).
    windowLimit: Union[SessionListItemsItemWindowLimit, None]
    # Current rolling-summary version (0: none).
    summaryVersion: int
    # Tokens of the current summary.
    summaryTokens: int
    # Checkpoints stored (after folding).
    checkpoints: int
    # Sum of originalTokens − compressedTokens over the checkpoints.
    tokensSaved: int
    # The queued background summary update, if any.
    update: Union[SessionListItemsItemUpdate, None]
    # Failed attempts of the queued update (0 when none failed).
    updateFailures: int


class SessionList(TypedDict):
    items: List[SessionListItemsItem]
    # Pass as `cursor` (with the same q, sort and order) for the next page; null on the
    # last page.
    nextCursor: Union[str, None]
    # Rows matching `q`, on every page.
    total: int


class SummaryVersionPageItemsItem(TypedDict):
    # The version (1, 2, ...).
    version: int
    # Tokens of the version.
    tokens: int
    # ISO 8601: when it was written.
    updatedAt: str
    # As GET /summary reports it.
    source: Literal["background", "manual"]
    # `background`: an update that folded evicted messages in; `aging`: the daily
    # re-aging (nothing new folded); `manual`: PUT /summary.
    writtenBy: Literal["background", "aging", "manual"]
    # Mode of the background update (rules, llm, llm-fallback); null for a manual
    # version or when the update's record was purged (RUN_HISTORY_MS).
    mode: Union[str, None]
    # Messages the update folded in; null as for mode.
    foldedMessages: Union[int, None]


class SummaryVersionPage(TypedDict):
    items: List[SummaryVersionPageItemsItem]
    # Pass as `cursor` for the next (older) page; null on the last page.
    nextCursor: Union[str, None]


class SummaryVersion(TypedDict):
    # The session.
    sessionId: str
    # The version (1, 2, ...).
    version: int
    # Tokens of the version.
    tokens: int
    # ISO 8601: when it was written.
    updatedAt: str
    # As GET /summary reports it.
    source: Literal["background", "manual"]
    # `background`: an update that folded evicted messages in; `aging`: the daily
    # re-aging (nothing new folded); `manual`: PUT /summary.
    writtenBy: Literal["background", "aging", "manual"]
    # Mode of the background update (rules, llm, llm-fallback); null for a manual
    # version or when the update's record was purged (RUN_HISTORY_MS).
    mode: Union[str, None]
    # Messages the update folded in; null as for mode.
    foldedMessages: Union[int, None]
    # The document as stored, with the items' `<!-- … -->` comments.
    content: str
    # The same without the comments.
    text: str


class SessionMessagePageItemsItem(TypedDict):
    # Position in the session (1, 2, ...).
    seq: int
    # The message's role.
    role: str
    # Its tokens, counted for the session's model when appended.
    tokens: int
    # Where it is now.
    status: Literal["window", "evicted", "summarized"]
    # ISO 8601: its own timestamp, else when it was appended.
    messageAt: str
    # The message as appended.
    message: Any


class SessionMessagePage(TypedDict):
    # The session.
    sessionId: str
    # The session's message format.
    format: Union[Literal["openai", "anthropic", "ai-sdk", "responses"], None]
    items: List[SessionMessagePageItemsItem]
    # Pass as `cursor` for the next (newer) page; null on the last page.
    nextCursor: Union[str, None]


class HealthzResponse(TypedDict):
    status: Literal["ok"]


class ReadyzResponse(TypedDict):
    status: Literal["ready"]
    database: str


class ReadyzResponse503(TypedDict):
    status: Literal["unavailable"]
    error: Literal["not_ready"]
    message: str
    database: str
    requestId: str


# Every route of openapi.yaml, keyed "METHOD /path". Error responses (4xx/5xx) are all `Error`.
OPERATIONS: Dict[str, Operation] = {
    "GET /metrics": Operation(
        method="GET",
        path="/metrics",
        summary="Prometheus metrics: summary updates, queue, compactions, HTTP latency",
        path_params={},
        query_params={},
        header_params={},
        request=None,
        responses={200: "None"},
    ),
    "GET /healthz": Operation(
        method="GET",
        path="/healthz",
        summary="Liveness: the process is up",
        path_params={},
        query_params={},
        header_params={},
        request=None,
        responses={200: "HealthzResponse"},
    ),
    "GET /readyz": Operation(
        method="GET",
        path="/readyz",
        summary="Readiness: the database answers and every migration is applied",
        path_params={},
        query_params={},
        header_params={},
        request=None,
        responses={200: "ReadyzResponse", 503: "ReadyzResponse503"},
    ),
    "POST /estimate": Operation(
        method="POST",
        path="/estimate",
        summary="Count a conversation's tokens and check it against the compaction threshold",
        path_params={},
        query_params={"perMessage": False},
        header_params={},
        request="EstimateRequestInput",
        responses={200: "EstimateResponse"},
    ),
    "GET /strategies": Operation(
        method="GET",
        path="/strategies",
        summary="The compaction strategies this server knows, its default pipeline, and the pipelines a menu offers",
        path_params={},
        query_params={},
        header_params={},
        request=None,
        responses={200: "StrategiesResponse"},
    ),
    "POST /compact": Operation(
        method="POST",
        path="/compact",
        summary="Compact a conversation to a token budget, keeping tool calls paired and recent messages verbatim",
        path_params={},
        query_params={},
        header_params={},
        request="CompactRequestInput",
        responses={200: "CompactResponse"},
    ),
    "POST /import": Operation(
        method="POST",
        path="/import",
        summary="Convert an agent session log (Claude Code, Codex CLI, Gemini CLI, pi, SWE-agent) into messages, with the compactions it records",
        path_params={},
        query_params={},
        header_params={},
        request="ImportRequestInput",
        responses={200: "ImportResponse"},
    ),
    "GET /sessions/{id}/checkpoints": Operation(
        method="GET",
        path="/sessions/{id}/checkpoints",
        summary="A session's checkpoints, newest first, paginated",
        path_params={"id": True},
        query_params={"cursor": False, "limit": False},
        header_params={},
        request=None,
        responses={200: "CheckpointPage"},
    ),
    "GET /sessions/{id}/checkpoints/{num}": Operation(
        method="GET",
        path="/sessions/{id}/checkpoints/{num}",
        summary="One checkpoint of a session",
        path_params={"id": True, "num": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "Checkpoint"},
    ),
    "GET /sessions/{id}/stats": Operation(
        method="GET",
        path="/sessions/{id}/stats",
        summary="A session's compaction totals: tokens saved, summary cost, checkpoints",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "SessionStats"},
    ),
    "POST /sessions/{id}/breaker/reset": Operation(
        method="POST",
        path="/sessions/{id}/breaker/reset",
        summary="Close a session's compaction circuit breaker and clear its history",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "BreakerReset"},
    ),
    "GET /sessions/{id}/search": Operation(
        method="GET",
        path="/sessions/{id}/search",
        summary="Search a session's archive: the messages its compactions masked, summarised or dropped",
        path_params={"id": True},
        query_params={"q": True, "limit": False},
        header_params={},
        request=None,
        responses={200: "ArchiveSearch"},
    ),
    "GET /sessions/{id}/archive/{ref}": Operation(
        method="GET",
        path="/sessions/{id}/archive/{ref}",
        summary="Read one archived message back, whole or by lines",
        path_params={"id": True, "ref": True},
        query_params={"format": False, "lines": False, "grep": False, "context": False},
        header_params={},
        request=None,
        responses={200: "ArchivedMessage"},
    ),
    "GET /sessions/{id}": Operation(
        method="GET",
        path="/sessions/{id}",
        summary="A session's settings and counters",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "Session"},
    ),
    "PUT /sessions/{id}": Operation(
        method="PUT",
        path="/sessions/{id}",
        summary="Create a session or update its settings (window, summary budget, batch size, mode)",
        path_params={"id": True},
        query_params={},
        header_params={},
        request="SessionSettingsRequestInput",
        responses={200: "Session", 201: "Session"},
    ),
    "DELETE /sessions/{id}": Operation(
        method="DELETE",
        path="/sessions/{id}",
        summary="Delete a session: messages, summaries, checkpoints and queued work, in one transaction",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={204: "None"},
    ),
    "GET /sessions/{id}/messages": Operation(
        method="GET",
        path="/sessions/{id}/messages",
        summary="A session's stored messages, oldest first, paged (status=window: the recent window)",
        path_params={"id": True},
        query_params={"status": False, "cursor": False, "limit": False},
        header_params={},
        request=None,
        responses={200: "SessionMessagePage"},
    ),
    "POST /sessions/{id}/messages": Operation(
        method="POST",
        path="/sessions/{id}/messages",
        summary="Append messages; returns the window state (idempotent with an Idempotency-Key)",
        path_params={"id": True},
        query_params={},
        header_params={"idempotency-key": False},
        request="AppendMessagesRequestInput",
        responses={200: "AppendMessagesResponse"},
    ),
    "GET /sessions/{id}/summary": Operation(
        method="GET",
        path="/sessions/{id}/summary",
        summary="The current rolling summary (never waits on a running update)",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "SessionSummary", 503: "SessionSummary"},
    ),
    "PUT /sessions/{id}/summary": Operation(
        method="PUT",
        path="/sessions/{id}/summary",
        summary="Replace the summary by hand (a new version; compare-and-set on baseVersion)",
        path_params={"id": True},
        query_params={},
        header_params={},
        request="PutSummaryRequestInput",
        responses={200: "PutSessionSummaryResponse"},
    ),
    "POST /sessions/{id}/summary/refresh": Operation(
        method="POST",
        path="/sessions/{id}/summary/refresh",
        summary="Queue a summary update now, at high priority",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={202: "SummaryRefresh"},
    ),
    "GET /sessions/{id}/context": Operation(
        method="GET",
        path="/sessions/{id}/context",
        summary="What to send to the model now: system, summary, recent window, within a budget",
        path_params={"id": True},
        query_params={"budget": False, "format": False, "model": False},
        header_params={},
        request=None,
        responses={200: "SessionContext"},
    ),
    "GET /sessions/{id}/continuation": Operation(
        method="GET",
        path="/sessions/{id}/continuation",
        summary="Seed 003's continuation context: current task, steps, decisions, files, and a prompt block",
        path_params={"id": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "SessionContinuation"},
    ),
    "GET /sessions": Operation(
        method="GET",
        path="/sessions",
        summary="The tenant's sessions and compaction series, searchable, sorted and paged",
        path_params={},
        query_params={"q": False, "sort": False, "order": False, "cursor": False, "limit": False},
        header_params={},
        request=None,
        responses={200: "SessionList"},
    ),
    "GET /sessions/{id}/summary/versions": Operation(
        method="GET",
        path="/sessions/{id}/summary/versions",
        summary="A session's summary versions, newest first, paged (without their text)",
        path_params={"id": True},
        query_params={"cursor": False, "limit": False},
        header_params={},
        request=None,
        responses={200: "SummaryVersionPage"},
    ),
    "GET /sessions/{id}/summary/versions/{version}": Operation(
        method="GET",
        path="/sessions/{id}/summary/versions/{version}",
        summary="One summary version, with its text",
        path_params={"id": True, "version": True},
        query_params={},
        header_params={},
        request=None,
        responses={200: "SummaryVersion"},
    ),
    "GET /formats": Operation(
        method="GET",
        path="/formats",
        summary="The message formats this server reads and writes",
        path_params={},
        query_params={},
        header_params={},
        request=None,
        responses={200: "FormatsResponse"},
    ),
    "POST /display": Operation(
        method="POST",
        path="/display",
        summary="Messages of any format in one display form",
        path_params={},
        query_params={},
        header_params={},
        request="DisplayRequestInput",
        responses={200: "DisplayResponse"},
    ),
}

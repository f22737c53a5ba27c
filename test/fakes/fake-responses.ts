/**
 * The OpenAI Responses API (`POST /v1/responses`) for the fake LLM provider
 * (fake-llm-provider.ts): request reading (prompt pieces, last message,
 * validation) and the reply, as a JSON `Response` object or as the list of
 * SSE events a streamed call emits. The server, auth, behaviours and the
 * content itself (FakeTurn text / fake summary, max_output_tokens cut) stay in
 * fake-llm-provider.ts; this file only speaks the wire shape.
 *
 * Request:  { model, input: string | item[], instructions?, tools?, max_output_tokens?, stream? }
 *   items:  { role, content: string | [{ type: 'input_text' | 'output_text', text }] } (type 'message' optional)
 *           { type: 'function_call', call_id, name, arguments }
 *           { type: 'function_call_output', call_id, output }
 *           { type: 'reasoning', summary: [{ text }], content?: [{ text }] }
 *
 * Streamed events (each `event: <type>` + `data: <json>` with `type` and `sequence_number`):
 *   response.created, response.in_progress,
 *   per message item:  output_item.added, content_part.added, output_text.delta*,
 *                      output_text.done, content_part.done, output_item.done
 *   per function call: output_item.added, function_call_arguments.delta*,
 *                      function_call_arguments.done, output_item.done
 *   response.completed (or response.incomplete when max_output_tokens cut the text).
 *
 * Only type imports from fake-llm-provider.ts, so there is no runtime import cycle.
 */
import type { FakeToolCall, PromptPiece } from './fake-llm-provider.ts';

// ---------------------------------------------------------------------------
// Request side
// ---------------------------------------------------------------------------

/** Texts of a Responses content value: a string, or parts with `text` (input_text/output_text) or `refusal`. */
function partsText(content: unknown, out: string[]): void {
  if (typeof content === 'string') {
    out.push(content);
    return;
  }
  if (!Array.isArray(content)) return;
  for (const part of content) {
    if (typeof part === 'string') out.push(part);
    else if (part && typeof part === 'object') {
      const p = part as Record<string, unknown>;
      if (typeof p.text === 'string') out.push(p.text);
      if (typeof p.refusal === 'string') out.push(p.refusal);
    }
  }
}

/** One input item's role and texts (undefined for items that carry no text the fake counts). */
function itemPiece(item: unknown): { role: string; texts: string[] } | undefined {
  if (typeof item === 'string') return { role: 'user', texts: [item] };
  if (!item || typeof item !== 'object') return undefined;
  const it = item as Record<string, unknown>;
  const texts: string[] = [];
  switch (it.type) {
    case 'function_call':
      if (typeof it.arguments === 'string') texts.push(it.arguments);
      return { role: 'assistant', texts };
    case 'function_call_output':
      partsText(it.output, texts);
      return { role: 'tool', texts };
    case 'reasoning':
      partsText(it.summary, texts);
      partsText(it.content, texts);
      return { role: 'assistant', texts };
    case undefined:
    case 'message':
      partsText(it.content, texts);
      return { role: typeof it.role === 'string' ? it.role : 'user', texts };
    default:
      return undefined;
  }
}

/**
 * The prompt pieces of a Responses body's `instructions` (role 'system') and
 * `input`, in order. Tool definitions are left to `extractPromptPieces()`.
 */
export function responsesInputPieces(body: Record<string, unknown>): PromptPiece[] {
  const pieces: PromptPiece[] = [];
  const add = (p: { role: string; texts: string[] } | undefined): void => {
    for (const text of p?.texts ?? []) pieces.push({ role: p!.role, text });
  };
  if (typeof body.instructions === 'string') add({ role: 'system', texts: [body.instructions] });
  else if (Array.isArray(body.instructions)) body.instructions.forEach((i) => add(itemPiece(i)));
  if (typeof body.input === 'string') add({ role: 'user', texts: [body.input] });
  else if (Array.isArray(body.input)) body.input.forEach((i) => add(itemPiece(i)));
  return pieces;
}

/**
 * `FakeTurn.lastMessage` for a Responses body: the trailing `function_call_output`
 * items' outputs (the tool results just sent) joined by newlines, else the last item's text.
 */
export function responsesLastMessage(body: Record<string, unknown>): string {
  const input = body.input;
  if (typeof input === 'string') return input;
  if (!Array.isArray(input) || input.length === 0) return '';
  const outputs: string[] = [];
  for (let i = input.length - 1; i >= 0 && (input[i] as { type?: unknown })?.type === 'function_call_output'; i--) {
    const texts: string[] = [];
    partsText((input[i] as { output?: unknown }).output, texts);
    outputs.unshift(texts.join('\n'));
  }
  if (outputs.length > 0) return outputs.join('\n');
  return itemPiece(input[input.length - 1])?.texts.join('\n') ?? '';
}

/** The 400 a Responses request gets for a missing/invalid field (OpenAI's messages and codes). */
export function validateResponsesBody(body: Record<string, any>): { message: string; param: string; code: string } | undefined {
  if (body.model === undefined || body.model === null || body.model === '') {
    return { message: "Missing required parameter: 'model'.", param: 'model', code: 'missing_required_parameter' };
  }
  if (typeof body.model !== 'string') {
    return { message: `Invalid type for 'model': expected a string, but got ${typeof body.model} instead.`, param: 'model', code: 'invalid_type' };
  }
  if (body.input === undefined || body.input === null) {
    return { message: "Missing required parameter: 'input'.", param: 'input', code: 'missing_required_parameter' };
  }
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) {
    return {
      message: `Invalid type for 'input': expected one of a string or array of input items, but got ${typeof body.input} instead.`,
      param: 'input',
      code: 'invalid_type',
    };
  }
  if (Array.isArray(body.input)) {
    const bad = body.input.findIndex((i: unknown) => !i || typeof i !== 'object' || Array.isArray(i));
    if (bad >= 0) return { message: `Invalid type for 'input[${bad}]': expected an input item object.`, param: `input[${bad}]`, code: 'invalid_type' };
  }
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && (!Number.isInteger(max) || max < 16)) {
    return {
      message: `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got ${JSON.stringify(max)} instead.`,
      param: 'max_output_tokens',
      code: 'integer_below_min_value',
    };
  }
  return undefined;
}

/** The real Responses API's context-overflow error text (code 'context_length_exceeded', param 'input'). */
export const RESPONSES_CONTEXT_MESSAGE = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

// ---------------------------------------------------------------------------
// Reply side
// ---------------------------------------------------------------------------

export interface ResponsesReplyInput {
  /** The fake's request number (for ids). */
  n: number;
  body: Record<string, any>;
  /** The text answer; '' with tool calls means no message item (without tool calls, a message with '' text). */
  content: string;
  toolCalls: FakeToolCall[];
  /** max_output_tokens cut the text: status 'incomplete', incomplete_details.reason 'max_output_tokens'. */
  truncated: boolean;
  inputTokens: number;
  outputTokens: number;
  /** Characters per `response.output_text.delta` / `function_call_arguments.delta`. */
  chunkChars: number;
}

export interface ResponsesReply {
  /** The non-streamed JSON body. */
  response: Record<string, unknown>;
  /** The streamed events, in order, each with `type` and `sequence_number`. */
  events: Array<{ type: string; sequence_number: number } & Record<string, unknown>>;
}

function* chunksOf(text: string, size: number): Generator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** The Response object and its stream events for one answer. */
export function buildResponsesReply(r: ResponsesReplyInput): ResponsesReply {
  const { n, body, content, toolCalls, truncated, inputTokens, outputTokens, chunkChars } = r;
  const createdAt = Math.floor(Date.now() / 1000);
  const messageItem = {
    type: 'message' as const,
    id: `msg_fake_${n}`,
    status: truncated ? 'incomplete' : 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text: content, annotations: [] as unknown[] }],
  };
  const callItems = toolCalls.map((c, i) => ({
    type: 'function_call' as const,
    id: `fc_fake_${n}_${i}`,
    call_id: c.id ?? `call_${n}_${i}`,
    name: c.name,
    arguments: JSON.stringify(c.input),
    status: 'completed',
  }));
  const output: Array<typeof messageItem | (typeof callItems)[number]> = [
    ...(content === '' && callItems.length > 0 ? [] : [messageItem]),
    ...callItems,
  ];
  const status = truncated ? 'incomplete' : 'completed';
  const response: Record<string, unknown> = {
    id: `resp_fake_${n}`,
    object: 'response',
    created_at: createdAt,
    status,
    background: false,
    completed_at: truncated ? null : createdAt,
    error: null,
    incomplete_details: truncated ? { reason: 'max_output_tokens' } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: String(body.model),
    output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: null, summary: null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: 'default',
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: body.text ?? { format: { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: {
      input_tokens: inputTokens,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: outputTokens,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + outputTokens,
    },
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };

  const events: ResponsesReply['events'] = [];
  const emit = (type: string, data: Record<string, unknown>): void => {
    events.push({ type, sequence_number: events.length, ...data });
  };
  const pending = { ...response, status: 'in_progress', completed_at: null, incomplete_details: null, output: [], usage: null };
  emit('response.created', { response: pending });
  emit('response.in_progress', { response: pending });
  output.forEach((item, output_index) => {
    if (item.type === 'message') {
      const item_id = item.id;
      const part = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      emit('response.content_part.added', { item_id, output_index, content_index: 0, part: part('') });
      for (const delta of chunksOf(content, chunkChars)) {
        emit('response.output_text.delta', { item_id, output_index, content_index: 0, delta, logprobs: [] });
      }
      emit('response.output_text.done', { item_id, output_index, content_index: 0, text: content, logprobs: [] });
      emit('response.content_part.done', { item_id, output_index, content_index: 0, part: part(content) });
    } else {
      const item_id = item.id;
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      for (const delta of chunksOf(item.arguments, chunkChars)) {
        emit('response.function_call_arguments.delta', { item_id, output_index, delta });
      }
      emit('response.function_call_arguments.done', { item_id, output_index, name: item.name, arguments: item.arguments });
    }
    emit('response.output_item.done', { output_index, item });
  });
  emit(truncated ? 'response.incomplete' : 'response.completed', { response });
  return { response, events };
}

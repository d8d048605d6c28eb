// An assistant message as a Chat Completions stream builds it, chunk by chunk. The message
// keeps its parts in the order they arrived — reasoning, text, tool calls, the calls the
// server ran through MCP (crux's `mcp_call` delta) — so a tool-loop answer reads as it
// happened: reasoning, a call and its result, more text.
//
// Part shapes:
//   {type: 'reasoning', text, chunks}
//   {type: 'text', text}
//   {type: 'tool', id, name, arguments, index, round, ran: false}       (the client's to answer)
//   {type: 'tool', id, name, arguments, server, output, isError, ran: true}  (run by the server)

export function newAssistantMessage() {
  return {
    role: 'assistant',
    parts: [],
    round: 0,
    chunks: 0,
    finish: null,
    usage: null,
    error: null,
    state: 'streaming',
    timing: {},
  };
}

function appendText(message, type, text) {
  if (!text) return;
  const last = message.parts.at(-1);
  if (last && last.type === type) {
    last.text += text;
    if (type === 'reasoning') last.chunks++;
    return;
  }
  message.parts.push(type === 'reasoning' ? { type, text, chunks: 1 } : { type, text });
}

function applyToolDelta(message, delta) {
  const index = delta.index ?? 0;
  let part = message.parts.find((p) => p.type === 'tool' && !p.ran && p.round === message.round && p.index === index);
  if (!part) {
    part = { type: 'tool', id: '', name: '', arguments: '', index, round: message.round, ran: false };
    message.parts.push(part);
  }
  if (delta.id) part.id = delta.id;
  const fn = delta.function ?? {};
  if (fn.name) part.name += fn.name;
  if (typeof fn.arguments === 'string') part.arguments += fn.arguments;
}

function applyMcpCall(message, call) {
  message.parts.push({
    type: 'tool',
    id: call.id ?? '',
    name: call.name ?? '',
    server: call.server ?? '',
    arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
    output: call.output ?? '',
    isError: Boolean(call.is_error),
    ran: true,
  });
  message.round++;
}

// Applies one parsed chunk (the JSON of one `data:` event). Returns true when the chunk
// carried output the page shows.
export function applyChunk(message, chunk) {
  if (chunk.error) {
    message.error = chunk.error.message ?? JSON.stringify(chunk.error);
    return true;
  }
  if (chunk.usage) message.usage = chunk.usage;
  const choice = chunk.choices?.[0];
  if (!choice) return false;
  const delta = choice.delta ?? {};
  let shown = false;
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (reasoning) {
    appendText(message, 'reasoning', reasoning);
    shown = true;
  }
  if (delta.content) {
    appendText(message, 'text', delta.content);
    shown = true;
  }
  for (const call of delta.tool_calls ?? []) {
    applyToolDelta(message, call);
    shown = true;
  }
  if (delta.mcp_call) {
    applyMcpCall(message, delta.mcp_call);
    shown = true;
  }
  if (choice.finish_reason) message.finish = choice.finish_reason;
  if (shown) message.chunks++;
  return shown;
}

// The text of the answer (what JSON mode parses): the text parts, joined.
export function answerText(message) {
  return message.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
}

export function reasoningText(message) {
  return message.parts.filter((p) => p.type === 'reasoning').map((p) => p.text).join('');
}

// Reasoning tokens: the server's count once usage arrives, else the chunks seen (each chunk
// of a crux stream carries what one step decoded, so the two agree on crux's engines).
export function reasoningTokens(message, part = null) {
  const reported = message.usage?.completion_tokens_details?.reasoning_tokens;
  const parts = message.parts.filter((p) => p.type === 'reasoning');
  if (reported && (part === null || parts.length === 1)) return reported;
  if (part) return part.chunks;
  return parts.reduce((n, p) => n + p.chunks, 0);
}

// The client's tool calls that still wait for a result.
export function pendingToolCalls(message) {
  return message.parts.filter((p) => p.type === 'tool' && !p.ran && p.result === undefined);
}

// The Chat Completions request for a conversation: its messages, then its settings.

export const DEFAULT_SETTINGS = Object.freeze({
  model: '',
  system: '',
  temperature: '',
  maxTokens: '',
  thinking: true,
  thinkingBudget: '',
  mcpTools: false,
  clientTools: false,
  toolsJson: '',
  toolChoice: 'auto',
  parallelTools: true,
  jsonMode: false,
  schema: '',
});

// The messages of a conversation in Chat Completions form. An assistant turn carries its
// text, its reasoning (templates that keep reasoning read it) and the client's tool calls,
// each followed by the result the user gave; calls the server ran are not repeated.
export function toMessages(conversation, settings) {
  const out = [];
  if (settings.system?.trim()) out.push({ role: 'system', content: settings.system });
  for (const m of conversation.messages) {
    if (m.role === 'user') {
      out.push({ role: 'user', content: m.text });
      continue;
    }
    if (m.role !== 'assistant' || m.state === 'streaming') continue;
    const text = m.parts.filter((p) => p.type === 'text').map((p) => p.text).join('');
    const reasoning = m.parts.filter((p) => p.type === 'reasoning').map((p) => p.text).join('');
    const calls = m.parts.filter((p) => p.type === 'tool' && !p.ran);
    if (!text && !reasoning && calls.length === 0) continue;
    const message = { role: 'assistant', content: text };
    if (reasoning) message.reasoning_content = reasoning;
    if (calls.length > 0) {
      message.tool_calls = calls.map((c) => ({
        id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments },
      }));
    }
    out.push(message);
    for (const c of calls) {
      if (c.result !== undefined) out.push({ role: 'tool', tool_call_id: c.id, content: c.result });
    }
  }
  return out;
}

function numberOrNull(text, what, { integer = false, min = -Infinity } = {}) {
  if (text === '' || text === null || text === undefined) return null;
  const n = Number(text);
  if (!Number.isFinite(n) || (integer && !Number.isInteger(n)) || n < min) {
    throw new Error(`${what} must be ${integer ? 'a whole number' : 'a number'}${min > -Infinity ? ` of at least ${min}` : ''}`);
  }
  return n;
}

function parseJsonSetting(text, what) {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new Error(`${what} is not JSON: ${e.message}`, { cause: e });
  }
}

// The function tools the user declared: a JSON array of tools, in Chat Completions form or
// as bare functions ({name, description, parameters}).
export function parseTools(text) {
  const tools = parseJsonSetting(text, 'Tools');
  if (!Array.isArray(tools)) throw new Error('Tools must be a JSON array');
  return tools.map((t, i) => {
    const fn = t?.type === 'function' ? t.function : t;
    if (!fn || typeof fn.name !== 'string' || fn.name === '') throw new Error(`Tool ${i + 1} has no name`);
    return { type: 'function', function: fn };
  });
}

// response_format for JSON mode: a schema when one is given, else any JSON object.
export function responseFormat(schemaText) {
  if (!schemaText?.trim()) return { type: 'json_object' };
  const schema = parseJsonSetting(schemaText, 'The schema');
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
    throw new Error('The schema must be a JSON object');
  }
  return { type: 'json_schema', json_schema: { name: 'answer', schema, strict: true } };
}

// The request body. Throws an Error naming the setting that is wrong.
export function buildRequest(conversation, settings) {
  const body = {
    model: settings.model,
    messages: toMessages(conversation, settings),
    stream: true,
    stream_options: { include_usage: true },
  };
  const temperature = numberOrNull(settings.temperature, 'Temperature', { min: 0 });
  if (temperature !== null) body.temperature = temperature;
  const maxTokens = numberOrNull(settings.maxTokens, 'Max tokens', { integer: true, min: 1 });
  if (maxTokens !== null) body.max_tokens = maxTokens;
  body.chat_template_kwargs = { enable_thinking: Boolean(settings.thinking) };
  const budget = numberOrNull(settings.thinkingBudget, 'Thinking budget', { integer: true, min: 0 });
  if (settings.thinking && budget !== null) body.thinking_token_budget = budget;
  if (settings.clientTools && settings.toolsJson?.trim()) {
    body.tools = parseTools(settings.toolsJson);
    if (settings.toolChoice && settings.toolChoice !== 'auto') body.tool_choice = settings.toolChoice;
    if (settings.parallelTools === false) body.parallel_tool_calls = false;
  }
  if (settings.mcpTools) body.mcp_tools = true;
  if (settings.jsonMode) body.response_format = responseFormat(settings.schema);
  return body;
}

// A title for a conversation: its first line of user text, shortened.
export function titleFor(text) {
  const line = text.trim().split('\n')[0].replace(/\s+/g, ' ');
  return line.length > 48 ? `${line.slice(0, 47)}…` : line || 'New chat';
}

// Whether a schema editor's text is usable: null when it is, else what is wrong.
export function schemaProblem(schemaText) {
  if (!schemaText?.trim()) return null;
  try {
    const schema = JSON.parse(schemaText);
    if (schema === null || Array.isArray(schema) || (typeof schema !== 'object' && typeof schema !== 'boolean')) {
      return 'a schema is a JSON object';
    }
    return null;
  } catch (e) {
    return `not JSON: ${e.message}`;
  }
}

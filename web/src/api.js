// The server's own API, from the page: the same origin, the user's API key when one is set.
import { SseReader } from './sse.js';

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function headers(apiKey, json = false) {
  const h = {};
  if (apiKey) h.Authorization = `Bearer ${apiKey}`;
  if (json) h['Content-Type'] = 'application/json';
  return h;
}

async function errorOf(res) {
  const text = await res.text();
  try {
    const body = JSON.parse(text);
    return new ApiError(res.status, body.error?.message ?? body.message ?? text);
  } catch {
    return new ApiError(res.status, text || res.statusText);
  }
}

export async function listModels(apiKey) {
  const res = await fetch('/v1/models', { headers: headers(apiKey) });
  if (!res.ok) throw await errorOf(res);
  return (await res.json()).data.map((m) => m.id);
}

// The MCP tools the server offers (an empty list when it has none or cannot be asked).
export async function listMcpTools(apiKey) {
  const res = await fetch('/v1/mcp/tools', { headers: headers(apiKey) });
  if (!res.ok) return [];
  return (await res.json()).tools ?? [];
}

// Streams a Chat Completions request: onChunk(json) for each chunk; resolves with the
// response's x-crux-constraint header when the stream ends. `signal` aborts it: the
// connection closes and the server cancels the generation.
export async function streamChat(body, { apiKey, signal, onChunk }) {
  const res = await fetch('/v1/chat/completions', {
    method: 'POST', headers: headers(apiKey, true), body: JSON.stringify(body), signal,
  });
  if (!res.ok) throw await errorOf(res);
  const constraint = res.headers.get('x-crux-constraint') ?? '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const sse = new SseReader();
  for (;;) {
    const { done, value } = await reader.read();
    const text = done ? decoder.decode() : decoder.decode(value, { stream: true });
    for (const event of sse.feed(text)) {
      if (event.data === '[DONE]') continue;
      let chunk;
      try {
        chunk = JSON.parse(event.data);
      } catch {
        throw new ApiError(0, `the server sent an event that is not JSON: ${event.data.slice(0, 200)}`);
      }
      onChunk(chunk);
    }
    if (done) return constraint;
  }
}

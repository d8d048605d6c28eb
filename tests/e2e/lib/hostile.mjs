// Shared by the hostile-client suites: a scripts directory with outputs sized to overrun socket
// buffers, the request body of each API, and how each API's stream ended.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { scriptsDir } from './server.mjs';
import { parseResponses, sseEvents } from './raw.mjs';

// A temporary scripts directory: the shared scripts plus
//   big     4 MiB of words (a stream of ~1M tokens, ~150 MB of SSE),
//   ctl     1.5 MiB of control characters (each escaped as \u00XX: a ~9 MB JSON body),
//   short   ~20 tokens (1 s at 20 tokens per second),
//   medium  ~40 tokens (2 s at 20 tokens per second),
// and any `extra` {name: text}. Returns {dir, remove()}.
export function makeScriptDir(extra = {}) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'crux-hostile-'));
  for (const f of readdirSync(scriptsDir)) {
    if (f.endsWith('.txt')) copyFileSync(path.join(scriptsDir, f), path.join(dir, f));
  }
  const words = 'alpha beta gamma delta epsilon zeta eta theta ';
  writeFileSync(path.join(dir, 'big.txt'), words.repeat(Math.ceil((4 << 20) / words.length)));
  writeFileSync(path.join(dir, 'ctl.txt'), '\u0001\u0002\u0003\u0004'.repeat((3 << 20) / 8));
  writeFileSync(path.join(dir, 'short.txt'), 'The short answer is here, and it ends soon enough. Done now!');
  writeFileSync(path.join(dir, 'medium.txt'), 'A medium answer: '.padEnd(160, 'lorem ipsum dolor sit amet '));
  for (const [name, text] of Object.entries(extra)) writeFileSync(path.join(dir, `${name}.txt`), text);
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export const API = {
  chat: {
    path: '/v1/chat/completions',
    body: (model, extra = {}) => ({ model, messages: [{ role: 'user', content: 'x' }], ...extra }),
  },
  messages: {
    path: '/v1/messages',
    body: (model, extra = {}) => ({ model, max_tokens: 1000000, messages: [{ role: 'user', content: 'x' }], ...extra }),
  },
  responses: {
    path: '/v1/responses',
    body: (model, extra = {}) => ({ model, input: 'x', ...extra }),
  },
};

export const APIS = Object.keys(API);

// How a stream of `api` ended, from the SSE text: {kind: 'done' | 'error' | 'incomplete' |
// 'none', error (the error object of an error ending), events}.
//   chat:      'done' = a finish_reason chunk then data: [DONE]; 'error' = data: {"error"} then [DONE]
//   messages:  'done' = message_stop last; 'error' = event: error last
//   responses: 'done' = response.completed last; 'error' = response.failed last
export function streamEnd(api, text) {
  const events = sseEvents(text);
  const last = events.at(-1);
  if (!last) return { kind: 'none', events };
  if (api === 'chat') {
    if (last.data !== '[DONE]') return { kind: 'none', events };
    const before = events.at(-2);
    if (before?.json?.error) return { kind: 'error', error: before.json.error, events };
    const finished = events.some((e) => e.json?.choices?.some((c) => c.finish_reason));
    return { kind: finished ? 'done' : 'none', events };
  }
  if (api === 'messages') {
    if (last.event === 'message_stop') return { kind: 'done', events };
    if (last.event === 'error') return { kind: 'error', error: last.json?.error, events };
    return { kind: 'none', events };
  }
  if (last.event === 'response.completed') return { kind: 'done', events };
  if (last.event === 'response.incomplete') return { kind: 'incomplete', events };
  if (last.event === 'response.failed') return { kind: 'error', error: last.json?.response?.error, events };
  return { kind: 'none', events };
}

// The body text of the first response in a connection's bytes (the peer has closed).
export function bodyText(buf) {
  const [res] = parseResponses(buf, { closedBody: true });
  return res ? res.text : '';
}

// HTTP-level behaviour of `crux serve`: error statuses and bodies for bad requests, limits,
// authentication, health and metrics, keep-alives, and cancellation when a client disconnects.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import OpenAI from 'openai';

import { metric, startServer } from './lib/server.mjs';

async function post(url, path, body, headers = {}) {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

const chat = (extra = {}) => ({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], ...extra });

describe('crux serve over HTTP', () => {
  let server;
  before(async () => {
    server = await startServer(['--max-body-bytes', '65536', '--tokens-per-second', '0']);
  });
  after(async () => server.stop());

  test('health and models', async () => {
    const h = await fetch(`${server.url}/health`);
    assert.equal(h.status, 200);
    assert.deepEqual(await h.json(), { status: 'ok' });
    const m = await (await fetch(`${server.url}/v1/models`)).json();
    assert.equal(m.object, 'list');
    assert.ok(m.data.some((d) => d.id === 'reasoning'));
  });

  test('invalid JSON is a 400 in each vendor shape', async () => {
    const o = await post(server.url, '/v1/chat/completions', '{"model": ');
    assert.equal(o.status, 400);
    assert.equal(typeof o.json.error.message, 'string');
    assert.equal(o.json.error.type, 'invalid_request_error');
    const a = await post(server.url, '/v1/messages', '{nope');
    assert.equal(a.status, 400);
    assert.equal(a.json.type, 'error');
    assert.equal(a.json.error.type, 'invalid_request_error');
    const r = await post(server.url, '/v1/responses', '[');
    assert.equal(r.status, 400);
    assert.ok(r.json.error.message);
  });

  test('wrong types name the field', async () => {
    const o = await post(server.url, '/v1/chat/completions', chat({ messages: 'hi' }));
    assert.equal(o.status, 400);
    assert.match(o.json.error.message, /messages/);
    const t = await post(server.url, '/v1/chat/completions', chat({ temperature: 'hot' }));
    assert.equal(t.status, 400);
    assert.match(t.json.error.message, /temperature/);
  });

  test('an out-of-range max_tokens names the whole range in each vendor shape', async () => {
    const o = await post(server.url, '/v1/chat/completions', chat({ max_tokens: 99999999999 }));
    assert.equal(o.status, 400);
    assert.equal(o.json.error.type, 'invalid_request_error');
    assert.equal(o.json.error.param, 'max_tokens');
    assert.match(o.json.error.message, /between 1 and 2147483647 \(got 99999999999\)/);
    const a = await post(server.url, '/v1/messages',
      { model: 'plain', max_tokens: 0, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(a.status, 400);
    assert.equal(a.json.error.type, 'invalid_request_error');
    assert.match(a.json.error.message, /max_tokens must be an integer between 1 and 2147483647 \(got 0\)/);
    const r = await post(server.url, '/v1/responses', { model: 'plain', input: 'hi', max_output_tokens: -1 });
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /max_output_tokens must be an integer between 1 and 2147483647/);
  });

  test('previous_response_id without new input is a 400 naming input, not a generation', async () => {
    const first = await post(server.url, '/v1/responses', { model: 'plain', input: 'hi' });
    assert.equal(first.status, 200);
    for (const input of [undefined, '', []]) {
      const r = await post(server.url, '/v1/responses', { model: 'plain', previous_response_id: first.json.id, input });
      assert.equal(r.status, 400, JSON.stringify(input));
      assert.equal(r.json.error.type, 'invalid_request_error');
      assert.equal(r.json.error.param, 'input');
    }
  });

  test('missing model is a 400, unknown model a 404', async () => {
    const missing = await post(server.url, '/v1/chat/completions', { messages: [{ role: 'user', content: 'x' }] });
    assert.equal(missing.status, 400);
    assert.match(missing.json.error.message, /model/);
    const unknown = await post(server.url, '/v1/messages', { model: 'gpt-9', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.json.error.type, 'not_found_error');
  });

  test('an unknown parser named in a request is a 400 listing the available ones', async () => {
    const r = await post(server.url, '/v1/chat/completions', chat({ reasoning_parser: 'qwen9' }));
    assert.equal(r.status, 400);
    assert.match(r.json.error.message, /unknown reasoning parser 'qwen9'.*deepseek_r1/);
  });

  test('an oversized body is a 413', async () => {
    const r = await post(server.url, '/v1/chat/completions', chat({ messages: [{ role: 'user', content: 'x'.repeat(70000) }] }));
    assert.equal(r.status, 413);
    assert.match(r.text, /limit/);
  });

  test('unknown routes are 404 and GET on an API route is 405 with Allow', async () => {
    assert.equal((await fetch(`${server.url}/v2/nothing`)).status, 404);
    const get = await fetch(`${server.url}/v1/chat/completions`);
    assert.equal(get.status, 405);
    assert.equal(get.headers.get('allow'), 'POST, OPTIONS');
    assert.equal((await get.json()).error.type, 'invalid_request_error');
    const post405 = await fetch(`${server.url}/health`, { method: 'POST' });
    assert.equal(post405.status, 405);
    assert.equal(post405.headers.get('allow'), 'GET, HEAD, OPTIONS');
    const del = await fetch(`${server.url}/v1/models`, { method: 'DELETE' });
    assert.equal(del.status, 405);
  });

  // Node's http parser reads a HEAD response's headers only; a body after them corrupts the
  // next response on the same connection (what broke gateways in front of crux).
  test('HEAD is headers only on every path, and the connection stays usable', async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const request = (method, path) => new Promise((resolve, reject) => {
      const req = http.request(`${server.url}${path}`, { method, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d) => { body += d; });
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body, socket: req.socket }));
      });
      req.on('error', reject);
      req.end();
    });
    try {
      let socket = null;
      for (const path of ['/', '/health', '/v1/models', '/metrics', '/v1/models/plain', '/v1/messages', '/v1/responses/resp_none', '/nothing']) {
        const head = await request('HEAD', path);
        assert.equal(head.body, '', `HEAD ${path} has no body`);
        const get = await request('GET', path);
        assert.equal(get.status, head.status, `HEAD ${path} answers as GET would`);
        // (A 405 names the method, and /metrics counts the HEAD itself: their lengths differ.)
        if (head.status !== 405 && path !== '/metrics') {
          assert.equal(head.headers['content-length'], String(Buffer.byteLength(get.body)), path);
        }
        if (socket !== null) assert.equal(get.socket, socket, 'one connection throughout');
        socket = get.socket;
      }
      const options = await request('OPTIONS', '/v1/responses/resp_x');
      assert.equal(options.status, 204);
      assert.equal(options.body, '');
      assert.equal(options.headers.allow, 'GET, HEAD, DELETE, OPTIONS');
      assert.equal(options.headers['content-length'], undefined, 'no Content-Length on a 204');
    } finally {
      agent.destroy();
    }
  });

  test('GET /v1/models/{id} answers one model or a 404 in the vendor shape', async () => {
    const one = await fetch(`${server.url}/v1/models/plain`);
    assert.equal(one.status, 200);
    assert.equal((await one.json()).id, 'plain');
    const missing = await fetch(`${server.url}/v1/models/gpt-9`);
    assert.equal(missing.status, 404);
    assert.equal((await missing.json()).error.code, 'model_not_found');
    const anthropic = await fetch(`${server.url}/v1/models/gpt-9`, { headers: { 'anthropic-version': '2023-06-01' } });
    assert.equal((await anthropic.json()).error.type, 'not_found_error');
  });

  test('stored responses: GET, DELETE, then 404; store false is not stored', async () => {
    const created = await post(server.url, '/v1/responses', { model: 'plain', input: 'hi' });
    assert.equal(created.status, 200);
    assert.equal(created.json.store, true);
    const got = await fetch(`${server.url}/v1/responses/${created.json.id}`);
    assert.equal(got.status, 200);
    assert.deepEqual(await got.json(), created.json);
    const del = await fetch(`${server.url}/v1/responses/${created.json.id}`, { method: 'DELETE' });
    assert.deepEqual(await del.json(), { id: created.json.id, object: 'response', deleted: true });
    const gone = await fetch(`${server.url}/v1/responses/${created.json.id}`);
    assert.equal(gone.status, 404);
    assert.equal((await gone.json()).error.code, 'response_not_found');
    const unstored = await post(server.url, '/v1/responses', { model: 'plain', input: 'hi', store: false });
    assert.equal(unstored.json.store, false);
    assert.equal((await fetch(`${server.url}/v1/responses/${unstored.json.id}`)).status, 404);
    const cont = await post(server.url, '/v1/responses', { model: 'plain', input: 'x', previous_response_id: unstored.json.id });
    assert.equal(cont.status, 404);
    assert.equal(cont.json.error.code, 'previous_response_not_found');
  });

  test('--response-store-bytes 0 stores nothing and says so', async () => {
    const bare = await startServer(['--response-store-bytes', '0']);
    try {
      const r = await post(bare.url, '/v1/responses', { model: 'plain', input: 'hi' });
      assert.equal(r.json.store, false);
      assert.equal((await fetch(`${bare.url}/v1/responses/${r.json.id}`)).status, 404);
    } finally {
      await bare.stop();
    }
  });

  test('streams are SSE with every Anthropic event named', async () => {
    const res = await fetch(`${server.url}/v1/messages`, {
      method: 'POST', headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'weather', max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'x' }],
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] }),
    });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /^text\/event-stream/);
    const text = await res.text();
    const events = text.split('\n\n').filter((e) => e.trim() && !e.startsWith(':'));
    for (const e of events) {
      const name = e.match(/^event: (\S+)$/m)?.[1];
      const data = JSON.parse(e.match(/^data: (.*)$/m)[1]);
      assert.equal(name, data.type);
    }
    const types = events.map((e) => e.match(/^event: (\S+)$/m)[1]);
    assert.equal(types[0], 'message_start');
    assert.equal(types.at(-1), 'message_stop');
  });

  // Starts a stream on a server pacing `tokensPerSecond`, lets `open` read what it wants and
  // return how to abort, aborts, and checks the generation is cancelled within `withinMs`.
  async function abortCancels(tokensPerSecond, open, withinMs) {
    const slow = await startServer(['--tokens-per-second', String(tokensPerSecond)]);
    try {
      const abort = await open(slow.url);
      assert.equal(await metric(slow.url, 'crux_active_generations'), 1);
      const aborted = Date.now();
      abort();
      let active = 1;
      while (active !== 0 && Date.now() - aborted < withinMs) {
        await sleep(20);
        active = await metric(slow.url, 'crux_active_generations');
      }
      assert.equal(active, 0, `the generation still runs ${withinMs} ms after its client left`);
      assert.equal(await metric(slow.url, 'crux_cancelled_total'), 1);
    } finally {
      await slow.stop();
    }
  }

  test('a client that disconnects mid-stream cancels its generation', async () => {
    await abortCancels(40, async (url) => {
      const controller = new AbortController();
      const res = await fetch(`${url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
        body: JSON.stringify({ model: 'long', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      const reader = res.body.getReader();
      await reader.read();
      await reader.read();
      return () => controller.abort();
    }, 1000);
  });

  // Nothing is written while a long prompt is evaluated (here: 5 s between tokens), so only a
  // probing write tells a client that closed its socket from one that half-closed. The client
  // is OpenAI's SDK, aborting its stream after the first chunk.
  test('a client that disconnects while nothing is being written cancels its generation at once', async () => {
    await abortCancels(0.2, async (url) => {
      const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
      const stream = await client.chat.completions.create({
        model: 'long', stream: true, messages: [{ role: 'user', content: 'x' }],
      });
      const chunks = stream[Symbol.asyncIterator]();
      await chunks.next();
      return () => stream.controller.abort();
    }, 3000);
  });

  test('the concurrency limit answers 429 with Retry-After', async () => {
    const limited = await startServer(['--tokens-per-second', '20', '--max-concurrent-requests', '1']);
    try {
      const controller = new AbortController();
      const first = await fetch(`${limited.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
        body: JSON.stringify({ model: 'long', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      await first.body.getReader().read();
      const second = await post(limited.url, '/v1/chat/completions', chat());
      assert.equal(second.status, 429);
      assert.equal(second.headers.get('retry-after'), '1');
      assert.equal(second.json.error.type, 'rate_limit_error');
      controller.abort();
    } finally {
      await limited.stop();
    }
  });

  test('keep-alive comments are sent while a stream is idle', async () => {
    const slow = await startServer(['--tokens-per-second', '2', '--keepalive-interval', '0.2']);
    try {
      const controller = new AbortController();
      const res = await fetch(`${slow.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, signal: controller.signal,
        body: JSON.stringify({ model: 'long', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      });
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let seen = '';
      const until = Date.now() + 3000;
      while (!seen.includes(': keep-alive') && Date.now() < until) {
        const { value } = await reader.read();
        seen += decoder.decode(value);
      }
      controller.abort();
      assert.match(seen, /^: keep-alive$/m);
    } finally {
      await slow.stop();
    }
  });

  test('API keys: Bearer and x-api-key both work; a wrong key is a 401', async () => {
    const secured = await startServer(['--api-key', 'sk-secret']);
    try {
      assert.equal((await post(secured.url, '/v1/chat/completions', chat(), { authorization: 'Bearer sk-secret' })).status, 200);
      assert.equal((await post(secured.url, '/v1/chat/completions', chat(), { 'x-api-key': 'sk-secret' })).status, 200);
      const bad = await post(secured.url, '/v1/chat/completions', chat(), { authorization: 'Bearer nope' });
      assert.equal(bad.status, 401);
      // OpenAI's own shape for a wrong key: invalid_request_error with code invalid_api_key.
      assert.equal(bad.json.error.type, 'invalid_request_error');
      assert.equal(bad.json.error.code, 'invalid_api_key');
      const anthropic = await post(secured.url, '/v1/messages', { model: 'plain', max_tokens: 5, messages: [] });
      assert.equal(anthropic.status, 401);
      assert.equal(anthropic.json.error.type, 'authentication_error');
      assert.equal(anthropic.json.error.message, 'x-api-key header is required');
    } finally {
      await secured.stop();
    }
  });

  test('metrics count requests and tokens', async () => {
    await post(server.url, '/v1/chat/completions', chat());
    const text = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(text, /crux_requests_total\{endpoint="chat_completions",status="2xx"\} [1-9]/);
    assert.match(text, /crux_generation_tokens_total [1-9]/);
    assert.match(text, /crux_request_duration_seconds_bucket\{le="\+Inf"\} [1-9]/);
  });
});

// Streams on reused connections, many at once: each must end as soon as its output is done.
// A wake-up lost while the server writes would leave a stream waiting for the next keep-alive
// (30 s here) before it sends the rest.
describe('crux serve under concurrent streams', () => {
  let server;
  before(async () => {
    server = await startServer(['--tokens-per-second', '0', '--keepalive-interval', '30']);
  });
  after(async () => server.stop());

  test('48 concurrent streams, 4 rounds: every one completes without stalling', async () => {
    const body = JSON.stringify({ model: 'weather', stream: true, messages: [{ role: 'user', content: 'hi' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] });
    const one = async () => {
      const t0 = performance.now();
      const res = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body,
      });
      const text = await res.text();
      return { status: res.status, done: text.includes('data: [DONE]'), ms: performance.now() - t0 };
    };
    for (let round = 0; round < 4; round += 1) {
      const results = await Promise.all(Array.from({ length: 48 }, one));
      for (const r of results) {
        assert.equal(r.status, 200);
        assert.ok(r.done, 'stream ended with [DONE]');
        assert.ok(r.ms < 15000, `a stream took ${Math.round(r.ms)} ms`);
      }
    }
  });
});

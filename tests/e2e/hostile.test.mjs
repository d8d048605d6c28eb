// Hostile and unusual clients at the transport level: malformed HTTP, Expect: 100-continue,
// HTTP/1.0, half-closed sockets, readers that stop reading, stream deadlines, the connection
// cap, idle connections, and file-descriptor exhaustion. Raw node:net sockets throughout, so
// that no HTTP client hides what the server sends (or fails to send).
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { API, APIS, makeScriptDir, streamEnd } from './lib/hostile.mjs';
import {
  cpuPercent, exchange, openIdle, parseResponses, pollUntil, postJson, rawMetric, RawConn,
  request, requestBytes,
} from './lib/raw.mjs';
import { startServer } from './lib/server.mjs';

const T = { timeout: 20_000 };
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const i = (api) => APIS.indexOf(api);
const describeConn = (c) => `${c.length} bytes read, FIN ${c.ended}, error ${c.error?.code ?? 'none'}`;

let scripts;
before(() => { scripts = makeScriptDir(); });
after(() => scripts.remove());

// Starts crux on the hostile scripts directory.
const start = (args, options = {}) => startServer(args, { script: scripts.dir, stopTimeoutMs: 5000, ...options });

// A streaming request on a raw connection that is paused at once (never read).
async function stalledRequest(port, api, body, { keepBytes = 256 * 1024 } = {}) {
  const conn = await RawConn.open(port, { keepBytes });
  conn.pause();
  conn.write(requestBytes({ method: 'POST', path: API[api].path, port, headers: JSON_HEADERS, body }));
  return conn;
}

// Waits until the stalled request's generation holds its slot, so that a probe that gets 200
// afterwards proves the slot was freed (and did not simply win the race for it).
async function untilGenerating(port) {
  const started = await pollUntil(async () => (await rawMetric(port, 'crux_active_generations')) >= 1,
    { timeoutMs: 5000, everyMs: 20 });
  assert.ok(started, 'the stalled request started generating');
}

// Polls a small chat request until it is answered 200 (not 429); resolves to the elapsed ms
// from `t0`, or null when that did not happen within timeoutMs.
async function untilServed(port, t0, timeoutMs) {
  const ok = await pollUntil(async () => {
    const r = await postJson(port, '/v1/chat/completions', API.chat.body('plain'), { timeoutMs: 2000 });
    return r.status === 200;
  }, { timeoutMs, everyMs: 100 });
  return ok ? performance.now() - t0 : null;
}

describe('malformed HTTP, Expect, HTTP/1.0 and half-close', () => {
  let server;
  before(async () => { server = await start(['--max-body-bytes', '65536', '--tokens-per-second', '0']); });
  after(async () => server?.stop());

  for (const [name, bytes] of [
    ['a garbage request line', 'GARBAGE\r\n\r\n'],
    ['a request line without a version', 'GET /health\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a header line without a colon', 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nThis is not a header\r\n\r\n'],
    ['a space before the colon', 'GET /health HTTP/1.1\r\nHost : 127.0.0.1\r\n\r\n'],
    ['a non-numeric Content-Length', 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}'],
    ['a negative Content-Length', 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n{}'],
    ['two different Content-Lengths', 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}'],
  ]) {
    test(`${name} is a 400 with a JSON body, then the connection closes`, T, async () => {
      const { responses, closed } = await exchange(server.port, bytes, { timeoutMs: 3000 });
      assert.ok(responses.length >= 1, 'a response was sent');
      assert.equal(responses[0].status, 400);
      assert.ok(responses[0].json, `JSON body, got ${JSON.stringify(responses[0].text)}`);
      assert.ok(closed, 'the server closed the connection');
    });
  }

  test('a header block over 64 KiB is a 431, then the connection closes', T, async () => {
    // No terminating blank line: the server must judge the size as the bytes arrive.
    const bytes = `GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'a'.repeat(65 * 1024 + 512)}\r\n`;
    const { responses, closed } = await exchange(server.port, bytes, { timeoutMs: 3000 });
    assert.ok(responses.length >= 1, 'a response was sent');
    assert.equal(responses[0].status, 431);
    assert.ok(closed, 'the server closed the connection');
  });

  test('Expect: 100-continue gets 100 Continue before the body is sent, then 200', T, async () => {
    const body = JSON.stringify(API.chat.body('plain'));
    const conn = await RawConn.open(server.port);
    try {
      conn.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`);
      assert.ok(await conn.waitText('\r\n\r\n', 2000), 'an interim response arrived without the body');
      const [interim] = parseResponses(conn.buffer);
      assert.equal(interim.status, 100);
      conn.write(body);
      await conn.waitFor((c) => parseResponses(c.buffer).some((r) => r.status >= 200 && r.complete), 3000);
      const final = parseResponses(conn.buffer).find((r) => r.status >= 200);
      assert.equal(final?.status, 200);
      assert.equal(final.json.object, 'chat.completion');
    } finally {
      conn.destroy();
    }
  });

  test('Expect: 100-continue with a Content-Length over --max-body-bytes is a 413 at once', T, async () => {
    const conn = await RawConn.open(server.port);
    try {
      conn.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\n` +
        'Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n');
      assert.ok(await conn.waitText('\r\n\r\n', 2000), 'answered without the body');
      const [first] = parseResponses(conn.buffer);
      assert.equal(first.status, 413, 'no 100 Continue for a body that is refused');
    } finally {
      conn.destroy();
    }
  });

  test('HTTP/1.0 streaming: no chunked encoding, the SSE events raw, ended by the close', T, async () => {
    const { responses, closed } = await exchange(server.port, requestBytes({
      method: 'POST', path: '/v1/chat/completions', version: '1.0', port: server.port, headers: JSON_HEADERS,
      body: API.chat.body('plain', { stream: true }),
    }), { timeoutMs: 3000 });
    assert.ok(closed, 'the server closed the connection to end the stream');
    const [res] = responses;
    assert.equal(res.status, 200);
    assert.equal(res.headers['transfer-encoding'], undefined, 'no Transfer-Encoding for HTTP/1.0');
    assert.match(res.headers['content-type'], /^text\/event-stream/);
    assert.match(res.text, /^data: \{/, 'the body starts with an SSE event, not a chunk size');
    assert.equal(streamEnd('chat', res.text).kind, 'done');
  });

  test('HTTP/1.0 non-streaming: Content-Length and Connection: close, then the server closes', T, async () => {
    const { responses, closed } = await exchange(server.port, requestBytes({
      method: 'POST', path: '/v1/chat/completions', version: '1.0', port: server.port, headers: JSON_HEADERS,
      body: API.chat.body('plain'),
    }), { timeoutMs: 3000 });
    const [res] = responses;
    assert.equal(res.status, 200);
    assert.equal(res.headers['content-length'], String(res.body.length));
    assert.equal(res.headers['transfer-encoding'], undefined);
    assert.match(res.headers.connection ?? '', /close/i);
    assert.equal(res.json.object, 'chat.completion');
    assert.ok(closed, 'the server closed the connection after the response');
  });

  test('HTTP/1.0 with Connection: keep-alive keeps the connection for a second request', T, async () => {
    const conn = await RawConn.open(server.port);
    try {
      const one = () => requestBytes({ method: 'POST', path: '/v1/chat/completions', version: '1.0', port: server.port,
        headers: { ...JSON_HEADERS, Connection: 'keep-alive' }, body: API.chat.body('plain') });
      conn.write(one());
      assert.ok(await conn.waitFor((c) => parseResponses(c.buffer)[0]?.complete, 3000), 'first response');
      const [first] = parseResponses(conn.buffer);
      assert.equal(first.status, 200);
      assert.match(first.headers.connection ?? '', /keep-alive/i);
      await sleep(100);
      assert.ok(!conn.closed, 'still open after the first response');
      conn.write(one());
      assert.ok(await conn.waitFor((c) => parseResponses(c.buffer)[1]?.complete, 3000), 'second response');
      assert.equal(parseResponses(conn.buffer)[1].status, 200);
    } finally {
      conn.destroy();
    }
  });

  for (const stream of [true, false]) {
    test(`a client that half-closes after its request still gets the whole response (${stream ? 'stream' : 'JSON'})`, T, async () => {
      for (const api of APIS) {
        const res = await request(server.port, {
          method: 'POST', path: API[api].path, headers: JSON_HEADERS, body: API[api].body('long', { stream }), end: true,
        });
        assert.equal(res.status, 200, api);
        assert.ok(res.complete, `${api}: the whole body arrived`);
        if (stream) {
          assert.equal(streamEnd(api, res.text).kind, 'done', `${api}: the stream completed`);
        } else {
          assert.ok(res.json, `${api}: a JSON body`);
        }
      }
    });
  }
});

describe('readers that stop reading', () => {
  // The limit is on output the socket has not accepted: a reader that keeps up is never cut,
  // however fast the (unpaced) mock engine produces.
  test('a reader that keeps up gets a large stream and a large JSON body whole (default limits)', T, async () => {
    const server = await start(['--tokens-per-second', '0']);
    try {
      const conn = await RawConn.open(server.port, { keepBytes: 64 * 1024 });
      try {
        conn.write(requestBytes({ method: 'POST', path: API.chat.path, port: server.port, headers: { ...JSON_HEADERS, Connection: 'close' },
          body: API.chat.body('big', { stream: true, max_tokens: 100_000 }) }));
        assert.ok(await conn.waitClose(10_000), 'the stream ended');
        assert.ok(conn.length > 5e6, `a large stream (${conn.length} bytes)`);
        assert.ok(conn.buffer.includes('data: [DONE]') && conn.buffer.subarray(-5).toString() === '0\r\n\r\n',
          `the stream completed (${conn.length} bytes arrived)`);
      } finally {
        conn.destroy();
      }
      const res = await postJson(server.port, API.chat.path, API.chat.body('ctl'), { timeoutMs: 10_000 });
      assert.equal(res.status, 200);
      assert.ok(res.complete && res.body.length > 8e6, `the whole JSON body (${res.body.length} bytes)`);
    } finally {
      await server.stop();
    }
  });

  test('a stalled streaming reader is cut within the write timeout and frees its slot', T, async () => {
    const server = await start(['--max-concurrent-requests', '1', '--write-timeout', '1', '--max-buffered-bytes', '65536']);
    let conn;
    try {
      const t0 = performance.now();
      conn = await stalledRequest(server.port, 'chat', API.chat.body('big', { stream: true, max_tokens: 100_000_000 }));
      await untilGenerating(server.port);
      const served = await untilServed(server.port, t0, 5000);
      assert.ok(served !== null, 'a second request got 200 (not 429) within 5 s of the reader stalling');
      assert.ok(await rawMetric(server.port, 'crux_clients_cut_total') >= 1, 'the stalled reader was cut');
      conn.resume();
      assert.ok(await conn.waitClose(4000), `the server closed the stalled connection (${describeConn(conn)})`);
      const head = parseResponses(conn.buffer)[0];
      assert.equal(head?.status, 200, 'the stalled stream had started');
      assert.ok(!conn.buffer.includes('data: [DONE]'), 'the stalled stream did not complete');
      assert.ok(await rawMetric(server.port, 'crux_cancelled_total') >= 1, 'its generation was cancelled');
      assert.equal(await rawMetric(server.port, 'crux_active_generations'), 0);
    } finally {
      conn?.destroy();
      await server.stop();
    }
  });

  test('a stalled reader of a large JSON body is cut after the write timeout', T, async () => {
    const server = await start(['--max-concurrent-requests', '1', '--write-timeout', '1', '--max-buffered-bytes', '65536']);
    let conn;
    try {
      conn = await stalledRequest(server.port, 'chat', API.chat.body('ctl', { max_tokens: 100_000_000 }));
      // The body (~9 MB) is generated first; the write starts once the generation has ended.
      await pollUntil(async () => (await rawMetric(server.port, 'crux_generation_tokens_total')) > 0, { timeoutMs: 8000 });
      const t0 = performance.now();
      await sleep(2500); // write timeout (1 s) and margin
      assert.ok((await untilServed(server.port, t0, 3000)) !== null, 'the concurrency slot is free');
      conn.resume();
      assert.ok(await conn.waitClose(4000), `the server closed the stalled connection (${describeConn(conn)})`);
      const [res] = parseResponses(conn.buffer);
      assert.equal(res?.status, 200, 'the response had started');
      const expected = Number(res.headers['content-length']);
      assert.ok(expected > 8e6, `a large body (Content-Length ${expected})`);
      assert.ok(res.body.length < expected, `cut short: ${res.body.length} of ${expected} bytes arrived`);
    } finally {
      conn?.destroy();
      await server.stop();
    }
  });

  test('the request deadline applies while a write is blocked', T, async () => {
    // Buffer limit and write timeout out of the way: only --request-timeout can cut this one.
    const server = await start(['--max-concurrent-requests', '1', '--request-timeout', '1', '--write-timeout', '30',
      '--max-buffered-bytes', String(256 << 20)]);
    let conn;
    try {
      const t0 = performance.now();
      conn = await stalledRequest(server.port, 'chat', API.chat.body('big', { stream: true, max_tokens: 100_000_000 }));
      await untilGenerating(server.port);
      const served = await untilServed(server.port, t0, 5000);
      assert.ok(served !== null, 'a second request got 200 within 5 s (deadline 1 s)');
      conn.resume();
      assert.ok(await conn.waitClose(4000), `the server closed the stalled connection (${describeConn(conn)})`);
      // It ends cut, or (when the backlog was taken within the grace) with the timeout's
      // error event: never as a completed answer.
      const tail = conn.buffer.toString('latin1');
      assert.ok(!tail.includes('data: [DONE]') || tail.includes('"code":"timeout"'),
        'the stalled stream did not complete normally');
    } finally {
      conn?.destroy();
      await server.stop();
    }
  });
});

describe('request deadlines', () => {
  let server;
  before(async () => { server = await start(['--request-timeout', '1', '--tokens-per-second', '20']); });
  after(async () => server?.stop());

  test('a stream past its deadline ends with a timeout error, not a client error', T, async () => {
    const before = await rawMetric(server.port, 'crux_cancelled_total');
    const results = await Promise.all(APIS.map((api) => request(server.port, {
      method: 'POST', path: API[api].path, headers: JSON_HEADERS, body: API[api].body('long', { stream: true }), timeoutMs: 5000,
    })));
    const ends = Object.fromEntries(APIS.map((api, i) => [api, streamEnd(api, results[i].text)]));
    for (const api of APIS) {
      assert.equal(results[i(api)].status, 200, api);
      assert.equal(ends[api].kind, 'error', `${api}: ended with its error event`);
    }
    assert.equal(ends.chat.error.type, 'server_error');
    assert.equal(ends.chat.error.code, 'timeout');
    assert.equal(ends.messages.error.type, 'timeout_error');
    assert.equal(ends.responses.error.code, 'server_error');
    const cancelled = await rawMetric(server.port, 'crux_cancelled_total');
    assert.ok(cancelled - before >= 3, `every timed-out stream counted as cancelled (${before} → ${cancelled})`);
  });

  test('a JSON request past its deadline is a 504 (Anthropic: timeout_error) and is counted', T, async () => {
    const before = await rawMetric(server.port, 'crux_cancelled_total');
    const results = await Promise.all(APIS.map((api) => request(server.port, {
      method: 'POST', path: API[api].path, headers: JSON_HEADERS, body: API[api].body('long'), timeoutMs: 5000,
    })));
    for (const [k, api] of APIS.entries()) assert.equal(results[k].status, 504, api);
    assert.equal(results[i('chat')].json.error.type, 'server_error');
    assert.equal(results[i('messages')].json.type, 'error');
    assert.equal(results[i('messages')].json.error.type, 'timeout_error');
    assert.ok(results[i('responses')].json.error.message);
    const cancelled = await rawMetric(server.port, 'crux_cancelled_total');
    assert.ok(cancelled - before >= 3, `every timed-out request counted as cancelled (${before} → ${cancelled})`);
  });
});

describe('connection limits', () => {
  test('at --max-connections, a new connection evicts the oldest idle one', T, async () => {
    const server = await start(['--max-connections', '8']);
    const conns = [];
    try {
      for (let k = 0; k < 8; k += 1) {
        const c = await RawConn.open(server.port);
        conns.push(c);
        c.write(requestBytes({ path: '/health', port: server.port }));
        assert.ok(await c.waitFor((x) => parseResponses(x.buffer)[0]?.complete, 2000), `connection ${k} served`);
        assert.ok(!c.closed, `connection ${k} kept alive`);
      }
      const ninth = await request(server.port, { path: '/health', timeoutMs: 3000 });
      assert.equal(ninth.status, 200, 'the ninth connection is served');
      assert.ok(await pollUntil(() => conns[0].closed, { timeoutMs: 2000, everyMs: 20 }), 'the oldest idle connection was closed');
    } finally {
      for (const c of conns) c.destroy();
      await server.stop();
    }
  });

  test('at --max-connections with none idle, a new connection gets a 503 and is closed', T, async () => {
    const server = await start(['--max-connections', '8', '--tokens-per-second', '20']);
    const conns = [];
    let extra;
    try {
      for (let k = 0; k < 8; k += 1) {
        const c = await RawConn.open(server.port);
        conns.push(c);
        c.write(requestBytes({ method: 'POST', path: '/v1/chat/completions', port: server.port, headers: JSON_HEADERS,
          body: API.chat.body('long', { stream: true }) }));
        assert.ok(await c.waitText('data:', 3000), `stream ${k} started`);
      }
      extra = await RawConn.open(server.port);
      // The server may answer at once or after reading the request: allow both.
      if (!(await extra.waitFor((c) => c.length > 0, 500))) {
        extra.write(requestBytes({ path: '/health', port: server.port }));
      }
      await extra.waitFor((c) => parseResponses(c.buffer)[0]?.complete, 3000);
      const [res] = parseResponses(extra.buffer, { closedBody: extra.closed });
      assert.equal(res?.status, 503);
      assert.ok(res.headers['retry-after'], 'Retry-After');
      assert.match(res.headers.connection ?? '', /close/i);
      assert.ok(res.json?.error, `a JSON error body, got ${res.text}`);
      assert.ok(await extra.waitClose(2000), 'the server closed it');
      assert.ok(conns.every((c) => !c.closed), 'no stream in progress was cut');
    } finally {
      extra?.destroy();
      for (const c of conns) c.destroy();
      await server.stop();
    }
  });

  test('--idle-timeout closes idle connections but not streams in progress', T, async () => {
    const server = await start(['--idle-timeout', '1', '--tokens-per-second', '20']);
    const conns = [];
    try {
      const partial = await RawConn.open(server.port);
      const silent = await RawConn.open(server.port);
      const kept = await RawConn.open(server.port);
      const streaming = await RawConn.open(server.port);
      conns.push(partial, silent, kept, streaming);
      const t0 = performance.now();
      partial.write(`GET /health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nX-Slow: `);
      kept.write(requestBytes({ path: '/health', port: server.port }));
      streaming.write(requestBytes({ method: 'POST', path: '/v1/chat/completions', port: server.port,
        headers: { ...JSON_HEADERS, Connection: 'close' }, body: API.chat.body('medium', { stream: true }) }));
      assert.ok(await kept.waitFor((c) => parseResponses(c.buffer)[0]?.complete, 2000), 'keep-alive response');
      assert.equal(parseResponses(kept.buffer)[0].status, 200);
      const closed = await Promise.all([partial, silent, kept].map((c) => c.waitClose(3000)));
      assert.deepEqual(closed, [true, true, true], 'partial header, silent and idle keep-alive connections closed');
      for (const c of [partial, silent, kept]) {
        const ms = c.closedAt - t0;
        assert.ok(ms > 500 && ms < 2600, `closed after ${Math.round(ms)} ms (idle timeout 1 s)`);
      }
      // The stream (2 s of paced output) outlives the idle timeout and completes.
      assert.ok(await streaming.waitClose(5000), 'the stream ended');
      assert.equal(streamEnd('chat', parseResponses(streaming.buffer, { closedBody: true })[0].text).kind, 'done');
    } finally {
      for (const c of conns) c.destroy();
      await server.stop();
    }
  });

  // With the default cap (the limit minus a reserve) the cap is met before the descriptors
  // run out; with a cap above the limit, accept itself fails (EMFILE) and must back off.
  //
  // Under UBSan a first-time virtual-call check opens a pipe to probe memory; with no
  // descriptor left that probe fails and it reports a false "invalid vptr". The sanitized
  // build's EMFILE run therefore suppresses that one check (a no-op for other builds).
  const vptrSuppressions = path.join(mkdtempSync(path.join(os.tmpdir(), 'crux-ubsan-')), 'supp.txt');
  writeFileSync(vptrSuppressions, 'vptr_check:*\n');
  const emfileEnv = { UBSAN_OPTIONS: `halt_on_error=1:print_stacktrace=1:suppressions=${vptrSuppressions}` };
  for (const [label, extra, env] of [['default cap', [], {}], ['cap above the limit (EMFILE)', ['--max-connections', '1000'], emfileEnv]]) {
  test(`out of file descriptors, ${label}: the server backs off, keeps answering and does not spin`, T, async () => {
    const server = await start(['--tokens-per-second', '0', ...extra], { wrap: ['bash', '-c', 'ulimit -n 128 && exec "$0" "$@"'], env });
    let held = [];
    try {
      const { conns } = await openIdle(server.port, 300, { batch: 50, timeoutMs: 2000 });
      held = conns;
      assert.ok(conns.length > 128, `more idle sockets than descriptors (${conns.length} connected)`);
      await sleep(300);
      const health = await request(server.port, { path: '/health', timeoutMs: 2000 });
      assert.equal(health.status, 200, '/health answers while the sockets are held');
      const cpu = await cpuPercent(server.pid, 2000);
      assert.ok(cpu < 20, `crux used ${cpu.toFixed(1)}% of a core while the sockets were held`);
      for (const c of held) c.destroy();
      held = [];
      await sleep(300);
      const r = await postJson(server.port, '/v1/chat/completions', API.chat.body('plain'), { timeoutMs: 3000 });
      assert.equal(r.status, 200, 'a normal request is served after the sockets are closed');
    } catch (e) {
      e.message += `\nserver exited: ${server.proc.exitCode ?? server.proc.signalCode}; log:\n${server.log().split('\n').filter((l) => !/accept failed/.test(l)).slice(-20).join('\n')}`;
      throw e;
    } finally {
      for (const c of held) c.destroy();
      await server.stop();
    }
  });
  }
});

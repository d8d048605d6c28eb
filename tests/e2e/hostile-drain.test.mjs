// Shutting down with work in flight: SIGTERM drains (stops accepting, lets requests finish up
// to --drain-timeout, then ends every stream with its protocol's terminal error and every JSON
// request with a 503) and exits 0; a second signal exits at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';

import { API, APIS, makeScriptDir, streamEnd } from './lib/hostile.mjs';
import { parseResponses, pollUntil, rawMetric, RawConn, requestBytes } from './lib/raw.mjs';
import { startServer } from './lib/server.mjs';

const T = { timeout: 20_000 };
const JSON_HEADERS = { 'Content-Type': 'application/json', Connection: 'close' };

let scripts;
before(() => { scripts = makeScriptDir(); });
after(() => scripts.remove());

const start = (args) => startServer(args, { script: scripts.dir, stopTimeoutMs: 3000 });

// Resolves to {code, signal, ms} when the server exits within timeoutMs of t0, else null.
async function exitWithin(server, t0, timeoutMs) {
  let timer;
  const r = await Promise.race([server.exited, new Promise((res) => { timer = setTimeout(res, timeoutMs, null); })]);
  clearTimeout(timer);
  return r && { ...r, ms: performance.now() - t0 };
}

// Opens one request per API (streaming) plus one JSON chat request, all on model `model`;
// resolves once every stream has sent an event and all four generations are in flight.
async function openWork(port, model) {
  const work = {};
  for (const api of APIS) {
    const c = await RawConn.open(port);
    c.write(requestBytes({ method: 'POST', path: API[api].path, port, headers: JSON_HEADERS, body: API[api].body(model, { stream: true }) }));
    work[api] = c;
  }
  work.json = await RawConn.open(port);
  work.json.write(requestBytes({ method: 'POST', path: API.chat.path, port, headers: JSON_HEADERS, body: API.chat.body(model) }));
  for (const api of APIS) assert.ok(await work[api].waitText('data:', 3000), `${api} stream started`);
  assert.ok(await pollUntil(async () => (await rawMetric(port, 'crux_active_generations')) === 4, { timeoutMs: 3000, everyMs: 50 }),
    'four generations in flight');
  return work;
}

const destroyAll = (work) => { for (const c of Object.values(work ?? {})) c.destroy(); };

describe('SIGTERM drain', () => {
  test('past --drain-timeout, streams end with their terminal error event and JSON requests get a 503', T, async () => {
    const server = await start(['--tokens-per-second', '20', '--drain-timeout', '1']);
    let work;
    try {
      work = await openWork(server.port, 'long');
      const t0 = performance.now();
      server.proc.kill('SIGTERM');
      await sleep(300);
      // New connections are refused (or closed unanswered): the listener is closed.
      let answered = false;
      try {
        const late = await RawConn.open(server.port, { timeoutMs: 1000 });
        late.write(requestBytes({ path: '/health', port: server.port, headers: { Connection: 'close' } }));
        await late.waitClose(1500);
        answered = parseResponses(late.buffer)[0]?.status === 200;
        late.destroy();
      } catch { /* refused: as intended */ }
      assert.ok(!answered, 'a connection opened after SIGTERM is not served');

      const exit = await exitWithin(server, t0, 3000);
      assert.ok(exit, 'exited within drain timeout + 2 s');
      assert.equal(exit.code, 0, 'exit status 0');
      assert.ok(exit.ms > 700, `kept serving for the drain timeout (exited after ${Math.round(exit.ms)} ms)`);
      await Promise.all(Object.values(work).map((c) => c.waitClose(1000)));

      const ends = Object.fromEntries(APIS.map((api) => {
        const [res] = parseResponses(work[api].buffer, { closedBody: true });
        assert.equal(res?.status, 200, api);
        return [api, streamEnd(api, res.text)];
      }));
      for (const api of APIS) {
        assert.equal(ends[api].kind, 'error', `${api} stream ended with its terminal error event`);
        assert.match(ends[api].error?.message ?? '', /shut/i, `${api}: the error says the server is shutting down`);
      }
      assert.equal(ends.messages.error.type, 'overloaded_error');
      assert.equal(ends.chat.events.at(-1).data, '[DONE]');
      const [json] = parseResponses(work.json.buffer, { closedBody: true });
      assert.equal(json?.status, 503, 'the JSON request is answered 503');
      assert.match(json.json?.error?.message ?? '', /shut/i);
    } finally {
      destroyAll(work);
      await server.stop();
    }
  });

  test('requests that finish within --drain-timeout complete normally, then the server exits at once', T, async () => {
    const server = await start(['--tokens-per-second', '20', '--drain-timeout', '10']);
    let work;
    try {
      work = await openWork(server.port, 'short'); // ~15 tokens: under a second of output
      const t0 = performance.now();
      server.proc.kill('SIGTERM');
      const exit = await exitWithin(server, t0, 5000);
      assert.ok(exit, 'exited well before the 10 s drain timeout');
      assert.equal(exit.code, 0);
      await Promise.all(Object.values(work).map((c) => c.waitClose(1000)));
      for (const api of APIS) {
        const [res] = parseResponses(work[api].buffer, { closedBody: true });
        assert.equal(res?.status, 200, api);
        assert.equal(streamEnd(api, res.text).kind, 'done', `${api} stream completed`);
      }
      const [json] = parseResponses(work.json.buffer, { closedBody: true });
      assert.equal(json?.status, 200);
      assert.equal(json.json?.choices?.[0]?.finish_reason, 'stop');
    } finally {
      destroyAll(work);
      await server.stop();
    }
  });

  test('a second signal exits at once, streams in flight or not', T, async () => {
    const server = await start(['--tokens-per-second', '20', '--drain-timeout', '10']);
    let work;
    try {
      work = await openWork(server.port, 'long');
      server.proc.kill('SIGTERM');
      await sleep(200);
      const t0 = performance.now();
      server.proc.kill('SIGINT');
      const exit = await exitWithin(server, t0, 1000);
      assert.ok(exit, 'exited within 1 s of the second signal');
    } finally {
      destroyAll(work);
      await server.stop();
    }
  });

  // Idle keep-alive connections are closed at once (a pool would otherwise hold the drain
  // open for its whole timeout); a stream in progress keeps the drain going and gets to end.
  test('on SIGTERM an idle keep-alive connection is closed at once while a stream continues', T, async () => {
    const server = await start(['--tokens-per-second', '20', '--drain-timeout', '2']);
    let stream;
    let kept;
    try {
      kept = await RawConn.open(server.port);
      kept.write(requestBytes({ path: '/health', port: server.port }));
      assert.ok(await kept.waitFor((c) => parseResponses(c.buffer)[0]?.complete, 2000));
      assert.equal(parseResponses(kept.buffer)[0].status, 200);
      stream = await RawConn.open(server.port);
      stream.write(requestBytes({ method: 'POST', path: API.chat.path, port: server.port, headers: JSON_HEADERS,
        body: API.chat.body('long', { stream: true }) }));
      assert.ok(await stream.waitText('data:', 3000), 'a stream keeps the drain going');
      const before = stream.length;
      server.proc.kill('SIGTERM');
      assert.ok(await kept.waitClose(500), 'the idle connection is closed within 0.5 s');
      assert.equal(parseResponses(kept.buffer).length, 1, 'nothing more was written to it');
      await sleep(300);
      assert.ok(stream.length > before, 'the stream still receives tokens during the drain');
      assert.equal(stream.closed, false, 'the stream is still open');
    } finally {
      stream?.destroy();
      kept?.destroy();
      await server.stop();
    }
  });
});

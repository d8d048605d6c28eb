// Figures for hostile clients of `crux serve` (run by hand; not a test):
//   1. RSS with 100 stalled streaming readers: baseline, peak while stalled, after they are cut
//   2. time from a reader stalling to its concurrency slot being freed
//   3. CPU use while 1,100 idle sockets are held under `ulimit -n 256`
//   4. drain time on SIGTERM with 64 streams in flight, and whether every stream ended properly
//
//   cd tests/e2e && CRUX_BIN=../../build/release/apps/crux/crux node bench/hostile-figures.mjs [1,2,3,4]
//
// Environment: WRITE_TIMEOUT (s, default 2) for 1 and 2; DRAIN_TIMEOUT (s, default 2) for 4.
import { setTimeout as sleep } from 'node:timers/promises';

import { API, APIS, makeScriptDir, streamEnd } from '../lib/hostile.mjs';
import {
  cpuPercent, openIdle, parseResponses, pollUntil, postJson, rawMetric, RawConn, request, requestBytes, rssKiB,
} from '../lib/raw.mjs';
import { startServer } from '../lib/server.mjs';

const only = new Set((process.argv[2] ?? '1,2,3,4').split(',').map(Number));
const writeTimeout = process.env.WRITE_TIMEOUT ?? '2';
const drainTimeout = process.env.DRAIN_TIMEOUT ?? '2';
const scripts = makeScriptDir();
const JSON_HEADERS = { 'Content-Type': 'application/json' };
const mib = (kib) => `${(kib / 1024).toFixed(1)} MiB`;
const start = (args, options = {}) => startServer(args, { script: scripts.dir, stopTimeoutMs: 10_000, ...options });

async function stalled(port, body, path = API.chat.path) {
  const c = await RawConn.open(port, { keepBytes: 4096 });
  c.pause();
  c.write(requestBytes({ method: 'POST', path, port, headers: JSON_HEADERS, body }));
  return c;
}

async function rssWithStalledReaders() {
  const server = await start(['--write-timeout', writeTimeout]);
  const conns = [];
  try {
    await postJson(server.port, API.chat.path, API.chat.body('long', { stream: true }), { timeoutMs: 10_000 });
    await sleep(300);
    const baseline = rssKiB(server.pid);
    for (let k = 0; k < 100; k += 1) {
      conns.push(await stalled(server.port, API.chat.body('big', { stream: true, max_tokens: 100_000_000 })));
    }
    let peak = baseline;
    const t0 = performance.now();
    let cutMs = null;
    while (performance.now() - t0 < (Number(writeTimeout) + 20) * 1000) {
      peak = Math.max(peak, rssKiB(server.pid));
      const streams = await rawMetric(server.port, 'crux_active_streams').catch(() => NaN);
      if (streams === 0) { cutMs = performance.now() - t0; break; }
      await sleep(100);
    }
    await sleep(500);
    const afterCut = rssKiB(server.pid);
    console.log(`1. RSS, 100 stalled streaming readers (--write-timeout ${writeTimeout}, --max-buffered-bytes default):`);
    console.log(`   baseline ${mib(baseline)}, peak while stalled ${mib(peak)}, after they were cut ${mib(afterCut)}`);
    console.log(`   all 100 cut after ${cutMs === null ? 'NOT within the wait' : `${Math.round(cutMs)} ms`}`);
  } finally {
    for (const c of conns) c.destroy();
    await server.stop();
  }
}

async function slotFreed() {
  const results = [];
  for (const [label, extra, body] of [
    ['stream', [], API.chat.body('big', { stream: true, max_tokens: 100_000_000 })],
    ['stream, --max-buffered-bytes 256 MiB (the write timeout cuts)', ['--max-buffered-bytes', String(256 << 20)],
      API.chat.body('big', { stream: true, max_tokens: 100_000_000 })],
    ['JSON (~9 MB body; the slot frees once it is generated)', [], API.chat.body('ctl', { max_tokens: 100_000_000 })],
  ]) {
    const server = await start(['--max-concurrent-requests', '1', '--write-timeout', writeTimeout, ...extra]);
    let conn;
    try {
      const t0 = performance.now();
      conn = await stalled(server.port, body);
      let status = 0;
      const ok = await pollUntil(async () => {
        status = (await postJson(server.port, API.chat.path, API.chat.body('plain'), { timeoutMs: 2000 })).status;
        return status === 200;
      }, { timeoutMs: (Number(writeTimeout) + 30) * 1000, everyMs: 20 });
      results.push(`${label}: ${ok ? `${Math.round(performance.now() - t0)} ms` : `not freed (last status ${status})`}`);
    } finally {
      conn?.destroy();
      await server.stop();
    }
  }
  console.log(`2. Stalled reader to a free concurrency slot (--max-concurrent-requests 1, --write-timeout ${writeTimeout}):`);
  for (const r of results) console.log(`   ${r}`);
}

async function idleSocketsCpu() {
  const server = await start(['--tokens-per-second', '0'], { wrap: ['bash', '-c', 'ulimit -n 256 && exec "$0" "$@"'] });
  let conns = [];
  try {
    const opened = await openIdle(server.port, 1100, { batch: 100, timeoutMs: 3000 });
    conns = opened.conns;
    await sleep(500);
    const t0 = performance.now();
    let health = 'no answer';
    try {
      health = String((await request(server.port, { path: '/health', timeoutMs: 5000 })).status);
    } catch { /* reported below */ }
    const healthMs = performance.now() - t0;
    const cpu = await cpuPercent(server.pid, 5000);
    const stillOpen = conns.filter((c) => !c.closed).length;
    console.log('3. 1,100 idle sockets against crux under ulimit -n 256:');
    console.log(`   connected ${conns.length} (failed ${opened.failed}), still open after 5 s: ${stillOpen}`);
    console.log(`   /health: ${health} in ${Math.round(healthMs)} ms; crux CPU over 5 s: ${cpu.toFixed(1)}% of one core`);
  } finally {
    for (const c of conns) c.destroy();
    await server.stop();
  }
}

async function drain(model, label) {
  const server = await start(['--tokens-per-second', '20', '--drain-timeout', drainTimeout]);
  const conns = [];
  try {
    for (let k = 0; k < 64; k += 1) {
      const api = APIS[k % APIS.length];
      const c = await RawConn.open(server.port);
      c.write(requestBytes({ method: 'POST', path: API[api].path, port: server.port, headers: { ...JSON_HEADERS, Connection: 'close' },
        body: API[api].body(model, { stream: true }) }));
      conns.push({ api, c });
    }
    await Promise.all(conns.map(({ c }) => c.waitText('data:', 5000)));
    const t0 = performance.now();
    server.proc.kill('SIGTERM');
    const exit = await Promise.race([server.exited, sleep((Number(drainTimeout) + 30) * 1000, null)]);
    const ms = performance.now() - t0;
    await Promise.all(conns.map(({ c }) => c.waitClose(2000)));
    const kinds = {};
    for (const { api, c } of conns) {
      const [res] = parseResponses(c.buffer, { closedBody: true });
      const kind = res ? streamEnd(api, res.text).kind : 'no response';
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
    console.log(`   ${label}: exit ${exit ? `code ${exit.code}` : 'NOT within the wait'} after ${Math.round(ms)} ms; ` +
      `stream endings: ${JSON.stringify(kinds)} (terminal event seen: ${64 - (kinds.none ?? 0) - (kinds['no response'] ?? 0)}/64)`);
  } finally {
    for (const { c } of conns) c.destroy();
    await server.stop();
  }
}

try {
  if (only.has(1)) await rssWithStalledReaders();
  if (only.has(2)) await slotFreed();
  if (only.has(3)) await idleSocketsCpu();
  if (only.has(4)) {
    console.log(`4. SIGTERM with 64 streams in flight (--tokens-per-second 20, --drain-timeout ${drainTimeout}):`);
    await drain('long', 'streams longer than the drain');
    await drain('short', 'streams that end within the drain');
  }
} finally {
  scripts.remove();
}

// crux serve --model beside llama.cpp's own llama-server on the same model file, in one run:
// aggregate tokens/s and time to first token at 1, 4 and 8 concurrent streams (the two servers
// alternate, round by round, because a shared machine drifts by tens of percent), crux's share
// of each step, prefill saved by prefix reuse on a 10-turn chat, and the time from request to
// first token for a long conversation whose earlier turns were the previous request.
//
//   node bench/engine/compare.mjs --crux build/release/apps/crux/crux \
//        --llama-server $(scripts/build-llama-cpp.sh --server)/bin/llama-server \
//        --model build/release/models/tiny-qwen3.gguf [--rounds 3] [--tokens 256] [--threads 2]
//        [--conversation-kb 500] [--long-model M.gguf] [--long-repeats 3] [--json]
//
// --long-model: the model for the long conversation, trained for a context that holds it
// (crux smoke-model ... --context-length 262144); default --model. --long-repeats N: the long
// conversation's two requests (the previous turn, then this one) are sent N times; the figures
// are the median and the largest of the N second requests. --rounds 0 skips the streams.
//
// Every stream generates exactly --tokens tokens (the end-of-turn tokens are banned through
// logit_bias, which both servers take), with a streaming Chat Completions request.
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values: opts } = parseArgs({
  options: {
    crux: { type: 'string' },
    'llama-server': { type: 'string' },
    model: { type: 'string' },
    'long-model': { type: 'string' },
    rounds: { type: 'string', default: '3' },
    tokens: { type: 'string', default: '256' },
    threads: { type: 'string', default: '2' },
    parallel: { type: 'string', default: '8' },
    'ctx-size': { type: 'string', default: '4096' },
    'conversation-kb': { type: 'string', default: '500' },
    'long-repeats': { type: 'string', default: '3' },
    json: { type: 'boolean', default: false },
  },
});
for (const key of ['crux', 'model']) {
  if (!opts[key]) throw new Error(`--${key} is required`);
}
const rounds = Number(opts.rounds);
const tokens = Number(opts.tokens);
const parallel = Number(opts.parallel);
const ctx = Number(opts['ctx-size']);
const noEnd = { 151643: -100, 151645: -100 };

// Servers still running when the script ends (an error included) are stopped.
const running = new Set();
process.on('exit', () => { for (const p of running) p.kill('SIGKILL'); });

function start(command, args, ready) {
  const proc = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(proc);
  proc.on('exit', () => running.delete(proc));
  let log = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start:\n${log}`)), 120000);
    const onData = (d) => {
      log += d.toString();
      if (ready.test(log)) {
        clearTimeout(timer);
        resolve({
          proc,
          stop: () => new Promise((r) => { proc.on('exit', r); proc.kill('SIGTERM'); }),
        });
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => reject(new Error(`${command} exited with ${code}:\n${log}`)));
  });
}

async function startCrux(port, slots = parallel, slotCtx = ctx, model = opts.model) {
  const loadStart = performance.now();
  const server = await start(opts.crux, ['serve', '--model', model, '--served-model-name', 'tiny-qwen3', '--port', String(port),
    '--threads', opts.threads, '--parallel', String(slots), '--ctx-size', String(slotCtx)],
  /listening on/);
  return { ...server, url: `http://127.0.0.1:${port}`, name: 'crux', loadMs: performance.now() - loadStart };
}

async function startLlama(port, slots = parallel, slotCtx = ctx, model = opts.model) {
  const loadStart = performance.now();
  const server = await start(opts['llama-server'], ['-m', model, '--port', String(port),
    '-t', opts.threads, '-np', String(slots), '-c', String(slotCtx * slots), '--no-webui'],
  /server is listening|HTTP server listening|listening on/);
  // The model loads after the socket opens: wait for /health.
  for (;;) {
    const res = await fetch(`http://127.0.0.1:${port}/health`).catch(() => null);
    if (res && res.ok) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  return { ...server, url: `http://127.0.0.1:${port}`, name: 'llama-server', loadMs: performance.now() - loadStart };
}

// One streaming request; resolves with the time to the first streamed text and the tokens.
async function stream(url, messages, maxTokens, extra = {}) {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tiny-qwen3', messages, max_tokens: maxTokens, stream: true,
      stream_options: { include_usage: true }, logit_bias: noEnd, seed: 1, ...extra,
    }),
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  let ttft = null;
  let usage = null;
  let buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let at;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const frame = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (!frame.startsWith('data: ') || frame === 'data: [DONE]') continue;
      const data = JSON.parse(frame.slice(6));
      if (data.usage) usage = data.usage;
      const delta = data.choices?.[0]?.delta;
      if (ttft === null && delta && (delta.content || delta.reasoning_content)) ttft = performance.now() - t0;
    }
  }
  return { ttft, ms: performance.now() - t0, usage };
}

async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line ? Number(line.split(' ').pop()) : NaN;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function load(server, concurrency, round) {
  const before = server.name === 'crux' ? {
    crux: await metric(server.url, 'crux_engine_crux_seconds_total'),
    decode: await metric(server.url, 'crux_engine_decode_seconds_total'),
  } : null;
  const t0 = performance.now();
  const runs = await Promise.all(Array.from({ length: concurrency }, (_, i) => stream(server.url,
    [{ role: 'user', content: `Round ${round}, stream ${i}: tell me a long story about the sea.` }],
    tokens, { chat_template_kwargs: { enable_thinking: false } })));
  const wall = (performance.now() - t0) / 1000;
  const generated = runs.reduce((n, r) => n + (r.usage?.completion_tokens ?? 0), 0);
  const out = { tps: generated / wall, ttfts: runs.map((r) => r.ttft), generated };
  if (before) {
    const crux = (await metric(server.url, 'crux_engine_crux_seconds_total')) - before.crux;
    const decode = (await metric(server.url, 'crux_engine_decode_seconds_total')) - before.decode;
    out.share = crux / (crux + decode);
  }
  return out;
}

// A 10-turn chat, each turn resending the history: prompt tokens evaluated vs reused.
async function tenTurns(server) {
  const before = await metric(server.url, 'crux_engine_prompt_tokens_evaluated_total');
  const cachedBefore = await metric(server.url, 'crux_engine_prompt_tokens_cached_total');
  const messages = [];
  let prompt = 0;
  for (let turn = 0; turn < 10; ++turn) {
    messages.push({ role: 'user', content: `Turn ${turn}: ${'a question about ships and harbours '.repeat(20)}` });
    const r = await stream(server.url, messages, 32, { chat_template_kwargs: { enable_thinking: false } });
    prompt += r.usage.prompt_tokens;
    messages.push({ role: 'assistant', content: `Answer ${turn}: ${'the harbour is calm today '.repeat(10)}` });
  }
  return {
    prompt,
    evaluated: (await metric(server.url, 'crux_engine_prompt_tokens_evaluated_total')) - before,
    cached: (await metric(server.url, 'crux_engine_prompt_tokens_cached_total')) - cachedBefore,
  };
}

// A conversation of `kb` KB whose first kb-10 KB was the previous request: time to the first
// token, and (crux) the time from request to submission: decoding, rendering, tokenizing. The
// pair is sent `repeats` times; the first request of the first pair is the cold one.
async function longConversation(server, kb, repeats) {
  const turn = (i) => [
    { role: 'user', content: `Question ${i}: ${'Where do the ships go when the harbour closes? '.repeat(20)}` },
    { role: 'assistant', content: `Answer ${i}: ${'They sail north along the coast to the next port. '.repeat(20)}` },
  ];
  const perTurn = JSON.stringify(turn(0)).length;
  const turns = Math.max(2, Math.round((kb * 1024) / perTurn));
  const earlier = Math.max(1, turns - Math.round((10 * 1024) / perTurn));
  const history = [];
  for (let i = 0; i < earlier; ++i) history.push(...turn(i));
  const previous = [...history, { role: 'user', content: 'And then?' }];
  for (let i = earlier; i < turns; ++i) history.push(...turn(i));
  const messages = [...history, { role: 'user', content: 'And then?' }];
  const out = { bytes: JSON.stringify({ messages }).length, ttftMs: [], prepareMs: [] };
  for (let r = 0; r < repeats; ++r) {
    const first = await stream(server.url, previous, 1);
    if (r === 0) out.coldMs = first.ttft ?? first.ms;
    const prepareBefore = server.name === 'crux' ? await metric(server.url, 'crux_request_prepare_seconds_sum') : 0;
    const second = await stream(server.url, messages, 1);
    out.ttftMs.push(second.ttft ?? second.ms);
    out.promptTokens = second.usage?.prompt_tokens;
    if (server.name === 'crux') {
      out.prepareMs.push(((await metric(server.url, 'crux_request_prepare_seconds_sum')) - prepareBefore) * 1000);
    }
  }
  return out;
}

const results = { load: {}, servers: {} };
const servers = [await startCrux(18300)];
if (opts['llama-server']) servers.push(await startLlama(18301));
for (const s of servers) results.servers[s.name] = { loadMs: s.loadMs };
// Warm-up, then rounds alternating the order of the servers.
for (const s of servers) await load(s, 1, -1);
for (let round = 0; round < rounds; ++round) {
  const order = round % 2 === 0 ? servers : [...servers].reverse();
  for (const concurrency of [1, 4, 8]) {
    for (const s of order) {
      const r = await load(s, concurrency, round);
      const key = `${s.name}@${concurrency}`;
      (results.load[key] ||= []).push(r);
    }
  }
}
results.tenTurns = await tenTurns(servers[0]);
for (const s of servers) await s.stop();

// The long conversation needs a context that holds it: one slot each.
const kb = Number(opts['conversation-kb']);
if (kb > 0) {
  const big = Math.ceil((kb * 1024) / 2.5) + 4096;
  // A model trained for a context that holds the conversation (llama-server caps the context
  // at the model's): crux smoke-model --context-length 262144.
  const model = opts['long-model'] || opts.model;
  const longServers = [await startCrux(18302, 1, big, model)];
  if (opts['llama-server']) longServers.push(await startLlama(18303, 1, big, model));
  results.long = {};
  for (const s of longServers) {
    results.long[s.name] = await longConversation(s, kb, Math.max(1, Number(opts['long-repeats'])));
    await s.stop();
  }
}

if (opts.json) {
  console.log(JSON.stringify(results, null, 2));
} else {
  console.log('server        streams  tokens/s (per round)          TTFT p50 / p99 ms   crux share');
  for (const [key, runs] of Object.entries(results.load)) {
    const ttfts = runs.flatMap((r) => r.ttfts).filter((t) => t !== null);
    const share = runs[0].share !== undefined
      ? `${(100 * runs.reduce((a, r) => a + r.share, 0) / runs.length).toFixed(1)} %` : '';
    const [name, c] = key.split('@');
    console.log(`${name.padEnd(14)}${c.padStart(7)}  ${runs.map((r) => r.tps.toFixed(0)).join(' / ').padEnd(28)}  ` +
      `${percentile(ttfts, 0.5).toFixed(1)} / ${percentile(ttfts, 0.99).toFixed(1)}`.padEnd(20) + `${share}`);
  }
  for (const [name, s] of Object.entries(results.servers)) console.log(`${name}: model load to ready ${s.loadMs.toFixed(0)} ms`);
  const t = results.tenTurns;
  console.log(`crux, 10-turn chat: ${t.prompt} prompt tokens, ${t.evaluated} evaluated, ${t.cached} reused from the cache`);
  const median = (v) => percentile(v, 0.5);
  for (const [name, l] of Object.entries(results.long ?? {})) {
    console.log(`${name}, ${(l.bytes / 1024).toFixed(0)} KB conversation (${l.promptTokens} tokens), the first ${kb - 10} KB cached, ` +
      `${l.ttftMs.length} requests: first token median ${median(l.ttftMs).toFixed(1)} ms, max ${Math.max(...l.ttftMs).toFixed(1)} ms ` +
      `(cold: ${l.coldMs.toFixed(0)} ms)` +
      (l.prepareMs.length ? `; crux before the engine: median ${median(l.prepareMs).toFixed(2)} ms, max ${Math.max(...l.prepareMs).toFixed(2)} ms` : ''));
  }
}

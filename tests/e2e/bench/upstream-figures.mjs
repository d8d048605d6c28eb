// Figures for `crux serve --engine upstream` in front of llama.cpp's llama-server on the tiny
// Qwen3 model (run by hand; not a test):
//   1. added latency per request (time to the first token) and per token (gap between tokens),
//      through crux (Chat Completions, streaming) versus the upstream's /v1/completions called
//      directly with the same rendered prompt and the same seed, interleaved in one run: p50/p99
//   2. throughput (generated tokens per second over all streams) at 8 and 32 concurrent
//      streams: the upstream directly, crux in front of one upstream, crux in front of two
//
//   cd tests/e2e && CRUX_BIN=../../build/release/apps/crux/crux \
//     CRUX_TINY_MODEL=/tmp/tiny-qwen3.gguf CRUX_LLAMA_SERVER=…/llama-server \
//     node bench/upstream-figures.mjs [1,2]
//
// Environment: RUNS (latency samples, default 200), TOKENS (per request, default 32).
import { setTimeout as sleep } from 'node:timers/promises';

import { spawnServer } from '../lib/server.mjs';
import { freePort, llamaServer } from '../lib/upstream.mjs';

const only = new Set((process.argv[2] ?? '1,2').split(',').map(Number));
const runs = Number(process.env.RUNS ?? 200);
const tokens = Number(process.env.TOKENS ?? 32);
const noEnd = { 151643: -100, 151645: -100 };  // every request runs to max_tokens

async function startUpstream() {
  const server = llamaServer(await freePort(), ['-c', '65536', '-np', '32']);
  await server.start();
  return { url: server.url, stop: () => server.kill() };
}

// Streams one request; resolves with the time to the first text and the gaps between texts.
async function timed(url, body) {
  const start = performance.now();
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let first = null;
  let last = null;
  const gaps = [];
  let pending = '';
  let count = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    pending += decoder.decode(value, { stream: true });
    let at;
    while ((at = pending.indexOf('\n\n')) >= 0) {
      const event = pending.slice(0, at);
      pending = pending.slice(at + 2);
      const data = event.split('\n').find((l) => l.startsWith('data: '))?.slice(6);
      if (!data || data === '[DONE]') continue;
      const chunk = JSON.parse(data);
      const text = chunk.choices?.[0]?.text ?? chunk.choices?.[0]?.delta?.content ?? '';
      if (!text) continue;
      const now = performance.now();
      if (first === null) first = now - start;
      else gaps.push(now - last);
      last = now;
      ++count;
    }
  }
  return { first, gaps, count, total: performance.now() - start };
}

const pct = (values, p) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const fmt = (ms) => (ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`);

function chatBody(i) {
  return {
    model: 'tiny-qwen3', stream: true, max_tokens: tokens, temperature: 0, logit_bias: noEnd,
    messages: [{ role: 'user', content: `Question number ${i}` }], chat_template_kwargs: { enable_thinking: false },
  };
}

// The prompt crux renders for chatBody(i) with the Qwen3 template.
function rawBody(i) {
  return {
    model: 'tiny-qwen3', stream: true, max_tokens: tokens, temperature: 0, logit_bias: noEnd,
    prompt: `<|im_start|>user\nQuestion number ${i}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`,
  };
}

async function latency(upstream, crux) {
  const direct = [];
  const through = [];
  for (let i = 0; i < runs; ++i) {
    direct.push(await timed(`${upstream.url}/v1/completions`, rawBody(i)));
    through.push(await timed(`${crux.url}/v1/chat/completions`, chatBody(i)));
  }
  const firsts = (xs) => xs.map((x) => x.first);
  const gaps = (xs) => xs.flatMap((x) => x.gaps);
  console.log(`1. latency, ${runs} requests each, ${tokens} tokens, interleaved`);
  for (const [name, xs] of [['upstream directly', direct], ['through crux     ', through]]) {
    console.log(`   ${name}: first token p50 ${fmt(pct(firsts(xs), 50))} p99 ${fmt(pct(firsts(xs), 99))}; ` +
      `between tokens p50 ${fmt(pct(gaps(xs), 50))} p99 ${fmt(pct(gaps(xs), 99))}`);
  }
  const added = direct.map((d, i) => through[i].first - d.first);
  console.log(`   added per request (paired): p50 ${fmt(pct(added, 50))} p99 ${fmt(pct(added, 99))}`);
  console.log(`   added per token: p50 ${fmt(pct(gaps(through), 50) - pct(gaps(direct), 50))} ` +
    `p99 ${fmt(pct(gaps(through), 99) - pct(gaps(direct), 99))}`);
}

async function throughput(label, url, path, body, streams) {
  const start = performance.now();
  const results = await Promise.all(Array.from({ length: streams }, (_, i) => timed(`${url}${path}`, body(i))));
  const seconds = (performance.now() - start) / 1000;
  const generated = results.reduce((n, r) => n + r.count, 0);
  console.log(`   ${label}, ${streams} streams: ${(generated / seconds).toFixed(0)} tokens/s ` +
    `(${generated} in ${seconds.toFixed(2)} s)`);
}

const a = await startUpstream();
const b = await startUpstream();
const one = await spawnServer(['serve', '--upstream', a.url], { startTimeoutMs: 60000 });
const two = await spawnServer(['serve', '--upstream', `${a.url},${b.url}`], { startTimeoutMs: 60000 });
try {
  if (only.has(1)) await latency(a, one);
  if (only.has(2)) {
    console.log(`2. throughput, ${tokens} tokens per stream`);
    for (const streams of [8, 32]) {
      await throughput('upstream directly   ', a.url, '/v1/completions', rawBody, streams);
      await throughput('crux, one upstream  ', one.url, '/v1/chat/completions', chatBody, streams);
      await throughput('crux, two upstreams ', two.url, '/v1/chat/completions', chatBody, streams);
    }
  }
} finally {
  await one.stop();
  await two.stop();
  a.stop();
  b.stop();
}

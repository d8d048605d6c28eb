// Load run: N concurrent streaming clients against `crux serve --engine mock` for D seconds.
// Prints requests served, errors, time-to-first-byte and total-time percentiles, and the
// server's resident memory at the start, during the run and at the end.
//
// Usage: CRUX_BIN=build/release/apps/crux/crux node bench/load/load.mjs [--clients 64]
//        [--seconds 60] [--api chat|messages|responses] [--tokens-per-second 0]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const arg = (name, def) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : def;
};
const clients = Number(arg('clients', 64));
const seconds = Number(arg('seconds', 60));
const api = arg('api', 'chat');
const tps = arg('tokens-per-second', '0');

const scripts = path.join(here, '..', '..', 'tests', 'e2e', 'scripts');
const server = spawn(process.env.CRUX_BIN, ['serve', '--engine', 'mock', '--script', scripts, '--port', '0',
  '--reasoning-parser', 'qwen3', '--tool-call-parser', 'hermes', '--tokens-per-second', tps],
{ stdio: ['ignore', 'ignore', 'pipe'] });
let log = '';
const port = await new Promise((resolve, reject) => {
  server.stderr.on('data', (d) => {
    log += d;
    const m = log.match(/listening on http:\/\/[^:]+:(\d+)/);
    if (m) resolve(Number(m[1]));
  });
  server.on('exit', () => reject(new Error(log)));
});
server.stderr.removeAllListeners('data');
server.stderr.resume();
const rss = () => Number(readFileSync(`/proc/${server.pid}/status`, 'utf8').match(/VmRSS:\s+(\d+)/)[1]);

const url = `http://127.0.0.1:${port}`;
const bodies = {
  chat: ['/v1/chat/completions', { model: 'weather', stream: true, messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }] }],
  messages: ['/v1/messages', { model: 'weather', stream: true, max_tokens: 1024, messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ name: 'get_weather', input_schema: { type: 'object' } }] }],
  responses: ['/v1/responses', { model: 'weather', stream: true, input: 'Weather?',
    tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }] }],
};
const [route, body] = bodies[api];
const payload = JSON.stringify(body);

// Warm up, then measure.
await fetch(url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload }).then((r) => r.text());
const rssStart = rss();
const ttfb = [];
const total = [];
let served = 0;
let errors = 0;
const deadline = Date.now() + seconds * 1000;

async function client() {
  while (Date.now() < deadline) {
    const t0 = performance.now();
    try {
      const res = await fetch(url + route, { method: 'POST', headers: { 'content-type': 'application/json' }, body: payload });
      const reader = res.body.getReader();
      let first = true;
      let text = '';
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (first) {
          ttfb.push(performance.now() - t0);
          first = false;
        }
        text += decoder.decode(value, { stream: true });
      }
      const ok = res.status === 200 && (text.includes('[DONE]') || text.includes('message_stop') || text.includes('response.completed'));
      if (ok) served += 1; else errors += 1;
      total.push(performance.now() - t0);
    } catch {
      errors += 1;
    }
  }
}

// Memory over the run: a level reached in the first seconds (connections, buffers) that then
// stays flat shows no growth per request.
const rssSeries = [];
const sampler = setInterval(() => rssSeries.push(rss()), Math.max(1000, (seconds * 1000) / 12));
await Promise.all(Array.from({ length: clients }, client));
clearInterval(sampler);
const rssEnd = rss();
server.kill('SIGTERM');

const pct = (v, p) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))] : NaN;
};
console.log(JSON.stringify({
  api, clients, seconds, served, errors, requests_per_second: +(served / seconds).toFixed(1),
  ttfb_ms: { p50: +pct(ttfb, 0.5).toFixed(2), p99: +pct(ttfb, 0.99).toFixed(2), max: +pct(ttfb, 1).toFixed(2) },
  total_ms: { p50: +pct(total, 0.5).toFixed(2), p99: +pct(total, 0.99).toFixed(2) },
  server_rss_kb: { start: rssStart, end: rssEnd, during: rssSeries },
}, null, 2));

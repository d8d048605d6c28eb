// Starts `crux serve --engine mock` on a free port and stops it; shared by the e2e tests.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const scriptsDir = path.join(here, '..', 'scripts');

export function cruxBinary() {
  const bin = process.env.CRUX_BIN;
  if (!bin) throw new Error('CRUX_BIN must point to the crux binary');
  return bin;
}

// Starts the server with extra flags; resolves once it listens.
// Options (all optional, for the hostile-client suites): `script` replaces the scripts
// directory; `wrap` is a command the binary runs under (e.g. ['bash', '-c', 'ulimit -n 128 &&
// exec "$0" "$@"'], which receives the binary as $0); `port` listens on that port instead of
// a free one; `env` adds environment variables;
// `stopTimeoutMs` bounds stop(): after it, the server is killed (SIGKILL).
export async function startServer(extraArgs = [], options = {}) {
  const { script = scriptsDir } = options;
  return spawnServer(['serve', '--engine', 'mock', '--script', script,
    '--reasoning-parser', 'qwen3', '--tool-call-parser', 'hermes', ...extraArgs], options);
}

// Starts `crux <args> --port N` and resolves once it listens (any `crux serve`: the mock
// engine above, a model in lib/model.mjs). Options as startServer's, and `startTimeoutMs`.
export async function spawnServer(args, options = {}) {
  const { wrap = null, env = {}, stopTimeoutMs = 15000, port: fixedPort = 0, startTimeoutMs = 15000 } = options;
  const full = [...args, '--port', String(fixedPort)];
  const [command, argv] = wrap ? [wrap[0], [...wrap.slice(1), cruxBinary(), ...full]] : [cruxBinary(), full];
  const proc = spawn(command, argv, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env } });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`crux serve did not start:\n${log}`)), startTimeoutMs);
    proc.stderr.on('data', (d) => {
      log += d.toString();
      const m = log.match(/listening on http:\/\/(?:\[[^\]]*\]|[^:/]+):(\d+)/);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`crux serve exited with ${code}:\n${log}`));
    });
  });
  proc.stderr.removeAllListeners('data');
  proc.stderr.on('data', (d) => { if (log.length < 1 << 20) log += d.toString(); });
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    proc,
    pid: proc.pid,
    exited,
    log: () => log,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      let timer;
      const late = new Promise((resolve) => { timer = setTimeout(resolve, stopTimeoutMs, 'late'); });
      if (await Promise.race([exited, late]) === 'late') {
        proc.kill('SIGKILL');
        await exited;
      }
      clearTimeout(timer);
    },
  };
}

// Reads the Prometheus text of the server and returns the value of one sample.
export async function metric(url, name) {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(name + ' ') || l.startsWith(name + '{'));
  return line ? Number(line.split(' ').pop()) : NaN;
}

export const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
      required: ['city'],
    },
  },
};

export const timeTool = {
  type: 'function',
  function: {
    name: 'get_time',
    description: 'Current time in a timezone',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
  },
};

// Turn `index` (0-based) of the mock script `model`, split the way the configured parsers
// (qwen3 reasoning, hermes tools) split it: the reasoning, the visible text and the tool calls.
export function scriptedTurn(model, index) {
  const turns = readFileSync(path.join(scriptsDir, `${model}.txt`), 'utf8').split(/\n--- next turn ---\n/);
  if (index >= turns.length) throw new Error(`${model}.txt has no turn ${index + 1}`);
  const raw = turns[index];
  const think = raw.match(/<think>([\s\S]*?)<\/think>/);
  const toolCalls = [...raw.matchAll(/<tool_call>([\s\S]*?)<\/tool_call>/g)].map((m) => JSON.parse(m[1]));
  const text = raw.replace(/<think>[\s\S]*?<\/think>/, '').replace(/<tool_call>[\s\S]*?<\/tool_call>/g, '').trim();
  return { reasoning: think ? think[1].trim() : null, text, toolCalls };
}

// The texts the framework suites (ai-sdk, langchain) expect, from the scripts they use: the
// greeting with its reasoning, the weather call's reasoning, and the two turns of a chat.
export function frameworkTexts() {
  const hello = scriptedTurn('reasoning', 0);
  return {
    HELLO: hello.text,
    HELLO_REASONING: hello.reasoning,
    WEATHER_REASONING: scriptedTurn('weather', 0).reasoning,
    TURN_1: scriptedTurn('fw-two-turns', 0).text,
    TURN_2: scriptedTurn('fw-two-turns', 1).text,
  };
}

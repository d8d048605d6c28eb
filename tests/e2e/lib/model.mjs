// Starts `crux serve --model` on the tiny random-weight Qwen3 model (CRUX_TINY_MODEL, written
// by scripts/tiny-model.sh) and stops it. The model's words are noise, but its markers are real
// tokens: the tests check structure (schema-valid JSON, well-formed calls, budgets, counts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruxBinary } from './server.mjs';

// llama.cpp's tree (scripts/fetch-llama-cpp.sh): its chat templates.
export function llamaCppDir() {
  if (process.env.CRUX_LLAMA_CPP_DIR) return process.env.CRUX_LLAMA_CPP_DIR;
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'crux', 'llama.cpp');
}

export function tinyModel() {
  const model = process.env.CRUX_TINY_MODEL;
  return model && existsSync(model) ? model : null;
}

export async function startModelServer(extraArgs = []) {
  const args = ['serve', '--model', tinyModel(), '--port', '0', '--threads', '1', ...extraArgs];
  const proc = spawn(cruxBinary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  let log = '';
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`crux serve did not start:\n${log}`)), 60000);
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
    exited,
    log: () => log,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// Runs `crux serve` with `args` and resolves with its exit code and stderr (for start-up
// errors).
export function runServe(args) {
  return new Promise((resolve) => {
    const proc = spawn(cruxBinary(), ['serve', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    proc.stderr.on('data', (d) => { log += d.toString(); });
    const timer = setTimeout(() => proc.kill('SIGKILL'), 60000);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, log });
    });
  });
}

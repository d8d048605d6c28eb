// Starts `crux serve --model` on the tiny random-weight Qwen3 model (CRUX_TINY_MODEL, written
// by scripts/tiny-model.sh) and stops it. The model's words are noise, but its markers are real
// tokens: the tests check structure (schema-valid JSON, well-formed calls, budgets, counts).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cruxBinary, spawnServer } from './server.mjs';

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
  return spawnServer(['serve', '--model', tinyModel(), '--threads', '1', ...extraArgs],
    { startTimeoutMs: 60000 });
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

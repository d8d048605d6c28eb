// Starts `crux serve --model` on the tiny random-weight Qwen3 model (CRUX_TINY_MODEL, written
// by scripts/tiny-model.sh) and stops it. The model's words are noise, but its markers are real
// tokens: the tests check structure (schema-valid JSON, well-formed calls, budgets, counts).
import assert from 'node:assert/strict';
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

// A JSON Schema the structured-output tests constrain to, and its check (every keyword of it
// is one a grammar enforces exactly, so every output must pass).
export const place = {
  type: 'object',
  properties: {
    city: { type: 'string', maxLength: 12 },
    unit: { enum: ['celsius', 'fahrenheit'] },
    days: { type: 'integer', minimum: 1, maximum: 7 },
  },
  required: ['city', 'unit', 'days'],
  additionalProperties: false,
};

export function checkPlace(value) {
  assert.equal(typeof value, 'object');
  assert.deepEqual(Object.keys(value).sort(), ['city', 'days', 'unit']);
  assert.equal(typeof value.city, 'string');
  assert.ok([...value.city].length <= 12, `city too long: ${value.city}`);
  assert.ok(['celsius', 'fahrenheit'].includes(value.unit));
  assert.ok(Number.isInteger(value.days) && value.days >= 1 && value.days <= 7);
}

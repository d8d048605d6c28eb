// Helpers for the agent-CLI suites (claude-code.test.mjs, codex.test.mjs): a private temporary
// tree per run, a child process with a hard time limit, and the expected values read from the
// mock scripts themselves so that a script and its test cannot drift apart.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export { scriptedTurn } from './server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const nodeModules = path.join(here, '..', 'node_modules');

// A fresh directory tree for one agent run — home/ (HOME), tmp/ (TMPDIR), work/ (the agent's
// working directory) — removed when the test ends, whatever its outcome.
export function agentTree(t) {
  const root = mkdtempSync(path.join(tmpdir(), 'crux-agent-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const dirs = { root };
  for (const name of ['home', 'tmp', 'work']) {
    dirs[name] = path.join(root, name);
    mkdirSync(dirs[name]);
  }
  return dirs;
}

// Process groups of the agents still running; killed if the test process exits first.
const running = new Set();
process.on('exit', () => {
  for (const pid of running) {
    try { process.kill(-pid, 'SIGKILL'); } catch { /* already gone */ }
  }
});

// Runs `command args` in its own process group with stdin closed. Resolves with the exit code,
// the signal and the whole output; past `timeoutMs` the group (the agent and what it spawned)
// is killed, so a hang fails the test with the output so far instead of blocking the suite.
export function runAgent(command, args, { cwd, env, timeoutMs = 90_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    running.add(child.pid);
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => {
      timedOut = true;
      try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
    }, timeoutMs);
    child.on('error', (e) => { clearTimeout(timer); running.delete(child.pid); reject(e); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      resolve({ code, signal, timedOut, stdout, stderr });
    });
  });
}

// The run's output, for assertion messages (shown only when an assertion fails).
export function transcript(r) {
  const status = r.timedOut ? 'killed after the time limit' : `exit ${r.code}${r.signal ? ` (${r.signal})` : ''}`;
  return `${status}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;
}

// Parses stdout made of JSON lines (stream-json, codex exec --json).
export function jsonLines(stdout) {
  return stdout.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
}

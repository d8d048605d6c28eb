// Claude Code (`claude -p`, the real CLI) against crux's Anthropic Messages endpoint: a plain
// answer, and an agent loop in which the scripted model calls Claude Code's Bash tool, Claude
// Code runs the command and sends its output back, and the model answers. The CLI is kept off
// the network by its own settings and sees only a temporary HOME, TMPDIR and working directory.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { agentTree, jsonLines, nodeModules, runAgent, scriptedTurn, transcript } from './lib/agents.mjs';
import { startServer } from './lib/server.mjs';

const claude = path.join(nodeModules, '.bin', 'claude');
const apiKey = 'crux-e2e-claude-key';
const perTest = { timeout: 120_000 };

describe('Claude Code CLI', () => {
  let server;
  before(async () => {
    server = await startServer(['--api-key', apiKey]);
  });
  after(async () => server?.stop());

  // The environment of one run: crux as the Anthropic API (the key crux was started with), every
  // background connection (update checks, telemetry, error reports, other non-essential
  // traffic) off, and no retries, so that an error from crux fails the run at once.
  const env = (dirs) => ({
    PATH: process.env.PATH,
    HOME: dirs.home,
    TMPDIR: dirs.tmp,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: apiKey,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  });
  const run = (dirs, args) => runAgent(claude, ['-p', ...args, '--no-session-persistence'],
    { cwd: dirs.work, env: env(dirs) });

  test('plain answer: the printed text is the scripted answer', perTest, async (t) => {
    const dirs = agentTree(t);
    const r = await run(dirs, ['Say hello.', '--model', 'cc-plain']);
    assert.equal(r.code, 0, transcript(r));
    assert.equal(r.stdout, `${scriptedTurn('cc-plain', 0).text}\n`, transcript(r));
  });

  test('plain answer as a JSON result: one turn, end_turn, usage from crux', perTest, async (t) => {
    const dirs = agentTree(t);
    const r = await run(dirs, ['Say hello.', '--model', 'cc-plain', '--output-format', 'json']);
    assert.equal(r.code, 0, transcript(r));
    const result = JSON.parse(r.stdout);
    assert.equal(result.type, 'result', transcript(r));
    assert.equal(result.is_error, false, transcript(r));
    assert.equal(result.result, scriptedTurn('cc-plain', 0).text);
    assert.equal(result.num_turns, 1);
    assert.equal(result.stop_reason, 'end_turn');
    assert.ok(result.usage.input_tokens > 0 && result.usage.output_tokens > 0, JSON.stringify(result.usage));
  });

  test('Bash tool loop: the command runs, its output goes back, the final answer is printed', perTest, async (t) => {
    const dirs = agentTree(t);
    const first = scriptedTurn('cc-bash', 0);
    const final = scriptedTurn('cc-bash', 1);
    assert.equal(first.toolCalls.length, 1);
    const call = first.toolCalls[0];

    const r = await run(dirs, ['Write the marker file.', '--model', 'cc-bash', '--allowedTools', 'Bash',
      '--output-format', 'stream-json', '--verbose']);
    assert.equal(r.code, 0, transcript(r));

    // The command really ran in the working directory: the file holds what printf made of its
    // arguments (the literal text is not in the script).
    assert.equal(readFileSync(path.join(dirs.work, 'cc-marker.txt'), 'utf8'), 'cc-marker-written', transcript(r));

    const messages = jsonLines(r.stdout);
    const blocks = (role) => messages.filter((m) => m.type === role).flatMap((m) => m.message.content);
    const assistant = blocks('assistant');
    // Turn 1: the reasoning as a thinking block, the text, then the Bash call as scripted.
    const thinking = assistant.filter((b) => b.type === 'thinking');
    assert.deepEqual(thinking.map((b) => b.thinking), [first.reasoning], transcript(r));
    const uses = assistant.filter((b) => b.type === 'tool_use');
    assert.equal(uses.length, 1, transcript(r));
    assert.equal(uses[0].name, 'Bash');
    assert.deepEqual(uses[0].input, call.arguments);
    // The command's output went back to the model as the result of that call.
    const results = blocks('user').filter((b) => b.type === 'tool_result');
    assert.equal(results.length, 1, transcript(r));
    assert.equal(results[0].tool_use_id, uses[0].id);
    assert.equal(results[0].is_error, false, transcript(r));
    assert.equal(results[0].content, 'six times seven is 42');
    // Turn 2: the final answer.
    const texts = assistant.filter((b) => b.type === 'text').map((b) => b.text);
    assert.deepEqual(texts, [first.text, final.text], transcript(r));
    const result = messages.at(-1);
    assert.equal(result.type, 'result', transcript(r));
    assert.equal(result.is_error, false, transcript(r));
    assert.equal(result.num_turns, 2);
    assert.equal(result.result, final.text);
  });
});

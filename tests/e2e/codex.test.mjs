// Codex CLI (`codex exec`, the real CLI) against crux's Responses endpoint through a custom
// model provider: a plain answer, and an agent loop in which the scripted model calls Codex's
// shell tool (`exec_command`, declared by Codex in the request's `tools`; crux turns the
// model's hermes <tool_call> into a Responses function_call), Codex runs the command in its
// sandbox and sends the output back, and the model answers. Codex is kept off the network by
// its own config and sees only a temporary CODEX_HOME, HOME, TMPDIR and working directory.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { agentTree, jsonLines, nodeModules, runAgent, scriptedTurn, transcript } from './lib/agents.mjs';
import { startServer } from './lib/server.mjs';

const codex = path.join(nodeModules, '@openai', 'codex', 'bin', 'codex.js');
const apiKey = 'crux-e2e-codex-key';
const perTest = { timeout: 120_000 };

// config.toml: crux as the only provider (Responses wire API, key from CRUX_API_KEY, no retries
// so a server error fails at once); no update check, analytics, feedback, OpenTelemetry, web
// search, history file or plugin sync (the plugin sync clones from github.com); shell commands
// run without approval in the workspace-write sandbox (the working directory and TMPDIR are
// writable, the network is not).
function codexConfig(baseUrl) {
  return `model_provider = "crux"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false
web_search = "disabled"

[model_providers.crux]
name = "crux"
base_url = "${baseUrl}/v1"
wire_api = "responses"
env_key = "CRUX_API_KEY"
request_max_retries = 0
stream_max_retries = 0

[sandbox_workspace_write]
network_access = false

[features]
plugins = false

[analytics]
enabled = false

[feedback]
enabled = false

[otel]
exporter = "none"
trace_exporter = "none"
metrics_exporter = "none"

[history]
persistence = "none"
`;
}

describe('Codex CLI', () => {
  let server;
  before(async () => {
    server = await startServer(['--api-key', apiKey]);
  });
  after(async () => server?.stop());

  // `codex exec` in a fresh tree; --strict-config makes a config key this Codex does not know
  // an error instead of a silently ignored (and possibly network-enabling) setting.
  function run(dirs, model, prompt, extra = []) {
    writeFileSync(path.join(dirs.home, 'config.toml'), codexConfig(server.url));
    const env = { PATH: process.env.PATH, HOME: dirs.home, CODEX_HOME: dirs.home, TMPDIR: dirs.tmp, CRUX_API_KEY: apiKey };
    return runAgent(process.execPath, [codex, 'exec', '--strict-config', '--skip-git-repo-check', '--ephemeral',
      '--model', model, ...extra, prompt], { cwd: dirs.work, env });
  }

  test('plain answer: the final message is printed', perTest, async (t) => {
    const dirs = agentTree(t);
    const r = await run(dirs, 'codex-plain', 'Say hello.');
    assert.equal(r.code, 0, transcript(r));
    // Without --json, stdout holds the final message alone (the session log goes to stderr).
    assert.equal(r.stdout, `${scriptedTurn('codex-plain', 0).text}\n`, transcript(r));
  });

  test('shell tool loop: the command runs, its output goes back, the final message is printed', perTest, async (t) => {
    const dirs = agentTree(t);
    const first = scriptedTurn('codex-shell', 0);
    const final = scriptedTurn('codex-shell', 1);
    assert.equal(first.toolCalls.length, 1);
    assert.equal(first.toolCalls[0].name, 'exec_command');

    const r = await run(dirs, 'codex-shell', 'Write the marker file.', ['--json']);
    assert.equal(r.code, 0, transcript(r));

    // The command really ran in the working directory: the file holds what printf made of its
    // arguments (the literal text is not in the script).
    assert.equal(readFileSync(path.join(dirs.work, 'codex-marker.txt'), 'utf8'), 'codex-marker-written', transcript(r));

    const events = jsonLines(r.stdout);
    const items = events.filter((e) => e.type === 'item.completed').map((e) => e.item);
    const commands = items.filter((i) => i.type === 'command_execution');
    assert.equal(commands.length, 1, transcript(r));
    assert.ok(commands[0].command.includes('codex-marker.txt'), commands[0].command);
    assert.equal(commands[0].exit_code, 0, transcript(r));
    assert.equal(commands[0].status, 'completed');
    assert.equal(commands[0].aggregated_output, 'six times seven is 42\n');
    // The text around the call: turn 1's text (its reasoning split off by crux), then turn 2's
    // answer, which Codex only gets after sending the command's output back.
    const messages = items.filter((i) => i.type === 'agent_message').map((i) => i.text);
    assert.deepEqual(messages, [first.text, final.text], transcript(r));
    assert.ok(items.indexOf(commands[0]) < items.findLastIndex((i) => i.type === 'agent_message'));
    const done = events.at(-1);
    assert.equal(done.type, 'turn.completed', transcript(r));
    // crux reports the reasoning tokens of turn 1 (the <think> block) in the usage.
    assert.ok(done.usage.reasoning_output_tokens > 0, JSON.stringify(done.usage));
    assert.ok(done.usage.input_tokens > 0 && done.usage.output_tokens > 0, JSON.stringify(done.usage));
  });
});

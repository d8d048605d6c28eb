// MCP through `crux serve --mcp-config`: the reference servers from npm (server-filesystem on
// a temporary directory, server-everything) listed and called over HTTP, and the server-side
// tool loop driven by the official SDKs — the mock engine scripts a model that writes a file
// with server-filesystem, reads it back, then answers; every call really runs.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';

import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';

import { startServer } from './lib/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const modules = path.join(here, 'node_modules', '@modelcontextprotocol');
const KEY = 'sk-mcp-test';

// Scripted turns of the model, one file per model name (the mock engine's scripts directory).
function writeScripts(dir, root) {
  const call = (name, args) => `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
  const note = path.join(root, 'note.txt');
  const turns = {
    // Writes a file, reads it back, then answers: two rounds of the loop.
    'fs-loop': [
      `I'll write the note first.\n${call('fs__write_file', { path: note, content: 'crux was here' })}`,
      call('fs__read_text_file', { path: note }),
      'The note says: crux was here.',
    ],
    // Two calls in one round: they run at once, and are reported in the model's order.
    'fs-two': [
      call('fs__write_file', { path: path.join(root, 'a.txt'), content: 'A' }) +
        call('fs__write_file', { path: path.join(root, 'b.txt'), content: 'B' }),
      'Both written.',
    ],
    // A call the policy refuses (a path under /etc/): an error result, then an answer.
    'fs-refused': [call('fs__read_text_file', { path: '/etc/passwd' }), 'I may not read that file.'],
    // A call to a tool the client declared: returned to the client as usual.
    'client-tool': [call('get_weather', { city: 'Paris' })],
  };
  for (const [model, parts] of Object.entries(turns)) {
    writeFileSync(path.join(dir, `${model}.txt`), parts.join('\n--- next turn ---\n'));
  }
  return note;
}

describe('MCP servers behind crux serve', { skip: !existsSync(modules) && 'npm ci in tests/e2e first' }, () => {
  let server;
  let root;
  let scripts;
  let note;
  let openai;
  let anthropic;
  const user = [{ role: 'user', content: 'Leave a note and read it back.' }];

  before(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'crux-mcp-root-'));
    scripts = mkdtempSync(path.join(os.tmpdir(), 'crux-mcp-scripts-'));
    note = writeScripts(scripts, root);
    const config = path.join(scripts, 'mcp.json');
    writeFileSync(config, JSON.stringify({
      mcpServers: {
        fs: { command: 'node', args: [path.join(modules, 'server-filesystem/dist/index.js'), root] },
        everything: { command: 'node', args: [path.join(modules, 'server-everything/dist/index.js'), 'stdio'] },
      },
      max_tool_calls: 4,
    }));
    server = await startServer(['--mcp-config', config, '--mcp-tool-loop', '--api-key', KEY],
      { script: scripts, startTimeoutMs: 30000 });
    openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
  });
  after(async () => {
    await server?.stop();
    rmSync(root, { recursive: true, force: true });
    rmSync(scripts, { recursive: true, force: true });
  });

  const get = async (p, key = KEY) => fetch(`${server.url}${p}`, { headers: { authorization: `Bearer ${key}` } });
  const execute = async (body) => fetch(`${server.url}/v1/mcp/execute`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

  test('servers and tools are listed, behind the API key', async () => {
    const servers = await (await get('/v1/mcp/servers')).json();
    assert.deepEqual(servers.servers.map((s) => [s.name, s.state]), [['fs', 'connected'], ['everything', 'connected']]);
    const tools = await (await get('/v1/mcp/tools')).json();
    assert.equal(tools.count, tools.tools.length);
    assert.ok(tools.tools.some((t) => t.name === 'fs__read_text_file' && t.server === 'fs'));
    assert.ok(tools.tools.some((t) => t.name === 'everything__get-sum'));
    assert.equal((await get('/v1/mcp/tools', 'wrong')).status, 401);
    const health = await (await fetch(`${server.url}/health`)).json();
    assert.deepEqual(health.mcp, { enabled: true, servers_connected: 2, servers_total: 2, tools_available: tools.count });
  });

  test('/v1/mcp/execute runs a tool; a refused or failing call is an error result', async () => {
    const sum = await (await execute({ tool_name: 'everything__get-sum', arguments: { a: 2, b: 40 } })).json();
    assert.equal(sum.content, 'The sum of 2 and 40 is 42.');
    assert.equal(sum.is_error, false);
    const refused = await (await execute({ tool_name: 'fs__read_text_file', arguments: { path: '/etc/passwd' } })).json();
    assert.equal(refused.is_error, true);
    assert.match(refused.error_message, /blocked pattern: \/etc\//);
    const outside = await (await execute({ tool_name: 'fs__list_directory', arguments: { path: os.homedir() } })).json();
    assert.equal(outside.is_error, true);
    const bad = await execute({ arguments: {} });
    assert.equal(bad.status, 400);
    const metrics = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(metrics, /crux_mcp_calls_total\{result="ok"\} [1-9]/);
    assert.match(metrics, /crux_mcp_calls_total\{result="error"\} [1-9]/);
  });

  test('chat completions: the loop runs both calls and answers (non-streaming)', async () => {
    rmSync(note, { force: true });
    const r = await openai.chat.completions.create({ model: 'fs-loop', messages: user, mcp_tools: ['fs'] });
    const message = r.choices[0].message;
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.equal(message.tool_calls, undefined);
    assert.deepEqual(message.mcp_calls.map((c) => [c.server, c.name, c.is_error]),
      [['fs', 'write_file', false], ['fs', 'read_text_file', false]]);
    assert.equal(message.mcp_calls[1].output, 'crux was here');
    assert.equal(readFileSync(note, 'utf8'), 'crux was here');
    assert.match(message.content, /The note says: crux was here\.$/);
  });

  test('chat completions: streamed, each call arrives between the rounds', async () => {
    rmSync(note, { force: true });
    const stream = await openai.chat.completions.create({ model: 'fs-loop', messages: user, mcp_tools: true, stream: true });
    const order = [];
    let content = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta ?? {};
      if (delta.mcp_call) order.push(`call:${delta.mcp_call.name}`);
      if (delta.content) {
        content += delta.content;
        if (order.at(-1) !== 'text') order.push('text');
      }
      assert.equal(delta.tool_calls, undefined);
    }
    assert.deepEqual(order, ['text', 'call:write_file', 'call:read_text_file', 'text']);
    assert.match(content, /crux was here\.$/);
  });

  test('chat completions: two calls in one round both run, reported in order', async () => {
    const r = await openai.chat.completions.create({ model: 'fs-two', messages: user, mcp_tools: ['fs'] });
    const calls = r.choices[0].message.mcp_calls;
    assert.deepEqual(calls.map((c) => JSON.parse(c.arguments).content), ['A', 'B']);
    assert.equal(readFileSync(path.join(root, 'a.txt'), 'utf8'), 'A');
    assert.equal(readFileSync(path.join(root, 'b.txt'), 'utf8'), 'B');
    assert.equal(r.choices[0].message.content, 'Both written.');
  });

  test('chat completions: a refused call goes back to the model as an error', async () => {
    const r = await openai.chat.completions.create({ model: 'fs-refused', messages: user, mcp_tools: ['fs__read_text_file'] });
    const [call] = r.choices[0].message.mcp_calls;
    assert.equal(call.is_error, true);
    assert.match(call.output, /blocked pattern/);
    assert.equal(r.choices[0].message.content, 'I may not read that file.');
  });

  test("chat completions: the client's own tool call is returned, not run", async () => {
    const weather = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } };
    const r = await openai.chat.completions.create({ model: 'client-tool', messages: user, tools: [weather], mcp_tools: true });
    assert.equal(r.choices[0].finish_reason, 'tool_calls');
    assert.equal(r.choices[0].message.tool_calls[0].function.name, 'get_weather');
    assert.equal(r.choices[0].message.mcp_calls, undefined);
  });

  test('anthropic messages: mcp_tool_use and mcp_tool_result blocks in the stream', async () => {
    rmSync(note, { force: true });
    const stream = anthropic.messages.stream({ model: 'fs-loop', max_tokens: 200, messages: user, mcp_tools: ['fs'] });
    const message = await stream.finalMessage();
    assert.deepEqual(message.content.map((b) => b.type),
      ['text', 'mcp_tool_use', 'mcp_tool_result', 'mcp_tool_use', 'mcp_tool_result', 'text']);
    const [use, result] = [message.content[3], message.content[4]];
    assert.equal(use.name, 'read_text_file');
    assert.equal(use.server_name, 'fs');
    assert.deepEqual(use.input, { path: note });
    assert.equal(result.tool_use_id, use.id);
    assert.equal(result.content[0].text, 'crux was here');
    assert.equal(message.stop_reason, 'end_turn');
  });

  test('responses: mcp_call output items, streamed and in the final response', async () => {
    rmSync(note, { force: true });
    const stream = openai.responses.stream({ model: 'fs-loop', input: 'Leave a note and read it back.', mcp_tools: ['fs'] });
    const events = new Set();
    stream.on('event', (e) => events.add(e.type));
    const response = await stream.finalResponse();
    for (const type of ['response.mcp_call.in_progress', 'response.mcp_call_arguments.done', 'response.mcp_call.completed']) {
      assert.ok(events.has(type), type);
    }
    const calls = response.output.filter((o) => o.type === 'mcp_call');
    assert.deepEqual(calls.map((c) => [c.server_label, c.name, c.status]),
      [['fs', 'write_file', 'completed'], ['fs', 'read_text_file', 'completed']]);
    assert.equal(calls[1].output, 'crux was here');
    assert.equal(response.output_text.endsWith('The note says: crux was here.'), true);
  });

  test('mcp_tools naming nothing offered is a 400', async () => {
    await assert.rejects(
      openai.chat.completions.create({ model: 'fs-loop', messages: user, mcp_tools: ['nope'] }),
      (e) => e.status === 400 && /mcp_tools names 'nope'/.test(e.message));
  });
});

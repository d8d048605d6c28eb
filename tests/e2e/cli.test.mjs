// `crux parse` from the command line: complete and --chunks input, reasoning and tool parsers
// chained, --tools typing, and exit status 2 with a one-line message on bad input.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';

import { cruxBinary } from './lib/server.mjs';

function parse(args, input) {
  const r = spawnSync(cruxBinary(), ['parse', ...args], { input, encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, json: r.status === 0 ? JSON.parse(r.stdout) : null };
}

describe('crux parse', () => {
  test('complete text with reasoning', () => {
    const r = parse(['--reasoning-parser', 'qwen3'], '<think>plan</think>The answer is 4.');
    assert.equal(r.status, 0);
    assert.deepEqual(r.json, { reasoning: 'plan', content: 'The answer is 4.', tool_calls: [] });
  });

  test('--chunks reports the events of each delta and the same result', () => {
    const r = parse(['--reasoning-parser', 'qwen3', '--chunks'], JSON.stringify(['<th', 'ink>plan</th', 'ink>ok']));
    assert.equal(r.status, 0);
    assert.equal(r.json.reasoning, 'plan');
    assert.equal(r.json.content, 'ok');
    assert.equal(r.json.events.length, 4);  // three deltas and the end of the stream
    assert.deepEqual(r.json.events[0], []);  // "<th" could still be a marker
  });

  test('tool calls with typed parameters, after reasoning', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crux-cli-'));
    const tools = path.join(dir, 'tools.json');
    writeFileSync(tools, JSON.stringify([{ type: 'function', function: { name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } } }]));
    const input = '<think>need it</think>Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>Paris</parameter>\n<parameter=days>3</parameter>\n</function>\n</tool_call>';
    const r = parse(['--reasoning-parser', 'qwen3', '--tool-call-parser', 'qwen3_xml', '--tools', tools], input);
    assert.equal(r.status, 0);
    assert.equal(r.json.reasoning, 'need it');
    assert.equal(r.json.content, 'Checking.');
    assert.equal(r.json.tool_calls.length, 1);
    assert.equal(r.json.tool_calls[0].name, 'get_weather');
    assert.deepEqual(r.json.tool_calls[0].arguments, { city: 'Paris', days: 3 });
    assert.match(r.json.tool_calls[0].id, /^call_[A-Za-z0-9]{24}$/);
    const undeclared = parse(['--tool-call-parser', 'hermes', '--tools', tools],
      '<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>');
    assert.equal(undeclared.json.tool_calls[0].undeclared, true);
  });

  test('bad input: exit status 2 and one line on stderr', () => {
    for (const [args, input, pattern] of [
      [['--reasoning-parser', 'qwen9'], 'x', /unknown reasoning parser 'qwen9'; available: .*deepseek_r1/],
      [['--tool-call-parser', 'nope'], 'x', /unknown tool-call parser 'nope'; available: .*hermes/],
      [['--chunks'], '{not json', /not valid JSON/],
      [['--chunks'], '["a", 3]', /element 1 is not a string/],
      [['--tools', '/nonexistent/tools.json'], 'x', /cannot read --tools/],
    ]) {
      const r = parse(args, input);
      assert.equal(r.status, 2, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, pattern);
      assert.equal(r.stderr.trim().split('\n').length, 1);
    }
  });
});

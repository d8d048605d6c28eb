// `crux parse` from the command line: complete and --chunks input, reasoning and tool parsers
// chained, --tools typing, and exit status 2 with a one-line message on bad input.
// `crux schema bench` on a tiny GGUF vocabulary written here, and its argument errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

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

// A GGUF (version 3) file with no tensors and a byte-level BPE (gpt2) vocabulary: every
// printable ASCII byte (the GPT-2 byte-to-unicode table spells a space `Ġ`), a few longer
// pieces, and `<|endoftext|>` as the end-of-generation token.
function tinyGguf() {
  const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(n); return b; };
  const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
  const str = (s) => { const b = Buffer.from(s, 'utf8'); return Buffer.concat([u64(b.length), b]); };
  const kGgufString = 8, kGgufArray = 9, kGgufUint32 = 4, kGgufInt32 = 5;
  const tokens = [];
  for (let c = 0x21; c <= 0x7e; ++c) tokens.push(String.fromCharCode(c));
  tokens.push('Ġ', '{"', '":', '","', '"}', 'id', 'name', 'email', 'score', 'active', 'true', 'false');
  const types = tokens.map(() => 1);  // normal
  tokens.push('<|endoftext|>');
  types.push(3);  // control
  const kv = [
    Buffer.concat([str('general.architecture'), u32(kGgufString), str('llama')]),
    Buffer.concat([str('tokenizer.ggml.model'), u32(kGgufString), str('gpt2')]),
    Buffer.concat([str('tokenizer.ggml.tokens'), u32(kGgufArray), u32(kGgufString), u64(tokens.length),
      ...tokens.map(str)]),
    Buffer.concat([str('tokenizer.ggml.token_type'), u32(kGgufArray), u32(kGgufInt32), u64(types.length),
      ...types.map((t) => { const b = Buffer.alloc(4); b.writeInt32LE(t); return b; })]),
    Buffer.concat([str('tokenizer.ggml.eos_token_id'), u32(kGgufUint32), u32(tokens.length - 1)]),
  ];
  return Buffer.concat([Buffer.from('GGUF'), u32(3), u64(0), u64(kv.length), ...kv]);
}

describe('crux schema bench', () => {
  const schemas = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bench', 'schemas');
  const schema = path.join(schemas, 'flat5.schema.json');
  const instance = path.join(schemas, 'flat5.instance.json');
  const bench = (args) => spawnSync(cruxBinary(), ['schema', 'bench', ...args], { encoding: 'utf8' });

  test('walks an instance on a tiny vocabulary and prints the figures as JSON', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'crux-cli-'));
    const vocab = path.join(dir, 'tiny.gguf');
    writeFileSync(vocab, tinyGguf());
    const r = bench(['--vocab', vocab, '--schema', schema, '--instance', instance, '--json', '--repeat', '2']);
    assert.equal(r.status, 0, r.stderr);
    const figures = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(figures).slice(0, 8), ['compile_ms', 'steps', 'mask_p50_us', 'mask_p95_us',
      'mask_p99_us', 'mask_max_us', 'accept_p50_us', 'accept_p99_us']);
    // 97 bytes; `{"`, `":`, `","` and the names shorten the walk, and the end token is a step.
    assert.ok(figures.steps > 10 && figures.steps < 97, `${figures.steps} steps`);
    assert.ok(figures.mask_p50_us <= figures.mask_p95_us && figures.mask_p95_us <= figures.mask_max_us);
    const text = bench(['--vocab', vocab, '--schema', schema, '--instance', instance, '--repeat', '1']);
    assert.equal(text.status, 0, text.stderr);
    assert.match(text.stdout, /^compile .* ms/m);
    assert.match(text.stdout, /^mask .*p99/m);
    // The tiny vocabulary has no token for the accents of the long text: exit 2, not a bug.
    const unspellable = bench(['--vocab', vocab, '--schema', path.join(schemas, 'longtext.schema.json'),
      '--instance', path.join(schemas, 'longtext.instance.json'), '--repeat', '1']);
    assert.equal(unspellable.status, 2);
    assert.match(unspellable.stderr, /offset \d+: no token of the vocabulary starts the rest of the instance/);
  });

  test('argument errors: exit status 2 and a message', () => {
    for (const [args, pattern] of [
      [['--schema', schema, '--instance', instance], /--vocab is required/],
      [['--vocab', '/nonexistent/v.gguf', '--schema', schema, '--instance', instance], /--vocab \/nonexistent\/v.gguf/],
      [['--vocab', schema, '--schema', schema, '--instance', instance], /--vocab .*flat5.schema.json/],
      [['--vocab', 'v.gguf', '--schema', '/nonexistent/s.json', '--instance', instance], /cannot read --schema/],
      [['--vocab', 'v.gguf', '--schema', schema, '--instance', instance, '--repeat', '0'], /--repeat must be at least 1/],
    ]) {
      const r = bench(args);
      assert.equal(r.status, 2, args.join(' '));
      assert.match(r.stderr, pattern);
    }
  });
});

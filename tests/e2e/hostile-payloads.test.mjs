// Tool-call arguments of hostile size and shape, through every API: an object with 5,000
// members and an object nested 5,000 levels deep, streaming and not. Each API must hand back
// arguments semantically equal to what the model wrote.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { API, makeScriptDir, streamEnd } from './lib/hostile.mjs';
import { sseEvents } from './lib/raw.mjs';
import { startServer, weatherTool } from './lib/server.mjs';

const T = { timeout: 30_000 };

// 5,000 members of mixed kinds (strings with escapes, numbers, arrays, nulls, nested objects).
function wideArgs() {
  const members = [];
  for (let k = 0; k < 5000; k += 1) {
    const v = [k, `v${k} "quoted" \\ back\tslash é ✓`, [k, true, null], null, { n: k }][k % 5];
    members.push(`${JSON.stringify(`key_${k}`)}: ${JSON.stringify(v)}`);
  }
  return `{${members.join(', ')}}`;
}

// {"a":{"a":…{"a":"bottom"}…}}: 5,000 objects deep.
const deepArgs = () => '{"a":'.repeat(4999) + '{"a":"bottom"}' + '}'.repeat(4999);

const CASES = { wide: wideArgs(), deep: deepArgs() };

// A canonical text of a JSON value: keys sorted, so that member order does not matter.
// Iterative, so that 5,000 levels do not depend on the stack.
function canonical(value) {
  const v = typeof value === 'string' ? JSON.parse(value) : value;
  const out = [];
  const stack = [{ v }];
  while (stack.length) {
    const item = stack.pop();
    if ('text' in item) { out.push(item.text); continue; }
    const x = item.v;
    if (Array.isArray(x)) {
      const parts = [{ text: '[' }];
      x.forEach((e, k) => { if (k) parts.push({ text: ',' }); parts.push({ v: e }); });
      parts.push({ text: ']' });
      for (let k = parts.length - 1; k >= 0; k -= 1) stack.push(parts[k]);
    } else if (x !== null && typeof x === 'object') {
      const parts = [{ text: '{' }];
      Object.keys(x).sort().forEach((key, k) => {
        if (k) parts.push({ text: ',' });
        parts.push({ text: `${JSON.stringify(key)}:` }, { v: x[key] });
      });
      parts.push({ text: '}' });
      for (let k = parts.length - 1; k >= 0; k -= 1) stack.push(parts[k]);
    } else {
      out.push(JSON.stringify(x));
    }
  }
  return out.join('');
}

const TOOLS = {
  chat: [weatherTool],
  messages: [{ name: 'get_weather', description: weatherTool.function.description, input_schema: weatherTool.function.parameters }],
  responses: [{ type: 'function', name: 'get_weather', description: weatherTool.function.description, parameters: weatherTool.function.parameters }],
};

// The arguments text (or object) of the one tool call in a response, per API and mode.
function argumentsOf(api, stream, text) {
  if (!stream) {
    const body = JSON.parse(text);
    if (api === 'chat') return body.choices[0].message.tool_calls[0].function.arguments;
    if (api === 'messages') return body.content.find((b) => b.type === 'tool_use').input;
    return body.output.find((item) => item.type === 'function_call').arguments;
  }
  const events = sseEvents(text);
  let args = '';
  for (const e of events) {
    if (api === 'chat') {
      for (const call of e.json?.choices?.[0]?.delta?.tool_calls ?? []) {
        if (call.index === 0) args += call.function?.arguments ?? '';
      }
    } else if (api === 'messages') {
      if (e.json?.type === 'content_block_delta' && e.json.delta?.type === 'input_json_delta') args += e.json.delta.partial_json;
    } else if (e.event === 'response.function_call_arguments.delta') {
      args += e.json.delta;
    }
  }
  return args;
}

describe('wide and deep tool arguments across the APIs', () => {
  let scripts;
  let server;
  before(async () => {
    scripts = makeScriptDir(Object.fromEntries(Object.entries(CASES).map(([name, args]) =>
      [`args-${name}`, `<tool_call>\n{"name": "get_weather", "arguments": ${args}}\n</tool_call>`])));
    server = await startServer(['--tokens-per-second', '0'], { script: scripts.dir });
  });
  after(async () => {
    await server?.stop();
    scripts?.remove();
  });

  for (const [name, args] of Object.entries(CASES)) {
    for (const api of Object.keys(API)) {
      for (const stream of [false, true]) {
        test(`${name} arguments, ${api}, ${stream ? 'stream' : 'JSON'}`, T, async () => {
          const res = await fetch(server.url + API[api].path, {
            method: 'POST', headers: { 'content-type': 'application/json' }, signal: AbortSignal.timeout(20_000),
            body: JSON.stringify(API[api].body(`args-${name}`, { stream, tools: TOOLS[api] })),
          });
          const text = await res.text();
          assert.equal(res.status, 200, text.slice(0, 300));
          if (stream) assert.equal(streamEnd(api, text).kind, 'done', `${api} stream completed`);
          const got = argumentsOf(api, stream, text);
          assert.ok(got !== '' && got !== undefined, 'the tool call has arguments');
          assert.ok(canonical(got) === canonical(args), `${api} ${stream ? 'stream' : 'JSON'}: the arguments equal what the model wrote`);
        });
      }
    }
  }
});

// crux in front of real upstreams: two llama.cpp `llama-server`s (built from the pinned tree)
// serving the tiny random-weight Qwen3 model, with `crux serve --engine upstream` in front, driven
// by the official SDKs on all three APIs; constraints passed as llama-server grammars; one
// upstream killed mid-run and brought back; and crux in front of crux.
// Random weights write noise, so every check is structural.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { checkPlace, llamaCppDir, place, tinyModel } from './lib/model.mjs';
import { freePort, llamaServer } from './lib/upstream.mjs';
import { spawnServer } from './lib/server.mjs';

const serverBinary = process.env.CRUX_LLAMA_SERVER;
const skip = !tinyModel() ? 'CRUX_TINY_MODEL is not set (scripts/tiny-model.sh writes it)'
  : !serverBinary || !existsSync(serverBinary) ? 'CRUX_LLAMA_SERVER is not set (scripts/build-llama-cpp.sh --server builds it)'
    : false;

const tools = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: place } },
  {
    type: 'function',
    function: {
      name: 'get_time', description: 'Time',
      parameters: { type: 'object', properties: { zone: { enum: ['UTC', 'CET'] } }, required: ['zone'], additionalProperties: false },
    },
  },
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function metrics(url) {
  return (await fetch(`${url}/metrics`)).text();
}

function upstreamSample(text, name, url) {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{upstream="${url}"}`));
  return line ? Number(line.split(' ').pop()) : NaN;
}

describe('crux in front of two llama-servers', { skip }, () => {
  let a;
  let b;
  let crux;
  let openai;
  let anthropic;
  before(async () => {
    a = llamaServer(await freePort());
    b = llamaServer(await freePort());
    await Promise.all([a.start(), b.start()]);
    crux = await spawnServer(['serve', '--engine', 'upstream', '--upstream', `${a.url},${b.url}`,
      '--upstream-kind', 'llama-server', '--upstream-health-interval', '0.25',
      '--default-thinking-token-budget', '16'], { startTimeoutMs: 60000 });
    openai = new OpenAI({ baseURL: `${crux.url}/v1`, apiKey: 'none', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: crux.url, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => {
    await crux?.stop();
    a?.kill();
    b?.kill();
  });

  test('the model, its template and parsers come from the upstream', async () => {
    const models = await openai.models.list();
    assert.equal(models.data[0].id, 'tiny-qwen3');
    assert.match(crux.log(), /chat template came from the upstream/);
    assert.match(crux.log(), /tool-call parser from the chat template: hermes/);
  });

  test('chat completions, streaming and not: usage from the upstream', async () => {
    const r = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 12, seed: 7, messages: [{ role: 'user', content: 'Say something.' }],
      chat_template_kwargs: { enable_thinking: false },
    });
    assert.ok(['length', 'stop'].includes(r.choices[0].finish_reason));
    assert.ok(r.usage.completion_tokens >= 1 && r.usage.completion_tokens <= 12);
    assert.ok(r.usage.prompt_tokens > 5);
    const stream = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 20, stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello' }], chat_template_kwargs: { enable_thinking: false },
    });
    let finish = null;
    let usage = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) finish = c.finish_reason ?? finish;
    }
    assert.ok(['length', 'stop'].includes(finish));
    assert.ok(usage.completion_tokens >= 1 && usage.completion_tokens <= 20);
    assert.ok(usage.prompt_tokens > 5);
  });

  test('Anthropic Messages and Responses, streaming and not', async () => {
    const m = await anthropic.messages.create({
      model: 'tiny-qwen3', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'disabled' },
    });
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason));
    assert.ok(m.usage.output_tokens >= 1 && m.usage.output_tokens <= 16);
    const final = await anthropic.messages.stream({
      model: 'tiny-qwen3', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], thinking: { type: 'disabled' },
    }).finalMessage();
    assert.ok(['end_turn', 'max_tokens'].includes(final.stop_reason));
    const first = await openai.responses.create({ model: 'tiny-qwen3', max_output_tokens: 16, input: 'Tell me a story.' });
    assert.ok(['completed', 'incomplete'].includes(first.status));
    const second = await openai.responses.create({
      model: 'tiny-qwen3', max_output_tokens: 16, input: 'Go on.', previous_response_id: first.id, stream: true,
    });
    let done = null;
    for await (const event of second) if (event.type === 'response.completed' || event.type === 'response.incomplete') done = event;
    assert.ok(done);
    assert.ok(done.response.usage.input_tokens > first.usage.input_tokens);
  });

  test('response_format json_schema: constrained by the upstream grammar, and valid', async () => {
    for (const seed of [1, 2, 3]) {
      const { data: r, response } = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 300, seed, messages: [{ role: 'user', content: 'Weather plan as JSON.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema: place, strict: true } },
      }).withResponse();
      assert.equal(response.headers.get('x-crux-constraint'), 'upstream');
      assert.equal(r.choices[0].finish_reason, 'stop', JSON.stringify(r.choices[0]));
      checkPlace(JSON.parse(r.choices[0].message.content));
    }
  });

  test('tool_choice required: well-formed calls to declared tools, streaming and not', async () => {
    for (const seed of [1, 2, 3]) {
      const r = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 400, seed, tools, tool_choice: 'required',
        messages: [{ role: 'user', content: 'Weather in Paris and the time?' }],
      });
      const choice = r.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls', JSON.stringify(choice));
      for (const call of choice.message.tool_calls) {
        const args = JSON.parse(call.function.arguments);
        if (call.function.name === 'get_weather') checkPlace(args);
        else assert.ok(['UTC', 'CET'].includes(args.zone));
      }
    }
    const stream = anthropic.messages.stream({
      model: 'tiny-qwen3', max_tokens: 400, messages: [{ role: 'user', content: 'Time?' }],
      tools: [{ name: 'get_time', input_schema: tools[1].function.parameters }],
      tool_choice: { type: 'tool', name: 'get_time' },
    });
    const final = await stream.finalMessage();
    assert.equal(final.stop_reason, 'tool_use');
    const use = final.content.find((c) => c.type === 'tool_use');
    assert.equal(use.name, 'get_time');
    assert.ok(['UTC', 'CET'].includes(use.input.zone));
  });

  test('requests spread over both upstreams', async () => {
    const before = await metrics(crux.url);
    await Promise.all(Array.from({ length: 8 }, async (_, i) => {
      const stream = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 24, stream: true, seed: i + 1,
        messages: [{ role: 'user', content: `Request ${i}` }], chat_template_kwargs: { enable_thinking: false },
      });
      for await (const chunk of stream) assert.ok(chunk.choices);
    }));
    const after = await metrics(crux.url);
    for (const u of [a, b]) {
      const sent = upstreamSample(after, 'crux_upstream_requests_total', u.url)
        - upstreamSample(before, 'crux_upstream_requests_total', u.url);
      assert.ok(sent >= 2, `${u.url} got ${sent} of 8`);
    }
  });

  test('an upstream killed mid-run: clean errors in flight, the other serves, it rejoins', async () => {
    // Long raw completions: the end-of-turn tokens are biased away, so each runs to its limit.
    const long = () => openai.completions.create({
      model: 'tiny-qwen3', prompt: 'Once upon a time', max_tokens: 3000, stream: true,
      logit_bias: { 151643: -100, 151645: -100 },
    });
    const runs = await Promise.all(Array.from({ length: 4 }, long));
    const outcomes = runs.map(async (stream) => {
      let text = '';
      try {
        for await (const chunk of stream) text += chunk.choices[0]?.text ?? '';
        return { ok: true, text };
      } catch (e) {
        return { ok: false, text, error: e };
      }
    });
    await sleep(300);
    a.kill();
    const results = await Promise.all(outcomes);
    const failed = results.filter((r) => !r.ok);
    assert.ok(failed.length >= 1, 'a request in flight on the killed upstream fails');
    assert.ok(results.some((r) => r.ok), 'the requests on the other upstream finish');
    for (const f of failed) assert.match(String(f.error.message), /upstream .* failed mid-generation/);
    // New requests go to the live upstream; none fails.
    for (let i = 0; i < 4; ++i) {
      const r = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 8, messages: [{ role: 'user', content: `after ${i}` }],
        chat_template_kwargs: { enable_thinking: false },
      });
      assert.equal(r.choices.length, 1);
    }
    assert.equal(upstreamSample(await metrics(crux.url), 'crux_upstream_healthy', a.url), 0);
    await a.start();
    for (let i = 0; i < 40 && upstreamSample(await metrics(crux.url), 'crux_upstream_healthy', a.url) !== 1; ++i) await sleep(100);
    const back = await metrics(crux.url);
    assert.equal(upstreamSample(back, 'crux_upstream_healthy', a.url), 1);
    await Promise.all(Array.from({ length: 4 }, () => openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 8, messages: [{ role: 'user', content: 'back' }],
      chat_template_kwargs: { enable_thinking: false },
    })));
    const later = await metrics(crux.url);
    assert.ok(upstreamSample(later, 'crux_upstream_requests_total', a.url)
      > upstreamSample(back, 'crux_upstream_requests_total', a.url), 'the rejoined upstream takes requests');
  });

  test('with every upstream gone: 503 at once, in the protocol\'s own error shape', async () => {
    a.kill();
    b.kill();
    for (let i = 0; i < 40 && upstreamSample(await metrics(crux.url), 'crux_upstream_healthy', b.url) !== 0; ++i) await sleep(100);
    await assert.rejects(
      openai.chat.completions.create({ model: 'tiny-qwen3', max_tokens: 4, messages: [{ role: 'user', content: 'x' }] }),
      (e) => e.status === 503 && /no upstream is available/.test(e.message));
    await assert.rejects(
      anthropic.messages.create({ model: 'tiny-qwen3', max_tokens: 4, messages: [{ role: 'user', content: 'x' }] }),
      (e) => e.status === 503 && e.error?.type === 'error');
  });
});

// Qwen3.5's template opens the reasoning block in the prompt: llama-server's own budget must
// count from the first token, and end the block it did not see open.
const thinkingTemplate = path.join(llamaCppDir(), 'models', 'templates', 'Qwen3.5-4B.jinja');
describe('a thinking budget enforced by llama-server', {
  skip: skip || (existsSync(thinkingTemplate) ? false : 'no Qwen3.5 template in llama.cpp\'s tree'),
}, () => {
  let up;
  let crux;
  let openai;
  before(async () => {
    up = llamaServer(await freePort());
    await up.start();
    crux = await spawnServer(['serve', '--upstream', up.url, '--chat-template', thinkingTemplate],
      { startTimeoutMs: 60000 });
    openai = new OpenAI({ baseURL: `${crux.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => {
    await crux?.stop();
    up?.kill();
  });

  // The tiny model repeats its last token: newlines are biased away so that its reasoning is
  // visible text. After a forced </think> it repeats that too, which the parser swallows.
  const noNewlines = { 198: -100, 271: -100 };
  async function reasoningTokens(budget) {
    const r = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 40, seed: 5, logit_bias: noNewlines,
      ...(budget === undefined ? {} : { thinking_token_budget: budget }),
      messages: [{ role: 'user', content: 'hi' }],
    });
    const res = await fetch(`${up.url}/tokenize`, {
      method: 'POST', body: JSON.stringify({ content: r.choices[0].message.reasoning_content ?? '' }),
    });
    return (await res.json()).tokens.length;
  }

  test('without a budget random reasoning runs to max_tokens; a budget ends it after that many tokens', async () => {
    assert.ok(await reasoningTokens() >= 30);
    for (const budget of [4, 12]) {
      const used = await reasoningTokens(budget);
      assert.ok(used >= 1 && used <= budget, `${used} reasoning tokens for a budget of ${budget}`);
    }
  });
});

describe('crux in front of crux', { skip: tinyModel() ? false : 'CRUX_TINY_MODEL is not set' }, () => {
  let back;
  let front;
  let openai;
  before(async () => {
    back = await spawnServer(['serve', '--model', tinyModel(), '--threads', '1', '--ctx-size', '4096'],
      { startTimeoutMs: 60000 });
    front = await spawnServer(['serve', '--upstream', back.url, '--upstream-kind', 'openai-completions',
      '--chat-template', path.join(llamaCppDir(), 'models', 'templates', 'Qwen-Qwen3-0.6B.jinja'),
      '--reasoning-parser', 'qwen3', '--tool-call-parser', 'hermes'], { startTimeoutMs: 60000 });
    openai = new OpenAI({ baseURL: `${front.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => {
    await front?.stop();
    await back?.stop();
  });

  test('the front renders, the back generates through /v1/completions', async () => {
    const r = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }],
      chat_template_kwargs: { enable_thinking: false },
    });
    assert.ok(['length', 'stop'].includes(r.choices[0].finish_reason));
    assert.ok(r.usage.completion_tokens >= 1 && r.usage.completion_tokens <= 10);
    const stream = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'Hi' }],
      chat_template_kwargs: { enable_thinking: false },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    assert.ok(text.length > 0);
  });

  test('an upstream that cannot constrain: crux validates and says so, never passes bad JSON', async () => {
    for (const seed of [1, 2]) {
      try {
        const { data: r, response } = await openai.chat.completions.create({
          model: 'tiny-qwen3', max_tokens: 60, seed, messages: [{ role: 'user', content: 'JSON please' }],
          response_format: { type: 'json_schema', json_schema: { name: 'place', schema: place } },
          chat_template_kwargs: { enable_thinking: false },
        }).withResponse();
        assert.equal(response.headers.get('x-crux-constraint'), 'validated');
        checkPlace(JSON.parse(r.choices[0].message.content));
      } catch (e) {
        assert.equal(e.status, 422, String(e));
        assert.match(e.message, /invalid_response_format_output/);
        assert.equal(e.headers?.['x-crux-constraint'] ?? e.headers?.get?.('x-crux-constraint'), 'validated');
      }
    }
  });
});

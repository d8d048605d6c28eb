// `crux serve --model` on the tiny random-weight Qwen3 model, driven by the official SDKs:
// real generation through llama.cpp with the model's own chat template, the logits
// processors in the loop, and the parsed result on all three APIs and /v1/completions.
// Random weights write noise, so every check is structural: the JSON validates, the calls
// parse and validate, the budget holds, the counts equal the tokenizer's.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';

import { metric } from './lib/server.mjs';
import { existsSync } from 'node:fs';
import path from 'node:path';

import { checkPlace, llamaCppDir, place, runServe, startModelServer, tinyModel } from './lib/model.mjs';

const skip = tinyModel() ? false : 'CRUX_TINY_MODEL is not set (scripts/tiny-model.sh writes it)';

const tools = [
  {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather in a city', parameters: place },
  },
  {
    type: 'function',
    function: {
      name: 'get_time',
      description: 'Time in a zone',
      parameters: {
        type: 'object',
        properties: { zone: { enum: ['UTC', 'CET', 'PST'] } },
        required: ['zone'],
        additionalProperties: false,
      },
    },
  },
];

function checkCall(call) {
  const args = JSON.parse(call.function.arguments);
  if (call.function.name === 'get_weather') {
    checkPlace(args);
  } else {
    assert.equal(call.function.name, 'get_time');
    assert.deepEqual(Object.keys(args), ['zone']);
    assert.ok(['UTC', 'CET', 'PST'].includes(args.zone));
  }
}

async function tokenCount(url, text) {
  const res = await fetch(`${url}/tokenize`, {
    method: 'POST',
    body: JSON.stringify({ content: text, add_special: true }),
  });
  return (await res.json()).tokens.length;
}

describe('tiny Qwen3 model', { skip }, () => {
  let server;
  let openai;
  let anthropic;
  before(async () => {
    // A small budget keeps random reasoning short; requests override it.
    server = await startModelServer(['--parallel', '8', '--ctx-size', '2048',
      '--default-thinking-token-budget', '16']);
    openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'none', maxRetries: 0 });
    anthropic = new Anthropic({ baseURL: server.url, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => server.stop());

  test('/v1/models reports the model', async () => {
    const models = await openai.models.list();
    assert.equal(models.data.length, 1);
    assert.equal(models.data[0].id, 'tiny-qwen3');
    assert.equal(models.data[0].meta.n_vocab, 151936);
  });

  test('chat completions, non-streaming: max_tokens ends with length, usage counts tokens', async () => {
    const r = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 12, seed: 7,
      messages: [{ role: 'user', content: 'Say something.' }],
      chat_template_kwargs: { enable_thinking: false },
    });
    const choice = r.choices[0];
    assert.ok(['length', 'stop'].includes(choice.finish_reason));
    assert.ok(r.usage.completion_tokens <= 12 && r.usage.completion_tokens >= 1);
    if (choice.finish_reason === 'length') assert.equal(r.usage.completion_tokens, 12);
    assert.ok(r.usage.prompt_tokens > 5);
  });

  test('chat completions, streaming: deltas add up, usage chunk at the end', async () => {
    const stream = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 20, stream: true, stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'Hello' }],
      chat_template_kwargs: { enable_thinking: false },
    });
    let finish = null;
    let usage = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const c of chunk.choices) finish = c.finish_reason ?? finish;
    }
    assert.ok(['length', 'stop'].includes(finish));
    assert.ok(usage.completion_tokens >= 1 && usage.completion_tokens <= 20);
  });

  test('/v1/completions: usage equals the tokenizer count; stop strings end with stop', async () => {
    const prompt = 'The quick brown fox jumps over the lazy dog.';
    const r = await openai.completions.create({ model: 'tiny-qwen3', prompt, max_tokens: 10, seed: 3 });
    assert.equal(r.object, 'text_completion');
    assert.equal(r.usage.prompt_tokens, await tokenCount(server.url, prompt));
    assert.ok(['length', 'stop'].includes(r.choices[0].finish_reason));
    // Streaming, with a stop string taken from the non-streamed text of the same seed.
    const chunks = [];
    const stream = await openai.completions.create({ model: 'tiny-qwen3', prompt, max_tokens: 10, seed: 3, stream: true });
    let finish = null;
    for await (const chunk of stream) {
      chunks.push(chunk.choices[0]?.text ?? '');
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    assert.equal(chunks.join(''), r.choices[0].text, 'the same seed gives the same text');
    const text = r.choices[0].text;
    const cut = [...text].slice(2, 3).join('');
    if (cut.trim() !== '') {
      const stopped = await openai.completions.create({ model: 'tiny-qwen3', prompt, max_tokens: 10, seed: 3, stop: [cut] });
      assert.equal(stopped.choices[0].finish_reason, 'stop');
      assert.equal(stopped.choices[0].text, text.slice(0, text.indexOf(cut)));
    }
    assert.ok(finish);
  });

  test('response_format json_schema: the content validates', async () => {
    for (const seed of [1, 2, 3]) {
      const r = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 300, seed,
        messages: [{ role: 'user', content: 'Weather plan as JSON.' }],
        response_format: { type: 'json_schema', json_schema: { name: 'place', schema: place, strict: true } },
      });
      assert.equal(r.choices[0].finish_reason, 'stop', JSON.stringify(r.choices[0]));
      checkPlace(JSON.parse(r.choices[0].message.content));
    }
  });

  test('tool_choice required with two tools: the calls parse and validate', async () => {
    for (const seed of [1, 2, 3]) {
      const { data: r, response } = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 400, seed, tools, tool_choice: 'required',
        messages: [{ role: 'user', content: 'Weather in Paris and the time?' }],
      }).withResponse();
      // hermes arguments are JSON under the matcher, which enforces all these schemas ask.
      assert.equal(response.headers.get('x-crux-constraint'), 'enforced');
      const choice = r.choices[0];
      assert.equal(choice.finish_reason, 'tool_calls', JSON.stringify(choice));
      assert.ok(choice.message.tool_calls.length >= 1);
      for (const call of choice.message.tool_calls) checkCall(call);
    }
  });

  test('Anthropic Messages: non-streaming and streaming', async () => {
    const m = await anthropic.messages.create({
      model: 'tiny-qwen3', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }],
      thinking: { type: 'disabled' },
    });
    assert.ok(['end_turn', 'max_tokens'].includes(m.stop_reason));
    assert.ok(m.usage.output_tokens >= 1 && m.usage.output_tokens <= 16);
    const stream = anthropic.messages.stream({
      model: 'tiny-qwen3', max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }],
      thinking: { type: 'disabled' },
    });
    const final = await stream.finalMessage();
    assert.ok(['end_turn', 'max_tokens'].includes(final.stop_reason));
  });

  test('Responses: a conversation continued with previous_response_id reuses the cache', async () => {
    const first = await openai.responses.create({
      model: 'tiny-qwen3', max_output_tokens: 16, input: 'Tell me a story.',
    });
    const before = await metric(server.url, 'crux_engine_prompt_tokens_cached_total');
    const second = await openai.responses.create({
      model: 'tiny-qwen3', max_output_tokens: 16, input: 'Go on.', previous_response_id: first.id,
    });
    // The stored turn is in the prompt: longer than the first prompt plus its output ...
    assert.ok(second.usage.input_tokens > first.usage.input_tokens + 2);
    // ... and the slot's cache held the first turn's prompt, so the user turn they share was
    // not evaluated again.
    const shared = await tokenCount(server.url, '<|im_start|>user\nTell me a story.<|im_end|>\n');
    assert.ok(second.usage.input_tokens_details.cached_tokens >= shared, JSON.stringify(second.usage));
    assert.ok(await metric(server.url, 'crux_engine_prompt_tokens_cached_total') > before);
    const stream = await openai.responses.create({
      model: 'tiny-qwen3', max_output_tokens: 8, input: 'Hi', stream: true,
    });
    let completed = null;
    for await (const event of stream) if (event.type === 'response.completed' || event.type === 'response.incomplete') completed = event;
    assert.ok(completed);
  });

  test('8 simultaneous streams all complete', async () => {
    const runs = Array.from({ length: 8 }, async (_, i) => {
      const stream = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 24, stream: true, seed: i + 1,
        messages: [{ role: 'user', content: `Request ${i}` }],
        chat_template_kwargs: { enable_thinking: false },
      });
      let finish = null;
      for await (const chunk of stream) for (const c of chunk.choices) finish = c.finish_reason ?? finish;
      return finish;
    });
    for (const finish of await Promise.all(runs)) assert.ok(['length', 'stop'].includes(finish));
  });

  test('a client that goes away frees its slot', async () => {
    const controller = new AbortController();
    const stream = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 1500, stream: true,
      messages: [{ role: 'user', content: 'A long answer' }],
      chat_template_kwargs: { enable_thinking: false },
      logit_bias: { 151643: -100, 151645: -100 },  // no end of turn: it would run to the limit
    }, { signal: controller.signal });
    let seen = 0;
    try {
      for await (const chunk of stream) {
        assert.ok(chunk.choices);
        if (++seen === 3) controller.abort();
      }
    } catch {
      // the SDK reports the abort
    }
    assert.ok(seen >= 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const generated = await metric(server.url, 'crux_engine_generated_tokens_total');
    await new Promise((resolve) => setTimeout(resolve, 500));
    const later = await metric(server.url, 'crux_engine_generated_tokens_total');
    assert.ok(later - generated < 20, `still generating: ${later - generated} tokens in 0.5 s`);
  });

  test('bad input: a prompt longer than the context, an invalid schema, a schema no value meets; the server stays up', async () => {
    const long = 'word '.repeat(3000);
    await assert.rejects(
      openai.chat.completions.create({ model: 'tiny-qwen3', messages: [{ role: 'user', content: long }] }),
      (e) => e.status === 400 && /context/.test(e.message));
    await assert.rejects(
      openai.chat.completions.create({
        model: 'tiny-qwen3', messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'bad', schema: { type: 'object', properties: { a: { type: 'nonsense' } } } } },
      }),
      (e) => e.status === 400 && /response_format/.test(e.message));
    // A schema that compiles but admits no value: refused before generating, not a 422 after.
    await assert.rejects(
      openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 20, messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'none', schema: { type: 'integer', minimum: 5, maximum: 3 } } },
      }),
      (e) => e.status === 400 && /admits no JSON value/.test(e.message));
    // ... also where the emptiness lies below the top: a required member that admits nothing.
    await assert.rejects(
      openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 20, messages: [{ role: 'user', content: 'x' }],
        response_format: { type: 'json_schema', json_schema: { name: 'deep', schema: {
          type: 'object', required: ['a'],
          properties: { a: { type: 'array', items: false, minItems: 1 } } } } },
      }),
      (e) => e.status === 400 && /admits no JSON value/.test(e.message));
    const ok = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 2, messages: [{ role: 'user', content: 'still there?' }],
    });
    assert.ok(ok.choices.length === 1);
  });
});

// Qwen3.5's template opens the reasoning block in the prompt (`<think>\n`), as thinking
// templates do: the output starts inside reasoning, which the budget must end.
const thinkingTemplate = path.join(llamaCppDir(), 'models', 'templates', 'Qwen3.5-4B.jinja');
describe('thinking budget on a template that opens reasoning', {
  skip: skip || (existsSync(thinkingTemplate) ? false : 'no Qwen3.5 template in llama.cpp\'s tree'),
}, () => {
  let server;
  let openai;
  before(async () => {
    server = await startModelServer(['--chat-template', thinkingTemplate]);
    openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'none', maxRetries: 0 });
  });
  after(async () => server.stop());

  async function tokens(text) {
    const res = await fetch(`${server.url}/tokenize`, { method: 'POST', body: JSON.stringify({ content: text }) });
    return (await res.json()).tokens.length;
  }

  test('without a budget, random reasoning never ends within max_tokens', async () => {
    const r = await openai.chat.completions.create({
      model: 'tiny-qwen3', max_tokens: 40, seed: 5, messages: [{ role: 'user', content: 'hi' }],
    });
    assert.equal(r.choices[0].message.content ?? null, null, JSON.stringify(r.choices[0]));
  });

  for (const budget of [0, 4, 12]) {
    test(`a budget of ${budget} ends reasoning after at most ${budget} tokens, then answers`, async () => {
      const stream = await openai.chat.completions.create({
        model: 'tiny-qwen3', max_tokens: 40, seed: 5, thinking_token_budget: budget,
        messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true },
      });
      let reasoning = '';
      let content = '';
      let usage = null;
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        for (const c of chunk.choices) {
          reasoning += c.delta?.reasoning_content ?? '';
          content += c.delta?.content ?? '';
        }
      }
      assert.ok(content.length > 0, 'an answer follows the reasoning');
      assert.ok(await tokens(reasoning) <= budget, `reasoning: ${JSON.stringify(reasoning)}`);
      // Everything generated is the reasoning (at most the budget), </think>, and the answer.
      assert.ok(usage.completion_tokens >= 2);
    });
  }
});

describe('model files that cannot be served', { skip }, () => {
  test('a missing model file is a clear start-up error', async () => {
    const { code, log } = await runServe(['--model', '/nonexistent/model.gguf', '--port', '0']);
    assert.notEqual(code, 0);
    assert.match(log, /model file '\/nonexistent\/model\.gguf' does not exist/);
  });

  test('a corrupt model file is a clear start-up error', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const path = `${mkdtempSync(`${tmpdir()}/crux-`)}/corrupt.gguf`;
    writeFileSync(path, 'GGUF this is not a model');
    const { code, log } = await runServe(['--model', path, '--port', '0']);
    assert.notEqual(code, 0);
    assert.match(log, /corrupt\.gguf/);
  });
});

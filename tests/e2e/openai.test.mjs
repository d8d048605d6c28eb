// The official OpenAI SDK against `crux serve --engine mock`: Chat Completions and Responses,
// streaming (raw iteration and the SDK's accumulating helpers) and non-streaming.
// Runs with openai 6 on Node 20 (OPENAI_MODULE=openai) and openai 7 on Node 22
// (OPENAI_MODULE=openai-7).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startServer, timeTool, weatherTool } from './lib/server.mjs';

const moduleName = process.env.OPENAI_MODULE || 'openai';
const { default: OpenAI } = await import(moduleName);

describe(`${moduleName} on node ${process.version}`, () => {
  let server;
  let client;
  before(async () => {
    server = await startServer();
    client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 });
  });
  after(async () => server.stop());

  test('chat: non-streaming text', async () => {
    const r = await client.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.object, 'chat.completion');
    assert.equal(r.choices[0].message.content, 'Hello! How can I help you today?');
    assert.equal(r.choices[0].finish_reason, 'stop');
    assert.ok(r.usage.prompt_tokens > 0);
    assert.equal(r.usage.completion_tokens, 8);
  });

  test('chat: non-streaming reasoning is split from content', async () => {
    const r = await client.chat.completions.create({ model: 'reasoning', messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(r.choices[0].message.content, 'Hello! How can I help you today?');
    assert.equal(r.choices[0].message.reasoning_content, 'The user greets me. I should greet back politely.');
  });

  test('chat: streamed reasoning and content arrive intact (raw iteration)', async () => {
    const stream = await client.chat.completions.create({
      model: 'reasoning', messages: [{ role: 'user', content: 'hi' }], stream: true,
      stream_options: { include_usage: true },
    });
    let reasoning = '';
    let content = '';
    let finish = null;
    let usage = null;
    for await (const chunk of stream) {
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices) {
        reasoning += choice.delta.reasoning_content ?? '';
        content += choice.delta.content ?? '';
        finish = choice.finish_reason ?? finish;
      }
    }
    assert.equal(reasoning, 'The user greets me. I should greet back politely.');
    assert.equal(content, 'Hello! How can I help you today?');
    assert.equal(finish, 'stop');
    assert.ok(usage && usage.completion_tokens > 0 && usage.prompt_tokens > 0);
  });

  test('chat: streamed tool call through the stream helper', async () => {
    const stream = client.chat.completions.stream({
      model: 'weather', messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weatherTool],
    });
    const final = await stream.finalChatCompletion();
    const choice = final.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.content, 'Let me check.');
    assert.equal(choice.message.tool_calls.length, 1);
    const call = choice.message.tool_calls[0];
    assert.equal(call.type, 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.match(call.id, /^call_[A-Za-z0-9]{24}$/);
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', unit: 'celsius' });
  });

  test('chat: two streamed tool calls keep their indices', async () => {
    const stream = client.chat.completions.stream({
      model: 'two-tools', messages: [{ role: 'user', content: 'Weather and time in Paris?' }],
      tools: [weatherTool, timeTool],
    });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0].message.tool_calls;
    assert.deepEqual(calls.map((c) => c.function.name), ['get_weather', 'get_time']);
    assert.deepEqual(JSON.parse(calls[1].function.arguments), { timezone: 'Europe/Paris' });
    assert.notEqual(calls[0].id, calls[1].id);
    assert.equal(final.choices[0].finish_reason, 'tool_calls');
  });

  test('chat: tool_choice none leaves the markup as content', async () => {
    const r = await client.chat.completions.create({
      model: 'two-tools', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool], tool_choice: 'none',
    });
    assert.equal(r.choices[0].message.tool_calls, undefined);
    assert.match(r.choices[0].message.content, /<tool_call>/);
  });

  test('chat: max_tokens cuts off with finish_reason length', async () => {
    const stream = client.chat.completions.stream({ model: 'long', messages: [{ role: 'user', content: 'x' }], max_tokens: 5 });
    const final = await stream.finalChatCompletion();
    assert.equal(final.choices[0].finish_reason, 'length');
    assert.equal(final.choices[0].message.content.length <= 20, true);
  });

  test('chat: a stop sequence ends the answer before it', async () => {
    const r = await client.chat.completions.create({ model: 'unicode', messages: [{ role: 'user', content: 'x' }], stop: ['END'] });
    assert.equal(r.choices[0].message.content, 'The quick brown fox jumps over the lazy dog. ¿Qué tal? 日本語のテキスト 🌍');
    assert.equal(r.choices[0].finish_reason, 'stop');
  });

  test('responses: streamed reasoning, text and function call through the helper', async () => {
    const stream = client.responses.stream({ model: 'weather', input: 'Weather in Paris?', tools: [{ type: 'function', name: 'get_weather', parameters: weatherTool.function.parameters }] });
    const final = await stream.finalResponse();
    assert.equal(final.status, 'completed');
    const types = final.output.map((o) => o.type);
    assert.deepEqual(types, ['reasoning', 'message', 'function_call']);
    const call = final.output[2];
    assert.equal(call.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.arguments), { city: 'Paris', unit: 'celsius' });
    assert.equal(final.output_text, 'Let me check.');
  });

  test('responses: non-streaming text', async () => {
    const r = await client.responses.create({ model: 'reasoning', input: [{ role: 'user', content: 'hi' }], instructions: 'Be brief.' });
    assert.equal(r.object, 'response');
    assert.equal(r.output_text, 'Hello! How can I help you today?');
    assert.equal(r.output[0].type, 'reasoning');
    assert.ok(r.usage.output_tokens > 0);
  });

  test('responses: max_output_tokens gives an incomplete response', async () => {
    const stream = client.responses.stream({ model: 'long', input: 'x', max_output_tokens: 16 });
    const final = await stream.finalResponse();
    assert.equal(final.status, 'incomplete');
    assert.equal(final.incomplete_details.reason, 'max_output_tokens');
    assert.ok(final.output_text.length > 0);
  });

  test('models: the scripts are listed', async () => {
    const models = [];
    for await (const m of client.models.list()) models.push(m.id);
    assert.ok(models.includes('weather') && models.includes('plain'));
  });

  test('errors: unknown model is a NotFoundError', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
      (e) => e.status === 404 && /nope/.test(e.message));
  });

  test('errors: wrong types name the field', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'x' }], max_tokens: 'ten' }),
      (e) => e.status === 400 && /max_tokens/.test(e.message));
  });

  test('errors: a named tool_choice that is not declared is a 400', async () => {
    await assert.rejects(
      client.chat.completions.create({ model: 'weather', messages: [{ role: 'user', content: 'x' }], tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'launch_rockets' } } }),
      (e) => e.status === 400 && /launch_rockets/.test(e.message));
  });
});

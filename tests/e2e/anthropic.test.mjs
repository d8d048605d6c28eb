// The official Anthropic SDK (1.x and the last 0.x) against `crux serve --engine mock`, with an
// API key: 1.x sends it as Authorization: Bearer and anthropic-version 2026-10-21, 0.x as
// x-api-key and 2023-06-01.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { startServer } from './lib/server.mjs';

const sdks = [
  ['@anthropic-ai/sdk', (await import('@anthropic-ai/sdk')).default],
  ['anthropic-sdk-0', (await import('anthropic-sdk-0')).default],
];

const weather = {
  name: 'get_weather',
  description: 'Current weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['city'] },
};

for (const [name, Anthropic] of sdks) {
  describe(name, () => {
    let server;
    let client;
    before(async () => {
      server = await startServer(['--api-key', 'sk-test']);
      client = new Anthropic({ baseURL: server.url, apiKey: 'sk-test', maxRetries: 0 });
    });
    after(async () => server.stop());

    test('non-streaming: thinking and text blocks', async () => {
      const m = await client.messages.create({ model: 'reasoning', max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(m.type, 'message');
      assert.deepEqual(m.content.map((b) => b.type), ['thinking', 'text']);
      assert.equal(m.content[0].thinking, 'The user greets me. I should greet back politely.');
      assert.equal(m.content[1].text, 'Hello! How can I help you today?');
      assert.equal(m.stop_reason, 'end_turn');
      assert.ok(m.usage.input_tokens > 0 && m.usage.output_tokens > 0);
    });

    test('streaming: thinking, text and a tool_use block through MessageStream', async () => {
      const stream = client.messages.stream({
        model: 'weather', max_tokens: 256, tools: [weather], messages: [{ role: 'user', content: 'Weather in Paris?' }],
      });
      let text = '';
      stream.on('text', (t) => { text += t; });
      const m = await stream.finalMessage();
      assert.deepEqual(m.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
      assert.equal(m.content[0].thinking, 'The user wants the weather in Paris. I will call get_weather.');
      assert.equal(m.content[1].text, 'Let me check.');
      assert.equal(text, 'Let me check.');
      assert.equal(m.content[2].name, 'get_weather');
      assert.deepEqual(m.content[2].input, { city: 'Paris', unit: 'celsius' });
      assert.equal(m.stop_reason, 'tool_use');
      assert.ok(m.usage.input_tokens > 0);
    });

    test('streaming: two tool_use blocks', async () => {
      const m = await client.messages.stream({
        model: 'two-tools', max_tokens: 256, tools: [weather, { name: 'get_time', input_schema: { type: 'object' } }],
        messages: [{ role: 'user', content: 'x' }],
      }).finalMessage();
      assert.deepEqual(m.content.map((b) => b.type), ['tool_use', 'tool_use']);
      assert.deepEqual(m.content[1].input, { timezone: 'Europe/Paris' });
      assert.notEqual(m.content[0].id, m.content[1].id);
    });

    test('max_tokens gives stop_reason max_tokens, streaming and not', async () => {
      const s = await client.messages.stream({ model: 'long', max_tokens: 4, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
      assert.equal(s.stop_reason, 'max_tokens');
      assert.equal(s.usage.output_tokens, 4);
      const m = await client.messages.create({ model: 'long', max_tokens: 4, messages: [{ role: 'user', content: 'x' }] });
      assert.equal(m.stop_reason, 'max_tokens');
    });

    test('stop_sequences give stop_reason stop_sequence', async () => {
      const m = await client.messages.stream({ model: 'unicode', max_tokens: 100, stop_sequences: ['END'], messages: [{ role: 'user', content: 'x' }] }).finalMessage();
      assert.equal(m.stop_reason, 'stop_sequence');
      assert.equal(m.stop_sequence, 'END');
      assert.equal(m.content[0].text, 'The quick brown fox jumps over the lazy dog. ¿Qué tal? 日本語のテキスト 🌍');
    });

    test('tool results in the history are accepted', async () => {
      const m = await client.messages.create({
        model: 'weather', max_tokens: 100, tools: [weather],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
        ],
      });
      assert.equal(m.content[0].text, 'It is sunny in Paris.');
    });

    test('a wrong API key is an AuthenticationError', async () => {
      const bad = new Anthropic({ baseURL: server.url, apiKey: 'wrong', maxRetries: 0 });
      await assert.rejects(bad.messages.create({ model: 'plain', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
        (e) => e.status === 401 && e.error?.type === 'error');
    });

    test('a missing max_tokens is a BadRequestError naming it', async () => {
      await assert.rejects(client.messages.create({ model: 'plain', messages: [{ role: 'user', content: 'x' }] }),
        (e) => e.status === 400 && /max_tokens/.test(e.message));
    });
  });
}

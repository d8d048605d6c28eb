// LangChain.js chat models against `crux serve --engine mock`: ChatOpenAI over Chat Completions,
// ChatOpenAI over Responses (`useResponsesApi: true`) and ChatAnthropic over Messages. invoke,
// stream (the chunks concatenated), bindTools, and the round trip of a tool result back to the
// model. Needs Node >= 22 (node_modules/node/bin/node).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { ChatAnthropic } from '@langchain/anthropic';
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { ChatOpenAI } from '@langchain/openai';
import { z } from 'zod';

import { anthropicSignatures, recordingFetch } from './lib/capture.mjs';
import { frameworkTexts, startServer } from './lib/server.mjs';

const API_KEY = 'sk-langchain-test';
// Expected texts, read from the mock scripts (so a script and its test cannot drift apart).
const { HELLO, HELLO_REASONING, WEATHER_REASONING, TURN_1, TURN_2 } = frameworkTexts();
const TIMEOUT = { timeout: 30_000 };

const getWeather = tool(async ({ city, unit }) => `sunny in ${city}, 24 degrees ${unit}`, {
  name: 'get_weather',
  description: 'Current weather in a city',
  schema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
});
const TOOL_OUTPUT = 'sunny in Paris, 24 degrees celsius';

// The three chat models, with where their requests go, what each shows of the scripted
// `<think>` block, and how to find the tool result sent back to the model.
const kinds = [
  {
    name: 'ChatOpenAI',
    path: '/v1/chat/completions',
    make: (url, fetch, model) => new ChatOpenAI({ model, apiKey: API_KEY, maxRetries: 0, configuration: { baseURL: `${url}/v1`, fetch } }),
    checkReasoning: (m) => assert.equal(m.additional_kwargs.reasoning_content, HELLO_REASONING),
    toolResult: (body) => {
      const msg = body.messages.find((x) => x.role === 'tool');
      return msg && { id: msg.tool_call_id, output: msg.content };
    },
  },
  {
    name: 'ChatOpenAI useResponsesApi',
    path: '/v1/responses',
    make: (url, fetch, model) => new ChatOpenAI({ model, apiKey: API_KEY, maxRetries: 0, useResponsesApi: true, configuration: { baseURL: `${url}/v1`, fetch } }),
    // LangChain reads a reasoning item's text only from its summary (empty unless asked for);
    // the item itself is kept, to be sent back with the history.
    checkReasoning: (m) => {
      assert.equal(m.additional_kwargs.reasoning?.type, 'reasoning');
      assert.match(m.additional_kwargs.reasoning.id, /^rs_/);
    },
    toolResult: (body) => {
      const item = body.input.find((x) => x.type === 'function_call_output');
      return item && { id: item.call_id, output: item.output };
    },
  },
  {
    name: 'ChatAnthropic',
    path: '/v1/messages',
    make: (url, fetch, model) => new ChatAnthropic({ model, apiKey: API_KEY, maxRetries: 0, maxTokens: 1024, anthropicApiUrl: url, clientOptions: { fetch } }),
    checkReasoning: (m) => {
      const blocks = m.contentBlocks.filter((b) => b.type === 'reasoning');
      assert.equal(blocks.length, 1);
      assert.equal(blocks[0].reasoning, HELLO_REASONING);
    },
    toolResult: (body) => {
      const block = body.messages.at(-1).content.find((b) => b.type === 'tool_result');
      return block && { id: block.tool_use_id, output: block.content };
    },
  },
];

async function collect(stream) {
  let chunks = 0;
  let message;
  for await (const chunk of stream) {
    chunks += 1;
    message = message ? message.concat(chunk) : chunk;
  }
  return { chunks, message };
}

describe('langchain', () => {
  let server;
  before(async () => {
    server = await startServer(['--api-key', API_KEY]);
  });
  after(async () => server?.stop());

  for (const kind of kinds) {
    // A model that records the requests it sends.
    function model(id) {
      const recorder = recordingFetch();
      return { chat: kind.make(server.url, recorder.fetch, id), requests: recorder.requests };
    }
    function checkRequests(requests, count) {
      assert.equal(requests.length, count);
      for (const r of requests) assert.equal(r.url, `${server.url}${kind.path}`);
    }

    test(`${kind.name}: invoke`, TIMEOUT, async () => {
      const { chat, requests } = model('reasoning');
      const m = await chat.invoke('hi');
      assert.ok(AIMessage.isInstance(m));
      assert.equal(m.text, HELLO);
      kind.checkReasoning(m);
      assert.ok(m.usage_metadata.input_tokens > 0 && m.usage_metadata.output_tokens > 0);
      checkRequests(requests, 1);
      assert.equal(requests[0].body.model, 'reasoning');
    });

    test(`${kind.name}: stream`, TIMEOUT, async () => {
      const { chat, requests } = model('reasoning');
      const { chunks, message } = await collect(await chat.stream('hi'));
      assert.ok(chunks > 2, `${chunks} chunks`);
      assert.equal(message.text, HELLO);
      kind.checkReasoning(message);
      assert.ok(message.usage_metadata.output_tokens > 0);
      checkRequests(requests, 1);
      assert.equal(requests[0].body.stream, true);
    });

    for (const streaming of [false, true]) {
      const how = streaming ? 'stream' : 'invoke';
      test(`${kind.name}: bindTools, ${how}: the tool call`, TIMEOUT, async () => {
        const { chat } = model('weather');
        const bound = chat.bindTools([getWeather]);
        const prompt = [new HumanMessage('What is the weather in Paris?')];
        const m = streaming ? (await collect(await bound.stream(prompt))).message : await bound.invoke(prompt);
        assert.equal(m.text, 'Let me check.');
        assert.equal(m.tool_calls.length, 1);
        const [call] = m.tool_calls;
        assert.equal(call.name, 'get_weather');
        assert.deepEqual(call.args, { city: 'Paris', unit: 'celsius' });
        assert.equal(typeof call.id, 'string');
        assert.ok(call.id.length >= 8, call.id);
        assert.deepEqual(m.invalid_tool_calls ?? [], []);
      });

      test(`${kind.name}: bindTools, ${how}: a tool result round trip`, TIMEOUT, async () => {
        const { chat, requests } = model('weather');
        const bound = chat.bindTools([getWeather]);
        const run = async (messages) => (streaming ? (await collect(await bound.stream(messages))).message : bound.invoke(messages));
        const messages = [new HumanMessage('What is the weather in Paris?')];
        const first = await run(messages);
        assert.equal(first.tool_calls.length, 1);
        messages.push(first);
        const result = await getWeather.invoke(first.tool_calls[0]);
        assert.ok(ToolMessage.isInstance(result));
        assert.equal(result.content, TOOL_OUTPUT);
        messages.push(result);
        const final = await run(messages);
        assert.equal(final.text, 'It is sunny in Paris.');
        assert.deepEqual(final.tool_calls, []);
        checkRequests(requests, 2);
        assert.deepEqual(kind.toolResult(requests[1].body), { id: first.tool_calls[0].id, output: TOOL_OUTPUT });
        if (kind.name === 'ChatAnthropic') {
          // The thinking block goes back with the signature crux gave it.
          const thinking = first.content.find((b) => b.type === 'thinking');
          assert.equal(thinking.thinking, WEATHER_REASONING);
          const [signature] = anthropicSignatures(await requests[0].responseText);
          const assistant = requests[1].body.messages[1];
          assert.equal(assistant.role, 'assistant');
          assert.deepEqual(assistant.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
          assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: WEATHER_REASONING, signature });
        }
      });
    }

    test(`${kind.name}: a two-turn chat gets the second turn`, TIMEOUT, async () => {
      const { chat } = model('fw-two-turns');
      const messages = [new HumanMessage('What is the capital of France?')];
      const first = await chat.invoke(messages);
      assert.equal(first.text, TURN_1);
      messages.push(first, new HumanMessage('How many people live there?'));
      const second = await chat.invoke(messages);
      assert.equal(second.text, TURN_2);
    });
  }

  test('ChatAnthropic: thinking blocks carry a non-empty signature, streamed and not', TIMEOUT, async () => {
    const recorder = recordingFetch();
    const chat = kinds[2].make(server.url, recorder.fetch, 'reasoning');
    const invoked = await chat.invoke('hi');
    const { message: streamed } = await collect(await chat.stream('hi'));
    for (const [i, [how, m]] of [['invoke', invoked], ['stream', streamed]].entries()) {
      const signatures = anthropicSignatures(await recorder.requests[i].responseText);
      assert.equal(signatures.length, 1, how);
      assert.ok(signatures[0].length > 0, `${how}: the signature is not empty`);
      const thinking = m.content.find((b) => b.type === 'thinking');
      assert.equal(thinking.thinking, HELLO_REASONING, how);
      assert.equal(thinking.signature, signatures[0], how);
    }
  });

  test('ChatOpenAI useResponsesApi: previous_response_id continues the conversation', TIMEOUT, async () => {
    const recorder = recordingFetch();
    const chat = kinds[1].make(server.url, recorder.fetch, 'fw-two-turns');
    const first = await chat.invoke('What is the capital of France?');
    assert.equal(first.text, TURN_1);
    assert.match(first.id, /^resp_/);
    const second = await chat.invoke('How many people live there?', { previous_response_id: first.id });
    assert.equal(recorder.requests[1].body.previous_response_id, first.id);
    assert.equal(second.text, TURN_2);
  });
});

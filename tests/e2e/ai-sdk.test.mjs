// The Vercel AI SDK (`ai` 7 with @ai-sdk/openai and @ai-sdk/anthropic) against
// `crux serve --engine mock`, over each of its three model kinds: the OpenAI Chat Completions
// model (`provider.chat(id)`), the OpenAI Responses model (`provider.responses(id)`, also the
// default `provider(id)`) and the Anthropic Messages model. Plain answers, multi-step tool loops
// with `execute`, what the SDK sends back in the next step, and multi-turn chats over Responses
// with the default store (the SDK then refers to earlier output by id instead of resending it).
// Needs Node >= 22 (node_modules/node/bin/node).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, isStepCount, streamText, tool } from 'ai';
import { z } from 'zod';

import { anthropicSignatures, recordingFetch } from './lib/capture.mjs';
import { frameworkTexts, startServer } from './lib/server.mjs';

// The SDK logs its warnings (for instance "unknown model id") to the console.
globalThis.AI_SDK_LOG_WARNINGS = false;

const API_KEY = 'sk-ai-sdk-test';
// Expected texts, read from the mock scripts (so a script and its test cannot drift apart).
const { HELLO, HELLO_REASONING, WEATHER_REASONING, TURN_1, TURN_2 } = frameworkTexts();
const TOOL_OUTPUT = 'sunny, 24 degrees';
const TIMEOUT = { timeout: 30_000 };

// The three model kinds, with where their requests go and how to find the tool result that the
// SDK sends back in the second step of a tool loop.
const apis = [
  {
    name: 'openai chat',
    path: '/v1/chat/completions',
    model: (c, id) => c.openai.chat(id),
    toolResult: (body) => {
      const m = body.messages.find((x) => x.role === 'tool');
      return m && { id: m.tool_call_id, output: m.content };
    },
  },
  {
    name: 'openai responses',
    path: '/v1/responses',
    model: (c, id) => c.openai.responses(id),
    toolResult: (body) => {
      const item = body.input.find((x) => x.type === 'function_call_output');
      return item && { id: item.call_id, output: item.output };
    },
  },
  {
    name: 'anthropic',
    path: '/v1/messages',
    model: (c, id) => c.anthropic(id),
    toolResult: (body) => {
      const block = body.messages.at(-1).content.find((b) => b.type === 'tool_result');
      return block && { id: block.tool_use_id, output: block.content };
    },
  },
];

// What each model kind shows of the scripted `<think>` block.
function checkReasoning(api, { text, reasoning, reasoningText }) {
  assert.ok(!text.includes('<think>') && !text.includes(HELLO_REASONING), `reasoning leaked into the text: ${text}`);
  if (api.name === 'anthropic') {
    assert.equal(reasoningText, HELLO_REASONING);
  } else if (api.name === 'openai responses') {
    // @ai-sdk/openai reads a Responses reasoning item's text only from its `summary`, which is
    // empty unless a summary is asked for (see the summary test below); the item itself arrives.
    assert.equal(reasoning.length, 1);
    assert.match(reasoning[0].providerMetadata.openai.itemId, /^rs_/);
  }
  // openai chat: @ai-sdk/openai's chat model does not read `reasoning_content` at all (the
  // tests check that crux sent it, with chatReasoningOnTheWire).
}

// The `reasoning_content` of a Chat Completions answer as crux sent it (JSON or SSE).
function chatReasoningOnTheWire(responseText) {
  if (responseText.trimStart().startsWith('{')) return JSON.parse(responseText).choices[0].message.reasoning_content;
  let reasoning = '';
  for (const line of responseText.split('\n')) {
    if (!line.startsWith('data:') || line.includes('[DONE]')) continue;
    for (const choice of JSON.parse(line.slice(5)).choices) reasoning += choice.delta.reasoning_content ?? '';
  }
  return reasoning;
}

describe('ai-sdk', () => {
  let server;
  let clients;

  before(async () => {
    server = await startServer(['--api-key', API_KEY]);
  });
  after(async () => server?.stop());

  // A fresh recorder (and clients using it) per test.
  function setup() {
    const recorder = recordingFetch();
    clients = {
      openai: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, fetch: recorder.fetch }),
      anthropic: createAnthropic({ baseURL: `${server.url}/v1`, apiKey: API_KEY, fetch: recorder.fetch }),
    };
    return recorder.requests;
  }

  // Every request went to crux, at the API's endpoint.
  function checkRequests(api, requests, count) {
    assert.equal(requests.length, count);
    for (const r of requests) assert.equal(r.url, `${server.url}${api.path}`);
  }

  const common = { maxRetries: 0, maxOutputTokens: 1024 };

  function weatherTools(calls) {
    return {
      get_weather: tool({
        description: 'Current weather in a city',
        inputSchema: z.object({ city: z.string(), unit: z.enum(['celsius', 'fahrenheit']) }),
        execute: async (args) => {
          calls.push(args);
          return TOOL_OUTPUT;
        },
      }),
    };
  }

  for (const api of apis) {
    test(`${api.name}: generateText, plain answer`, TIMEOUT, async () => {
      const requests = setup();
      const r = await generateText({ ...common, model: api.model(clients, 'reasoning'), prompt: 'hi' });
      assert.equal(r.text, HELLO);
      assert.equal(r.finishReason, 'stop');
      checkReasoning(api, r);
      assert.ok(r.usage.inputTokens > 0 && r.usage.outputTokens > 0);
      checkRequests(api, requests, 1);
      assert.equal(requests[0].body.model, 'reasoning');
      if (api.name === 'openai chat') assert.equal(chatReasoningOnTheWire(await requests[0].responseText), HELLO_REASONING);
    });

    test(`${api.name}: streamText, plain answer`, TIMEOUT, async () => {
      const requests = setup();
      const r = streamText({ ...common, model: api.model(clients, 'reasoning'), prompt: 'hi' });
      const deltas = [];
      for await (const d of r.textStream) deltas.push(d);
      assert.ok(deltas.length > 1, 'the text arrives in several deltas');
      assert.equal(deltas.join(''), HELLO);
      assert.equal(await r.text, HELLO);
      assert.equal(await r.finishReason, 'stop');
      checkReasoning(api, { text: await r.text, reasoning: await r.reasoning, reasoningText: await r.reasoningText });
      checkRequests(api, requests, 1);
      assert.equal(requests[0].body.stream, true);
      if (api.name === 'openai chat') assert.equal(chatReasoningOnTheWire(await requests[0].responseText), HELLO_REASONING);
    });

    for (const streaming of [false, true]) {
      const fn = streaming ? 'streamText' : 'generateText';
      test(`${api.name}: ${fn}, tool loop (tool call, execute, answer)`, TIMEOUT, async () => {
        const requests = setup();
        const calls = [];
        const options = {
          ...common, model: api.model(clients, 'weather'), prompt: 'What is the weather in Paris?',
          tools: weatherTools(calls), stopWhen: isStepCount(3),
        };
        let steps;
        let text;
        if (streaming) {
          const r = streamText(options);
          let streamed = '';
          for await (const d of r.textStream) streamed += d;
          assert.equal(streamed, 'Let me check.It is sunny in Paris.');
          steps = await r.steps;
          text = await r.text;
        } else {
          const r = await generateText(options);
          steps = r.steps;
          text = r.text;
        }
        assert.deepEqual(calls, [{ city: 'Paris', unit: 'celsius' }]);
        assert.equal(text, 'It is sunny in Paris.');
        assert.equal(steps.length, 2);
        assert.equal(steps[0].finishReason, 'tool-calls');
        assert.equal(steps[0].text, 'Let me check.');
        assert.equal(steps[0].toolCalls.length, 1);
        const call = steps[0].toolCalls[0];
        assert.equal(call.toolName, 'get_weather');
        assert.deepEqual(call.input, { city: 'Paris', unit: 'celsius' });
        assert.equal(steps[0].toolResults[0].output, TOOL_OUTPUT);
        assert.equal(steps[1].finishReason, 'stop');
        checkRequests(api, requests, 2);
        // The second request carries the result under the id crux gave the call.
        assert.deepEqual(api.toolResult(requests[1].body), { id: call.toolCallId, output: TOOL_OUTPUT });
      });
    }
  }

  test('openai: the default provider model speaks the Responses API', TIMEOUT, async () => {
    const requests = setup();
    const r = await generateText({ ...common, model: clients.openai('plain'), prompt: 'hi' });
    assert.equal(r.text, HELLO);
    assert.equal(requests.length, 1);
    assert.equal(requests[0].url, `${server.url}/v1/responses`);
  });

  // Anthropic thinking blocks must go back in the next step of a tool loop, with the signature
  // crux gave them; @ai-sdk/anthropic drops a thinking block it got no signature for.
  for (const streaming of [false, true]) {
    const fn = streaming ? 'streamText' : 'generateText';
    test(`anthropic: ${fn} sends the thinking block of step 1 back in step 2`, TIMEOUT, async () => {
      const requests = setup();
      const calls = [];
      const options = {
        ...common, model: clients.anthropic('weather'), prompt: 'What is the weather in Paris?',
        tools: weatherTools(calls), stopWhen: isStepCount(3),
      };
      let steps;
      if (streaming) {
        const r = streamText(options);
        await r.consumeStream();
        steps = await r.steps;
      } else {
        steps = (await generateText(options)).steps;
      }
      assert.equal(steps.length, 2);
      assert.equal(steps[0].reasoningText, WEATHER_REASONING);
      assert.equal(requests.length, 2);
      // What crux gave the thinking block in step 1's answer.
      const signatures = anthropicSignatures(await requests[0].responseText);
      assert.equal(signatures.length, 1);
      const [signature] = signatures;
      const assistant = requests[1].body.messages[1];
      assert.equal(assistant.role, 'assistant');
      assert.deepEqual(assistant.content.map((b) => b.type), ['thinking', 'text', 'tool_use']);
      assert.deepEqual(assistant.content[0], { type: 'thinking', thinking: WEATHER_REASONING, signature });
      assert.equal(assistant.content[1].text, 'Let me check.');
      assert.deepEqual(assistant.content[2].input, { city: 'Paris', unit: 'celsius' });
    });
  }

  test('anthropic: thinking blocks carry a signature, streamed and not', TIMEOUT, async () => {
    const requests = setup();
    const model = clients.anthropic('reasoning');
    const g = await generateText({ ...common, model, prompt: 'hi' });
    const s = streamText({ ...common, model, prompt: 'hi' });
    await s.consumeStream();
    const results = [['body', g.reasoning], ['stream', await s.reasoning]];
    for (const [i, [how, reasoning]] of results.entries()) {
      const signatures = anthropicSignatures(await requests[i].responseText);
      assert.equal(signatures.length, 1, how);
      assert.equal(typeof signatures[0], 'string', how);
      assert.ok(signatures[0].length > 0, `${how}: the signature is not empty`);
      assert.equal(reasoning.length, 1, how);
      assert.equal(reasoning[0].text, HELLO_REASONING, how);
      assert.equal(reasoning[0].providerMetadata?.anthropic?.signature, signatures[0], how);
    }
  });

  test('openai responses: a requested reasoning summary carries the reasoning', TIMEOUT, async () => {
    setup();
    const options = {
      ...common, model: clients.openai.responses('reasoning'), prompt: 'hi',
      // forceReasoning: the SDK sends reasoning options only to models it takes for reasoning models.
      providerOptions: { openai: { reasoningSummary: 'auto', forceReasoning: true } },
    };
    const g = await generateText(options);
    assert.equal(g.text, HELLO);
    assert.equal(g.reasoningText, HELLO_REASONING);
    const s = streamText(options);
    assert.equal(await s.text, HELLO);
    assert.equal(await s.reasoningText, HELLO_REASONING);
  });

  // A two-turn chat: the second request must get the script's second turn, not a replay of the
  // first. Over Responses the SDK's default (store: true) sends the first turn's output as
  // `item_reference` items, so crux has to resolve them.
  for (const api of apis) {
    for (const streaming of [false, true]) {
      const fn = streaming ? 'streamText' : 'generateText';
      test(`${api.name}: ${fn}, a two-turn chat gets the second turn`, TIMEOUT, async () => {
        const requests = setup();
        const model = api.model(clients, 'fw-two-turns');
        const run = async (messages) => {
          if (!streaming) return generateText({ ...common, model, messages });
          const r = streamText({ ...common, model, messages });
          return { text: await r.text, response: await r.response };
        };
        const messages = [{ role: 'user', content: 'What is the capital of France?' }];
        const first = await run(messages);
        assert.equal(first.text, TURN_1);
        messages.push(...first.response.messages, { role: 'user', content: 'How many people live there?' });
        const second = await run(messages);
        assert.equal(second.text, TURN_2);
        checkRequests(api, requests, 2);
        if (api.name === 'openai responses') {
          // The SDK sent the first turn by reference, not verbatim.
          const refs = requests[1].body.input.filter((i) => i.type === 'item_reference');
          assert.ok(refs.length > 0, JSON.stringify(requests[1].body.input));
        }
      });
    }
  }

  test('openai responses: previous_response_id continues the conversation', TIMEOUT, async () => {
    const requests = setup();
    const model = clients.openai.responses('fw-two-turns');
    const first = await generateText({ ...common, model, prompt: 'What is the capital of France?' });
    assert.equal(first.text, TURN_1);
    const responseId = first.providerMetadata.openai.responseId;
    assert.match(responseId, /^resp_/);
    const second = await generateText({
      ...common, model, prompt: 'How many people live there?',
      providerOptions: { openai: { previousResponseId: responseId } },
    });
    assert.equal(requests[1].body.previous_response_id, responseId);
    assert.equal(requests[1].body.input.length, 1);
    assert.equal(second.text, TURN_2);
  });

  test('openai responses: an unknown previous_response_id is a 404 naming it', TIMEOUT, async () => {
    setup();
    await assert.rejects(generateText({
      ...common, model: clients.openai.responses('fw-two-turns'), prompt: 'hi',
      providerOptions: { openai: { previousResponseId: 'resp_does_not_exist' } },
    }), (e) => e.statusCode === 404 && /resp_does_not_exist/.test(e.message));
  });

  test('openai responses: with store false the SDK resends the history', TIMEOUT, async () => {
    const requests = setup();
    const model = clients.openai.responses('fw-two-turns');
    const providerOptions = { openai: { store: false } };
    const messages = [{ role: 'user', content: 'What is the capital of France?' }];
    const first = await generateText({ ...common, model, messages, providerOptions });
    assert.equal(first.text, TURN_1);
    messages.push(...first.response.messages, { role: 'user', content: 'How many people live there?' });
    const second = await generateText({ ...common, model, messages, providerOptions });
    assert.equal(second.text, TURN_2);
    assert.equal(requests[1].body.store, false);
    assert.ok(!requests[1].body.input.some((i) => i.type === 'item_reference'));
  });

  test('a wrong API key is an APICallError with status 401, in each API', TIMEOUT, async () => {
    const wrong = {
      openai: createOpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong' }),
      anthropic: createAnthropic({ baseURL: `${server.url}/v1`, apiKey: 'wrong' }),
    };
    for (const api of apis) {
      await assert.rejects(generateText({ ...common, model: api.model(wrong, 'plain'), prompt: 'hi' }),
        (e) => e.statusCode === 401, api.name);
    }
  });
});

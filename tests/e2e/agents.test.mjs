// @openai/agents over Chat Completions and Responses: an agent calls a zod tool, gets its
// result, and answers — the tool call and the final text must survive each API's stream.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { Agent, run, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled, tool } from '@openai/agents';
import OpenAI from 'openai-7';
import { z } from 'zod';

import { startServer } from './lib/server.mjs';

describe('@openai/agents', () => {
  let server;
  let calls;
  const getWeather = tool({
    name: 'get_weather',
    description: 'Current weather in a city',
    parameters: z.object({ city: z.string(), unit: z.string() }),
    execute: async ({ city }) => {
      calls.push(city);
      return `sunny in ${city}`;
    },
  });

  before(async () => {
    setTracingDisabled(true);
    server = await startServer();
    setDefaultOpenAIClient(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'unused', maxRetries: 0 }));
  });
  after(async () => server.stop());

  for (const api of ['chat_completions', 'responses']) {
    for (const streaming of [false, true]) {
      test(`${api}, ${streaming ? 'streamed' : 'not streamed'}: tool call then answer`, async () => {
        setOpenAIAPI(api);
        calls = [];
        const agent = new Agent({ name: 'weather', instructions: 'Answer with the weather.', model: 'weather', tools: [getWeather] });
        const result = await run(agent, 'What is the weather in Paris?', { stream: streaming });
        if (streaming) {
          for await (const _ of result) { /* drain */ }
          await result.completed;
        }
        assert.deepEqual(calls, ['Paris']);
        assert.equal(result.finalOutput, 'It is sunny in Paris.');
      });
    }
  }
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { answerText, applyChunk, newAssistantMessage, pendingToolCalls, reasoningText, reasoningTokens } from '../src/stream.js';

const delta = (d, finish = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] });

test('reasoning then text build two parts in order; the role chunk shows nothing', () => {
  const m = newAssistantMessage();
  assert.equal(applyChunk(m, delta({ role: 'assistant', content: '' })), false);
  for (const piece of ['The user', ' greets', ' me.']) applyChunk(m, delta({ reasoning_content: piece }));
  for (const piece of ['Hello', '!']) applyChunk(m, delta({ content: piece }));
  applyChunk(m, delta({}, 'stop'));
  assert.deepEqual(m.parts.map((p) => p.type), ['reasoning', 'text']);
  assert.equal(reasoningText(m), 'The user greets me.');
  assert.equal(answerText(m), 'Hello!');
  assert.equal(m.finish, 'stop');
  assert.equal(m.chunks, 5);
  assert.equal(reasoningTokens(m), 3, 'counted from the chunks before usage arrives');
  applyChunk(m, { choices: [], usage: { completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } } });
  assert.equal(reasoningTokens(m), 4, 'the server’s count once usage arrives');
});

test('"reasoning" (vLLM’s newer field) is read as reasoning too', () => {
  const m = newAssistantMessage();
  applyChunk(m, delta({ reasoning: 'hmm' }));
  assert.equal(reasoningText(m), 'hmm');
});

test('tool-call arguments grow across chunks, per index', () => {
  const m = newAssistantMessage();
  applyChunk(m, delta({ content: 'Let me check.' }));
  applyChunk(m, delta({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }));
  applyChunk(m, delta({ tool_calls: [{ index: 0, function: { arguments: '{"city": ' } }] }));
  applyChunk(m, delta({ tool_calls: [{ index: 1, id: 'call_2', function: { name: 'get_time', arguments: '{}' } }] }));
  applyChunk(m, delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }));
  applyChunk(m, delta({}, 'tool_calls'));
  const calls = m.parts.filter((p) => p.type === 'tool');
  assert.equal(calls.length, 2);
  assert.deepEqual([calls[0].id, calls[0].name, calls[0].arguments], ['call_1', 'get_weather', '{"city": "Paris"}']);
  assert.deepEqual([calls[1].id, calls[1].name, calls[1].arguments], ['call_2', 'get_time', '{}']);
  assert.equal(pendingToolCalls(m).length, 2);
  calls[0].result = 'sunny';
  assert.deepEqual(pendingToolCalls(m), [calls[1]]);
});

test('an MCP call the server ran is one part with its output; the next round’s calls are new parts', () => {
  const m = newAssistantMessage();
  applyChunk(m, delta({ mcp_call: { id: 'mcp_1', server: 'everything', name: 'everything__echo', arguments: '{"message":"hi"}', output: 'Echo: hi', is_error: false } }));
  applyChunk(m, delta({ content: 'It said hi.' }));
  applyChunk(m, delta({ tool_calls: [{ index: 0, id: 'call_9', function: { name: 'mine', arguments: '{}' } }] }));
  assert.deepEqual(m.parts.map((p) => p.type), ['tool', 'text', 'tool']);
  assert.equal(m.parts[0].ran, true);
  assert.equal(m.parts[0].output, 'Echo: hi');
  assert.equal(m.parts[2].ran, false);
  assert.deepEqual(pendingToolCalls(m), [m.parts[2]], 'only the client’s call waits for a result');
});

test('an in-stream error is kept on the message', () => {
  const m = newAssistantMessage();
  applyChunk(m, delta({ content: 'partial' }));
  assert.equal(applyChunk(m, { error: { message: 'upstream failed mid-generation', type: 'server_error' } }), true);
  assert.equal(m.error, 'upstream failed mid-generation');
  assert.equal(answerText(m), 'partial', 'the text before the error stays');
});

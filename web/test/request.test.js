import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_SETTINGS, buildRequest, parseTools, responseFormat, titleFor, toMessages } from '../src/request.js';

const settings = (over = {}) => ({ ...DEFAULT_SETTINGS, model: 'plain', ...over });
const conversation = (messages) => ({ messages });

test('a first message: the model, the message, streaming with usage, thinking on', () => {
  const body = buildRequest(conversation([{ role: 'user', text: 'hi' }]), settings());
  assert.deepEqual(body, {
    model: 'plain',
    messages: [{ role: 'user', content: 'hi' }],
    stream: true,
    stream_options: { include_usage: true },
    chat_template_kwargs: { enable_thinking: true },
  });
});

test('the settings become their request fields', () => {
  const body = buildRequest(conversation([{ role: 'user', text: 'hi' }]), settings({
    system: 'Be brief.', temperature: '0.7', maxTokens: '64', thinkingBudget: '32', mcpTools: true,
    clientTools: true, toolsJson: '[{"name":"f","parameters":{"type":"object"}}]', jsonMode: true, schema: '{"type":"object"}',
  }));
  assert.deepEqual(body.messages[0], { role: 'system', content: 'Be brief.' });
  assert.equal(body.temperature, 0.7);
  assert.equal(body.max_tokens, 64);
  assert.equal(body.thinking_token_budget, 32);
  assert.equal(body.mcp_tools, true);
  assert.deepEqual(body.tools, [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]);
  assert.deepEqual(body.response_format, { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } });
});

test('tool_choice goes with the tools: required or none when chosen, auto left to the default', () => {
  const tools = { clientTools: true, toolsJson: '[{"name":"f"}]' };
  assert.equal(buildRequest(conversation([]), settings({ ...tools, toolChoice: 'required' })).tool_choice, 'required');
  assert.equal(buildRequest(conversation([]), settings({ ...tools, toolChoice: 'none' })).tool_choice, 'none');
  assert.equal('tool_choice' in buildRequest(conversation([]), settings({ ...tools, toolChoice: 'auto' })), false);
  assert.equal('tool_choice' in buildRequest(conversation([]), settings({ toolChoice: 'required' })), false, 'no tools, no tool_choice');
  assert.equal(buildRequest(conversation([]), settings({ ...tools, parallelTools: false })).parallel_tool_calls, false);
  assert.equal('parallel_tool_calls' in buildRequest(conversation([]), settings({ ...tools })), false, 'the server’s default otherwise');
});

test('thinking off sends enable_thinking false and no budget; tools off sends none', () => {
  const body = buildRequest(conversation([]), settings({ thinking: false, thinkingBudget: '10', clientTools: false, toolsJson: '[{"name":"f"}]' }));
  assert.deepEqual(body.chat_template_kwargs, { enable_thinking: false });
  assert.equal(body.thinking_token_budget, undefined);
  assert.equal(body.tools, undefined);
});

test('a setting that is wrong is an error naming it', () => {
  const c = conversation([]);
  assert.throws(() => buildRequest(c, settings({ temperature: 'warm' })), /Temperature must be a number/);
  assert.throws(() => buildRequest(c, settings({ maxTokens: '1.5' })), /Max tokens must be a whole number/);
  assert.throws(() => buildRequest(c, settings({ maxTokens: '0' })), /Max tokens .* at least 1/);
  assert.throws(() => buildRequest(c, settings({ jsonMode: true, schema: '{nope' })), /The schema is not JSON/);
  assert.throws(() => buildRequest(c, settings({ clientTools: true, toolsJson: '{}' })), /Tools must be a JSON array/);
  assert.throws(() => parseTools('[{"description":"x"}]'), /Tool 1 has no name/);
});

test('JSON mode without a schema asks for any JSON object', () => {
  assert.deepEqual(responseFormat(''), { type: 'json_object' });
  assert.deepEqual(responseFormat('  '), { type: 'json_object' });
});

test('history: the assistant’s text, reasoning and tool calls, then the results the user gave', () => {
  const messages = toMessages(conversation([
    { role: 'user', text: 'weather?' },
    { role: 'assistant', state: 'done', parts: [
      { type: 'reasoning', text: 'call it', chunks: 2 },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool', ran: true, name: 'srv__x', arguments: '{}', output: 'done' },
      { type: 'tool', ran: false, id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', result: 'sunny' },
    ] },
    { role: 'assistant', state: 'streaming', parts: [{ type: 'text', text: 'in progress' }] },
  ]), settings());
  assert.deepEqual(messages, [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: 'Let me check.', reasoning_content: 'call it',
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ]);
});

test('a stopped answer with nothing in it is left out of the history', () => {
  const messages = toMessages(conversation([{ role: 'user', text: 'a' }, { role: 'assistant', state: 'stopped', parts: [] }, { role: 'user', text: 'b' }]), settings());
  assert.deepEqual(messages.map((m) => m.content), ['a', 'b']);
});

test('titles are the first line, shortened', () => {
  assert.equal(titleFor('  Hello there\nsecond line'), 'Hello there');
  assert.equal(titleFor('x'.repeat(60)).length, 48);
  assert.equal(titleFor('   '), 'New chat');
});

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { checkAnswer } from '../src/jsonmode.js';
import { schemaProblem } from '../src/request.js';

const SCHEMA = JSON.stringify({
  type: 'object',
  properties: { city: { type: 'string', minLength: 1 }, temperature: { type: 'integer', minimum: -90 } },
  required: ['city', 'temperature'],
  additionalProperties: false,
});

test('an answer that matches the schema is valid and pretty-printed', () => {
  const r = checkAnswer('{"city":"Paris","temperature":21}', SCHEMA);
  assert.equal(r.valid, true);
  assert.equal(r.pretty, '{\n  "city": "Paris",\n  "temperature": 21\n}');
  assert.deepEqual(r.errors, []);
});

test('an answer that breaks the schema is invalid, naming where', () => {
  const r = checkAnswer('{"city":"","temperature":21.5,"extra":1}', SCHEMA);
  assert.equal(r.json, true);
  assert.equal(r.valid, false);
  assert.ok(r.errors.some((e) => e.startsWith('#/city')), r.errors.join('; '));
  assert.ok(r.errors.some((e) => e.startsWith('#/temperature')), r.errors.join('; '));
});

test('text that is not JSON is invalid and shown as it is', () => {
  const r = checkAnswer('{"city": "Par', SCHEMA);
  assert.equal(r.json, false);
  assert.equal(r.valid, false);
  assert.equal(r.pretty, '{"city": "Par');
  assert.match(r.errors[0], /^not JSON/);
});

test('without a schema, any JSON object is valid and nothing else is', () => {
  assert.equal(checkAnswer('{"a":[1,2]}', '').valid, true);
  assert.equal(checkAnswer('[1,2]', '').valid, false);
  assert.equal(checkAnswer('"text"', '').valid, false);
});

test('the schema editor names what is wrong with its text', () => {
  assert.equal(schemaProblem(''), null);
  assert.equal(schemaProblem(SCHEMA), null);
  assert.match(schemaProblem('{"type":'), /^not JSON/);
  assert.equal(schemaProblem('[1]'), 'a schema is a JSON object');
  assert.equal(schemaProblem('3'), 'a schema is a JSON object');
});

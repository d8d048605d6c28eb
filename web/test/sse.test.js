import assert from 'node:assert/strict';
import { test } from 'node:test';

import { SseReader } from '../src/sse.js';

const STREAM = ': keep-alive\n\ndata: {"a":1}\n\nevent: ping\ndata: {"type":"ping"}\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n';
const EXPECTED = [
  { event: 'message', data: '{"a":1}' },
  { event: 'ping', data: '{"type":"ping"}' },
  { event: 'message', data: 'line one\nline two' },
  { event: 'message', data: '[DONE]' },
];

function readAll(pieces) {
  const reader = new SseReader();
  return pieces.flatMap((p) => reader.feed(p));
}

test('a whole stream at once gives every event; comments are skipped', () => {
  assert.deepEqual(readAll([STREAM]), EXPECTED);
});

test('every split into two pieces gives the same events', () => {
  for (let i = 0; i <= STREAM.length; i++) {
    assert.deepEqual(readAll([STREAM.slice(0, i), STREAM.slice(i)]), EXPECTED, `split at ${i}`);
  }
});

test('one character at a time gives the same events', () => {
  assert.deepEqual(readAll([...STREAM]), EXPECTED);
});

test('CRLF and CR line ends, split anywhere, read as LF', () => {
  for (const eol of ['\r\n', '\r']) {
    const text = STREAM.replaceAll('\n', eol);
    for (let i = 0; i <= text.length; i++) {
      assert.deepEqual(readAll([text.slice(0, i), text.slice(i)]), EXPECTED, `${JSON.stringify(eol)} split at ${i}`);
    }
  }
});

test('an event without a blank line after it is not given yet', () => {
  const reader = new SseReader();
  assert.deepEqual(reader.feed('data: {"partial":true}\n'), []);
  assert.deepEqual(reader.feed('\n'), [{ event: 'message', data: '{"partial":true}' }]);
});

test('"data:" without a space and a field with no colon', () => {
  assert.deepEqual(readAll(['data:x\n\ndata\n\n']), [{ event: 'message', data: 'x' }, { event: 'message', data: '' }]);
});

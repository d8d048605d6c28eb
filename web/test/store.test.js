import assert from 'node:assert/strict';
import { test } from 'node:test';

import { DEFAULT_SETTINGS } from '../src/request.js';
import { ChatStore, newConversation, settle } from '../src/store.js';

// localStorage's interface over a Map; `quota` bytes at most, as a browser refuses more.
class FakeStorage {
  constructor(quota = Infinity) {
    this.map = new Map();
    this.quota = quota;
  }
  getItem(k) { return this.map.has(k) ? this.map.get(k) : null; }
  setItem(k, v) {
    const used = [...this.map.entries()].reduce((n, [key, val]) => n + (key === k ? 0 : key.length + val.length), 0);
    if (used + k.length + String(v).length > this.quota) throw new Error('QuotaExceededError');
    this.map.set(k, String(v));
  }
  removeItem(k) { this.map.delete(k); }
}

test('conversations come back in order, with their settings and messages', () => {
  const storage = new FakeStorage();
  const store = new ChatStore(storage);
  const a = newConversation({ model: 'plain' });
  const b = newConversation({ model: 'reasoning', jsonMode: true });
  a.messages.push({ role: 'user', text: 'hi' });
  store.save(a);
  store.save(b);
  store.saveIndex([b, a], a.id, { ...DEFAULT_SETTINGS, model: 'reasoning' });
  const again = new ChatStore(storage);
  const list = again.list();
  assert.deepEqual(list.map((c) => c.id), [b.id, a.id]);
  assert.deepEqual(list[1].messages, [{ role: 'user', text: 'hi' }]);
  assert.equal(list[0].settings.jsonMode, true);
  assert.equal(again.index().current, a.id);
  assert.equal(again.index().defaults.model, 'reasoning');
});

test('a damaged conversation is left out, the others load', () => {
  const storage = new FakeStorage();
  const store = new ChatStore(storage);
  const a = newConversation();
  const b = newConversation();
  store.save(a);
  store.save(b);
  store.saveIndex([a, b], a.id, DEFAULT_SETTINGS);
  storage.setItem(`crux.chat.${a.id}`, '{not json');
  assert.deepEqual(store.list().map((c) => c.id), [b.id]);
  storage.setItem('crux.chat.index', 'garbage');
  assert.deepEqual(store.index().ids, [], 'a damaged index reads as empty, not as an exception');
});

test('a full storage is reported, not thrown', () => {
  const store = new ChatStore(new FakeStorage(200));
  const c = newConversation();
  c.messages.push({ role: 'user', text: 'x'.repeat(500) });
  assert.equal(store.save(c), false);
  assert.match(store.error, /could not be saved.*QuotaExceededError/);
});

test('the API key is kept and forgotten', () => {
  const store = new ChatStore(new FakeStorage());
  assert.equal(store.apiKey(), '');
  store.setApiKey('sk-test');
  assert.equal(store.apiKey(), 'sk-test');
  store.setApiKey('');
  assert.equal(store.apiKey(), '');
});

test('an answer that was streaming when the page closed reads as interrupted', () => {
  const c = newConversation();
  c.messages.push({ role: 'assistant', state: 'streaming', parts: [] }, { role: 'assistant', state: 'done', parts: [] });
  settle(c);
  assert.deepEqual(c.messages.map((m) => m.state), ['interrupted', 'done']);
});

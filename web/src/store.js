// Conversations kept in the browser (localStorage): one key for the list, one per
// conversation, so a long chat is written alone and a damaged entry loses only itself.
import { DEFAULT_SETTINGS } from './request.js';

const PREFIX = 'crux.chat.';
const INDEX = `${PREFIX}index`;
const KEY = 'crux.apiKey';

export function newId() {
  const bytes = new Uint8Array(8);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export function newConversation(settings = DEFAULT_SETTINGS) {
  const now = Date.now();
  return { id: newId(), title: 'New chat', created: now, updated: now, settings: { ...DEFAULT_SETTINGS, ...settings }, messages: [] };
}

function readJson(storage, key) {
  try {
    const text = storage.getItem(key);
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

export class ChatStore {
  constructor(storage) {
    this.storage = storage;
    this.error = null;  // the last write that failed (storage full, private mode), for the page
  }

  // {ids, current, defaults}: the conversations newest first, the one open, the settings a
  // new conversation starts with.
  index() {
    const index = readJson(this.storage, INDEX);
    const ids = Array.isArray(index?.ids) ? index.ids.filter((id) => typeof id === 'string') : [];
    return { ids, current: typeof index?.current === 'string' ? index.current : null, defaults: { ...DEFAULT_SETTINGS, ...(index?.defaults ?? {}) } };
  }

  // Every conversation that can be read, newest first; a damaged or missing one is left out.
  list() {
    const out = [];
    for (const id of this.index().ids) {
      const c = readJson(this.storage, PREFIX + id);
      if (c && Array.isArray(c.messages)) out.push({ ...c, settings: { ...DEFAULT_SETTINGS, ...(c.settings ?? {}) } });
    }
    return out;
  }

  write(key, value) {
    try {
      this.storage.setItem(key, JSON.stringify(value));
      this.error = null;
      return true;
    } catch (e) {
      this.error = `The conversation could not be saved in this browser: ${e.message}`;
      return false;
    }
  }

  saveIndex(conversations, current, defaults) {
    return this.write(INDEX, { ids: conversations.map((c) => c.id), current, defaults });
  }

  save(conversation) {
    return this.write(PREFIX + conversation.id, conversation);
  }

  remove(id) {
    this.storage.removeItem(PREFIX + id);
  }

  apiKey() {
    return this.storage.getItem(KEY) ?? '';
  }

  setApiKey(key) {
    if (!key) {
      this.storage.removeItem(KEY);
      return;
    }
    try {
      this.storage.setItem(KEY, key);
    } catch (e) {
      this.error = `The API key could not be saved in this browser: ${e.message}`;
    }
  }
}

// A conversation that was streaming when the page went away stays, marked as interrupted.
export function settle(conversation) {
  for (const m of conversation.messages) {
    if (m.role === 'assistant' && m.state === 'streaming') m.state = 'interrupted';
  }
  return conversation;
}

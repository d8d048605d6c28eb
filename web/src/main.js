// The chat page: conversations in the browser's storage, each streamed from the server's
// own /v1/chat/completions.
import { ApiError, listMcpTools, listModels, streamChat } from './api.js';
import { el, libsReady, renderAssistant, renderUser } from './render.js';
import { buildRequest, parseTools, schemaProblem, titleFor } from './request.js';
import { ChatStore, newConversation, settle } from './store.js';
import { applyChunk, newAssistantMessage, pendingToolCalls } from './stream.js';

const $ = (id) => document.getElementById(id);
const nodes = new WeakMap();  // message → its element (never stored with the message)
const store = new ChatStore(window.localStorage);
const state = {
  conversations: [],
  current: null,
  defaults: null,
  models: [],
  mcpTools: [],
  apiKey: store.apiKey(),
  running: null,  // {controller, message} while a generation streams
};

function notice(text) {
  const n = $('notice');
  n.textContent = text ?? '';
  n.hidden = !text;
}

function persist(conversation = state.current) {
  conversation.updated = Date.now();
  store.save(conversation);
  store.saveIndex(state.conversations, state.current?.id ?? null, state.defaults);
  if (store.error) notice(store.error);
}

// ---- the sidebar ----

function renderSidebar() {
  const items = state.conversations.map((c) => {
    const open = el('button', { class: 'open', type: 'button', text: c.title, 'aria-current': c === state.current ? 'page' : false, onclick: () => select(c) });
    const remove = el('button', { class: 'delete', type: 'button', 'aria-label': `Delete “${c.title}”`, title: 'Delete', text: '×', onclick: () => removeConversation(c) });
    return el('li', { class: c === state.current ? 'active' : '' }, open, remove);
  });
  $('conversations').replaceChildren(...items);
}

function setSidebar(open) {
  $('app').classList.toggle('sidebar-open', open);
  $('menu').setAttribute('aria-expanded', String(open));
  $('scrim').hidden = !open;
  if (open) $('new-chat').focus();
}

function select(conversation) {
  if (state.running) stop();
  state.current = conversation;
  persist(conversation);
  renderAll();
  setSidebar(false);
  $('input').focus();
}

function removeConversation(conversation) {
  if (state.running && state.current === conversation) stop();
  state.conversations = state.conversations.filter((c) => c !== conversation);
  store.remove(conversation.id);
  if (state.current === conversation) state.current = state.conversations[0] ?? null;
  if (!state.current) startConversation();
  else persist();
  renderAll();
}

function startConversation() {
  const c = newConversation(state.defaults);
  if (!c.settings.model && state.models.length > 0) c.settings.model = state.models[0];
  state.conversations.unshift(c);
  state.current = c;
  persist(c);
  return c;
}

// ---- the messages ----

const hooks = {
  resultForm(part) {
    const input = el('textarea', { rows: '2', 'aria-label': `Result of ${part.name}`, placeholder: `Result of ${part.name}` });
    const button = el('button', { type: 'submit', class: 'primary', text: 'Send result' });
    return el('form', { class: 'tool-result-form', onsubmit: (e) => { e.preventDefault(); answerTool(part, input.value); } }, input, button);
  },
};

function messageNode(message) {
  return message.role === 'user' ? renderUser(message) : renderAssistant(message, hooks);
}

function renderMessages() {
  const c = state.current;
  const elements = c.messages.map((m) => {
    const node = messageNode(m);
    nodes.set(m, node);
    return node;
  });
  $('empty').hidden = elements.length > 0;
  $('messages').replaceChildren($('empty'), ...elements);
  scrollToEnd(true);
}

function scrollToEnd(force = false) {
  const box = $('messages');
  const near = box.scrollHeight - box.scrollTop - box.clientHeight < 120;
  if (force || near) box.scrollTop = box.scrollHeight;
}

function renderHeader() {
  const s = state.current.settings;
  $('title').textContent = state.current.title;
  document.title = `${state.current.title} · crux`;
  const mode = [s.model || 'no model', s.jsonMode ? 'JSON' : null, s.thinking ? 'thinking' : null, s.mcpTools || s.clientTools ? 'tools' : null];
  $('mode').textContent = mode.filter(Boolean).join(' · ');
}

function renderAll() {
  renderSidebar();
  renderHeader();
  renderMessages();
}

// Batches the re-render of a streaming message to one per frame.
let frame = 0;
function scheduleUpdate(message) {
  if (frame) return;
  frame = requestAnimationFrame(() => {
    frame = 0;
    nodes.get(message)?.update();
    scrollToEnd();
  });
}

// ---- generating ----

function setRunning(running) {
  $('send').hidden = running;
  $('stop').hidden = !running;
  $('composer').classList.toggle('running', running);
}

function markFirstToken(message) {
  if (message.timing.first !== undefined) return;
  message.timing.first = performance.now();
  performance.measure('crux:first-token', { start: message.timing.sent, end: message.timing.first });
}

// `sent`: when the user sent it (performance.now()), the start of the first-token time.
async function generate(conversation, sent = performance.now()) {
  let body;
  try {
    body = buildRequest(conversation, conversation.settings);
  } catch (e) {
    notice(e.message);
    return;
  }
  notice(null);
  const message = newAssistantMessage();
  if (conversation.settings.jsonMode) message.json = { schema: conversation.settings.schema };
  conversation.messages.push(message);
  persist(conversation);
  const node = messageNode(message);
  nodes.set(message, node);
  $('empty').hidden = true;
  $('messages').append(node);
  scrollToEnd(true);
  const controller = new AbortController();
  state.running = { controller, message, conversation };
  setRunning(true);
  message.timing.sent = sent;
  try {
    message.constraint = await streamChat(body, {
      apiKey: state.apiKey,
      signal: controller.signal,
      onChunk: (chunk) => {
        if (applyChunk(message, chunk)) markFirstToken(message);
        scheduleUpdate(message);
      },
    });
    message.state = message.error ? 'error' : 'done';
  } catch (e) {
    if (controller.signal.aborted) {
      message.state = 'stopped';
    } else {
      message.state = 'error';
      message.error = e.message;
      if (e instanceof ApiError && e.status === 401) openKeyDialog('This server needs an API key.');
    }
  }
  message.timing.end = performance.now();
  state.running = null;
  setRunning(false);
  if (state.conversations.includes(conversation)) persist(conversation);  // not once deleted
  node.update();
  scrollToEnd();
}

function stop() {
  state.running?.controller.abort();
}

async function send(text) {
  if (state.running) return;
  const sent = performance.now();
  const c = state.current;
  if (!c.settings.model && state.models.length > 0) c.settings.model = state.models[0];
  if (c.messages.length === 0) c.title = titleFor(text);
  const user = { role: 'user', text };
  c.messages.push(user);
  const node = renderUser(user);
  $('messages').append(node);
  renderSidebar();
  renderHeader();
  await generate(c, sent);
}

async function answerTool(part, result) {
  if (state.running) return;
  part.result = result;
  const c = state.current;
  const last = c.messages.at(-1);
  nodes.get(last)?.update();
  persist(c);
  if (last.role === 'assistant' && pendingToolCalls(last).length === 0) await generate(c);
}

// ---- settings ----

const fields = {
  model: ['set-model', 'value'],
  system: ['set-system', 'value'],
  temperature: ['set-temperature', 'value'],
  maxTokens: ['set-max-tokens', 'value'],
  thinking: ['set-thinking', 'checked'],
  thinkingBudget: ['set-thinking-budget', 'value'],
  mcpTools: ['set-mcp-tools', 'checked'],
  clientTools: ['set-client-tools', 'checked'],
  toolsJson: ['set-tools-json', 'value'],
  toolChoice: ['set-tool-choice', 'value'],
  parallelTools: ['set-parallel-tools', 'checked'],
  jsonMode: ['set-json-mode', 'checked'],
  schema: ['set-schema', 'value'],
};

function fillModels() {
  const current = state.current.settings.model;
  const names = state.models.includes(current) || !current ? state.models : [current, ...state.models];
  $('set-model').replaceChildren(...names.map((m) => el('option', { value: m, text: m })));
}

function showSettingsStatus() {
  const s = state.current.settings;
  const problem = schemaProblem(s.schema);
  $('schema-status').textContent = problem ? `Schema: ${problem}` : s.schema.trim() ? 'Schema: ✓ JSON' : '';
  $('schema-status').className = `status ${problem ? 'bad' : 'good'}`;
  let tools = '';
  if (s.toolsJson.trim()) {
    try {
      tools = `✓ ${parseTools(s.toolsJson).length} tool(s)`;
    } catch (e) {
      tools = e.message;
    }
  }
  $('tools-status').textContent = tools;
  $('tools-status').className = `status ${tools.startsWith('✓') ? 'good' : 'bad'}`;
  $('set-thinking-budget').disabled = !s.thinking;
  $('set-tools-json').disabled = !s.clientTools;
  $('set-tool-choice').disabled = !s.clientTools;
  $('set-parallel-tools').disabled = !s.clientTools;
  $('set-schema').disabled = !s.jsonMode;
  $('set-mcp-tools').disabled = state.mcpTools.length === 0 && !s.mcpTools;
  $('mcp-count').textContent = state.mcpTools.length ? `(${state.mcpTools.length} offered)` : '(none offered)';
}

function openSettings() {
  fillModels();
  const s = state.current.settings;
  for (const [key, [id, prop]] of Object.entries(fields)) $(id)[prop] = s[key];
  showSettingsStatus();
  $('settings').showModal();
}

function readSettings() {
  const s = state.current.settings;
  for (const [key, [id, prop]] of Object.entries(fields)) s[key] = $(id)[prop];
  state.defaults = { ...s };
  showSettingsStatus();
  renderHeader();
  persist();
}

// ---- the API key ----

function openKeyDialog(reason) {
  $('key-reason').textContent = reason ?? 'Sent as Authorization: Bearer to this server only, and kept in this browser.';
  $('key-input').value = state.apiKey;
  if (!$('key-dialog').open) $('key-dialog').showModal();
}

function saveKey(key) {
  state.apiKey = key;
  store.setApiKey(key);
  if (store.error) notice(store.error);
  loadServer();
}

// ---- start ----

async function loadServer() {
  try {
    state.models = await listModels(state.apiKey);
    notice(null);
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) openKeyDialog('This server needs an API key.');
    else notice(`The server did not list its models: ${e.message}`);
    return;
  }
  state.mcpTools = await listMcpTools(state.apiKey);
  $('server-info').textContent = `${state.models.length} model(s)${state.mcpTools.length ? ` · ${state.mcpTools.length} MCP tools` : ''}`;
  const s = state.current.settings;
  if (!s.model || !state.models.includes(s.model)) {
    if (!s.model && state.models.length > 0) s.model = state.models[0];
  }
  renderHeader();
}

function wire() {
  $('composer').addEventListener('submit', (e) => {
    e.preventDefault();
    const text = $('input').value;
    if (!text.trim() || state.running) return;
    $('input').value = '';
    send(text);
  });
  $('input').addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      $('composer').requestSubmit();
    }
  });
  $('stop').addEventListener('click', stop);
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && state.running && !document.querySelector('dialog[open]')) {
      e.preventDefault();
      stop();
    } else if (e.altKey && (e.key === 'n' || e.key === 'N')) {
      e.preventDefault();
      $('new-chat').click();
    } else if (e.altKey && (e.key === 's' || e.key === 'S')) {
      e.preventDefault();
      openSettings();
    }
  });
  $('new-chat').addEventListener('click', () => {
    if (state.running) stop();
    startConversation();
    renderAll();
    setSidebar(false);
    $('input').focus();
  });
  $('menu').addEventListener('click', () => setSidebar(!$('app').classList.contains('sidebar-open')));
  $('scrim').addEventListener('click', () => setSidebar(false));
  $('settings-button').addEventListener('click', openSettings);
  $('settings-form').addEventListener('input', readSettings);
  $('settings-form').addEventListener('change', readSettings);
  $('key-button').addEventListener('click', () => openKeyDialog());
  $('key-dialog').addEventListener('close', () => {
    const action = $('key-dialog').returnValue;
    if (action === 'save') saveKey($('key-input').value.trim());
    else if (action === 'clear') saveKey('');
  });
}

function start() {
  const index = store.index();
  state.defaults = index.defaults;
  state.conversations = store.list().map(settle);
  state.current = state.conversations.find((c) => c.id === index.current) ?? state.conversations[0] ?? null;
  if (!state.current) startConversation();
  wire();
  renderAll();
  // The markdown and JSON libraries load after the first paint; then the messages shown as
  // plain text until now are rendered in place.
  libsReady.then(() => {
    for (const m of state.current?.messages ?? []) {
      if (m.role === 'assistant') nodes.get(m)?.update?.();
    }
  });
  loadServer();
  $('input').focus();
}

start();

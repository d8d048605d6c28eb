// The messages of a conversation as DOM. An assistant message is updated in place while it
// streams: each part keeps its element, so an opened reasoning block stays open and only
// the text that grew is rendered again.
import { answerText, reasoningTokens } from './stream.js';

// markdown.js and jsonmode.js with their libraries (marked, DOMPurify, highlight.js, the
// schema validator): a separate file, loaded without delaying the first paint. Until it is
// there, answers show as plain text.
let libs = null;
export const libsReady = Promise.all([import('./markdown.js'), import('./jsonmode.js')])
  .then(([markdown, jsonmode]) => { libs = { ...markdown, ...jsonmode }; });

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attributes)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? '' : v);
  }
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
}

export function renderUser(message) {
  return el('article', { class: 'message user', 'aria-label': 'You' }, el('div', { class: 'bubble', text: message.text }));
}

function reasoningElement() {
  const count = el('span', { class: 'count' });
  const label = el('span', { class: 'label' });
  const summary = el('summary', {}, label, ' · ', count, ' tokens');
  const body = el('div', { class: 'reasoning-text' });
  const node = el('details', { class: 'reasoning' }, summary, body);
  node.update = (part, message, streaming) => {
    label.textContent = streaming ? 'Reasoning…' : 'Reasoning';
    count.textContent = String(reasoningTokens(message, part));
    if (body.textContent !== part.text) body.textContent = part.text;
  };
  return node;
}

function prettyArguments(text) {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function toolStatus(part, streaming) {
  if (part.ran) return part.isError ? `ran on ${part.server || 'the server'}: error` : `ran on ${part.server || 'the server'}`;
  if (streaming) return 'calling…';
  return part.result === undefined ? 'waiting for your result' : 'answered';
}

function toolElement(hooks) {
  const name = el('span', { class: 'tool-name' });
  const status = el('span', { class: 'tool-status' });
  const args = el('pre', { class: 'tool-args' });
  const result = el('pre', { class: 'tool-result' });
  const slot = el('div', { class: 'tool-answer' });
  const node = el('div', { class: 'tool-call', role: 'group' }, el('div', { class: 'tool-head' }, el('span', { class: 'tool-icon', 'aria-hidden': 'true', text: 'ƒ' }), name, status), args, result, slot);
  node.update = (part, message, streaming) => {
    name.textContent = part.name || '…';
    node.setAttribute('aria-label', `Tool call ${part.name}`);
    node.dataset.ran = String(Boolean(part.ran));
    status.textContent = toolStatus(part, streaming);
    const shown = streaming ? part.arguments : prettyArguments(part.arguments);
    if (args.textContent !== shown) args.textContent = shown;
    const output = part.ran ? part.output : part.result;
    result.hidden = output === undefined;
    result.classList.toggle('is-error', Boolean(part.isError));
    if (output !== undefined && result.textContent !== output) result.textContent = output;
    const waiting = !part.ran && !streaming && part.result === undefined && message.state === 'done';
    if (waiting && !slot.firstChild) slot.append(hooks.resultForm(part));
    if (!waiting) slot.replaceChildren();
  };
  return node;
}

function textElement() {
  const node = el('div', { class: 'text markdown' });
  node.update = (part) => {
    if (node.rendered === part.text) return;
    if (!libs) {
      node.textContent = part.text;
      return;
    }
    node.rendered = part.text;
    libs.renderMarkdown(node, part.text);
  };
  return node;
}

// `mode`: the JSON mode the request was sent with ({schema}).
function jsonElement(mode) {
  const badge = el('div', { class: 'json-badge' });
  const code = el('code');
  const errors = el('ul', { class: 'json-errors' });
  const node = el('div', { class: 'json-output' }, badge, el('pre', {}, code), errors);
  node.update = (message, streaming) => {
    const text = answerText(message);
    if (streaming || message.state !== 'done' || !libs) {
      badge.textContent = streaming ? 'JSON · streaming' : libs ? 'JSON · incomplete' : 'JSON';
      badge.className = 'json-badge';
      code.className = '';
      code.textContent = text;
      return;
    }
    const check = libs.checkAnswer(text, mode.schema);
    badge.className = `json-badge ${check.valid ? 'valid' : 'invalid'}`;
    badge.textContent = check.valid ? (mode.schema?.trim() ? '✓ valid JSON · matches the schema' : '✓ valid JSON object') : '✗ invalid';
    if (check.json) libs.renderJson(code, check.pretty);
    else code.textContent = text;
    errors.replaceChildren(...check.errors.map((e) => el('li', { text: e })));
  };
  return node;
}

function statsText(message) {
  const out = [];
  const u = message.usage;
  if (u) out.push(`${u.completion_tokens} tokens`);
  const t = message.timing;
  if (t.first !== undefined && t.sent !== undefined) out.push(`first token ${Math.round(t.first - t.sent)} ms`);
  if (u && t.first !== undefined && t.end !== undefined && t.end - t.first >= 100 && u.completion_tokens > 1) {
    out.push(`${((u.completion_tokens - 1) / ((t.end - t.first) / 1000)).toFixed(1)} tok/s`);
  }
  if (message.finish) out.push(`finish: ${message.finish}`);
  if (message.state === 'stopped') out.push('stopped');
  if (message.state === 'interrupted') out.push('interrupted (the page was closed)');
  if (message.constraint) out.push(`constraint: ${message.constraint}`);
  return out.join(' · ');
}

// The element of an assistant message; call its update() after each change.
export function renderAssistant(message, hooks) {
  const parts = el('div', { class: 'parts' });
  const json = message.json ? jsonElement(message.json) : null;
  const meta = el('div', { class: 'meta' });
  const error = el('div', { class: 'error', role: 'alert' });
  const node = el('article', { class: 'message assistant', 'aria-label': 'Assistant' }, parts, json, error, meta);
  node.update = () => {
    const streaming = message.state === 'streaming';
    node.dataset.state = message.state;
    node.dataset.chunks = String(message.chunks);
    message.parts.forEach((part, i) => {
      if (json && part.type === 'text') return;
      let child = parts.querySelector(`:scope > [data-part="${i}"]`);
      if (!child) {
        child = part.type === 'reasoning' ? reasoningElement() : part.type === 'tool' ? toolElement(hooks) : textElement();
        child.dataset.part = String(i);
        parts.append(child);
      }
      child.update(part, message, streaming);
    });
    if (json) json.update(message, streaming);
    error.hidden = !message.error;
    error.textContent = message.error ?? '';
    meta.textContent = statsText(message);
  };
  node.update();
  return node;
}

// The chat page that `crux serve` embeds at GET /, in a real browser (Debian's Chromium,
// driven headless by playwright-core; nothing downloads a browser): streaming answers,
// reasoning, tool calls, JSON mode, stop, reload, an API key, keyboard-only use and a
// phone-sized screen, against the mock engine and the tiny model. Each state is saved as a
// screenshot under CRUX_ARTIFACTS (default: a temporary folder) after its key elements are
// checked. Skipped where Chromium is not installed (scripts/install-deps.sh installs it).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import { checkPlace, llamaCppDir, place, startModelServer, tinyModel } from './lib/model.mjs';
import { metric, startServer } from './lib/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const SCRIPTS = path.join(here, 'webui-scripts');
const ARTIFACTS = process.env.CRUX_ARTIFACTS ?? path.join(os.tmpdir(), 'crux-webui');
const script = (name) => readFileSync(path.join(SCRIPTS, `${name}.txt`), 'utf8');
const reasoningOf = (text) => /<think>\n?([\s\S]*?)<\/think>/.exec(text)[1].trim();

const WEATHER_TOOL = JSON.stringify([{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city',
  parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { enum: ['celsius', 'fahrenheit'] } }, required: ['city'] } } }]);
const WEATHER_SCHEMA = JSON.stringify({ type: 'object', properties: { city: { type: 'string' }, temperature: { type: 'integer' },
  conditions: { type: 'array', items: { type: 'string' } } }, required: ['city', 'temperature'], additionalProperties: false }, null, 2);

let browser;

async function launch() {
  const { chromium } = await import('playwright-core');
  mkdirSync(ARTIFACTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--host-resolver-rules=MAP rebind.example 127.0.0.1'],
  });
}

// A page in a fresh browser profile; every request it makes and every script error is kept.
async function open(url, { viewport = { width: 1200, height: 820 }, context = null } = {}) {
  const ctx = context ?? await browser.newContext({ viewport });
  const page = await ctx.newPage();
  page.requests = [];
  page.errors = [];
  page.on('request', (r) => page.requests.push(r.url()));
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') page.errors.push(m.text()); });
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('#set-model') !== null);
  return page;
}

// Checks that each selector is visible, then saves the screenshot and checks it is a PNG.
async function shot(page, name, selectors) {
  for (const s of selectors) assert.ok(await page.locator(s).first().isVisible(), `${name}: ${s} is visible`);
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file });
  const png = readFileSync(file);
  assert.equal(png.subarray(1, 4).toString(), 'PNG');
  assert.ok(statSync(file).size > 5000, `${name}.png has content`);
}

async function settings(page, values) {
  await page.click('#settings-button');
  for (const [id, value] of Object.entries(values)) {
    if (typeof value === 'boolean') await page.setChecked(`#${id}`, value);
    else if (id === 'set-model') await page.selectOption(`#${id}`, value);
    else await page.fill(`#${id}`, value);
  }
  await page.click('#settings-done');
}

const last = (page) => page.locator('.message.assistant').last();

// Sends a message and waits until the answer is no longer streaming.
async function ask(page, text) {
  const before = await page.locator('.message.assistant').count();
  await page.fill('#input', text);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => {
    const all = document.querySelectorAll('.message.assistant');
    return all.length > n && all[all.length - 1].dataset.state !== 'streaming';
  }, before, { timeout: 60000 });
  return page.locator('.message.assistant').nth(before);
}

function get(port, pathname, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path: pathname, headers: { Host: `127.0.0.1:${port}`, ...headers } }, (res) => {
      const chunks = [];
      res.on('data', (d) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(check, what, ms = 5000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('the chat page, on the mock engine', { skip: !available && `no browser at ${CHROMIUM}` }, () => {
  let crux;
  let page;
  before(async () => {
    browser = await launch();
    crux = await startServer(['--tokens-per-second', '150'], { script: SCRIPTS });
  });
  after(async () => {
    await browser?.close();
    browser = null;
    await crux?.stop();
  });

  test('the page comes from crux alone: gzip, ETag, a strict CSP, no other origin', async () => {
    const gz = await get(crux.port, '/', { 'Accept-Encoding': 'gzip, br' });
    assert.equal(gz.status, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(gz.headers['content-type'], /^text\/html/);
    assert.match(gunzipSync(gz.body).toString(), /<script type="module" src="\/ui\/app.js">/);
    assert.match(gz.headers['content-security-policy'], /default-src 'none'/);
    assert.match(gz.headers['content-security-policy'], /script-src 'self'/);
    assert.match(gz.headers['content-security-policy'], /frame-ancestors 'none'/);
    assert.equal(gz.headers['x-content-type-options'], 'nosniff');
    const plain = await get(crux.port, '/ui/app.js');
    assert.equal(plain.headers['content-encoding'], undefined, 'no gzip for a client that did not ask');
    assert.match(plain.headers['content-type'], /javascript/);
    const again = await get(crux.port, '/ui/app.js', { 'If-None-Match': plain.headers.etag });
    assert.equal(again.status, 304);
    assert.equal(again.body.length, 0);
    assert.equal((await get(crux.port, '/ui/nothing.js')).status, 404);

    page = await open(crux.url);
    const origin = new URL(crux.url).origin;
    await page.waitForFunction(() => document.querySelectorAll('#set-model option').length > 0 || document.querySelector('#server-info').textContent !== '');
    assert.deepEqual(page.requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:')), [], 'every request goes to crux');
    assert.deepEqual(page.errors, []);
    await shot(page, 'empty', ['#input', '#send', '#new-chat', '#settings-button']);
  });

  test('a message streams its answer, with reasoning collapsed and the right text', async () => {
    const chat = script('chat');
    // The length of the answer in view at each change of the page: several partial lengths
    // mean it streamed into view rather than appearing at the end.
    await page.evaluate(() => {
      window.lengths = [];
      new MutationObserver(() => {
        const text = document.querySelector('.message.assistant:last-of-type .text');
        if (text) window.lengths.push(text.textContent.length);
      }).observe(document.querySelector('#messages'), { subtree: true, childList: true, characterData: true });
    });
    const answer = await ask(page, 'Hello, what can you do?');
    assert.equal(await answer.getAttribute('data-state'), 'done');
    assert.ok(Number(await answer.getAttribute('data-chunks')) > 20, 'the answer came in many chunks');
    const lengths = await page.evaluate(() => window.lengths);
    const partial = new Set(lengths.filter((n) => n > 0 && n < lengths.at(-1)));
    assert.ok(partial.size >= 2, `the answer grew in view: ${lengths}`);
    const text = answer.locator('.text');
    assert.match(await text.innerText(), /Hello! Here is what crux can do:/);
    assert.equal(await text.locator('strong').innerText(), 'crux', 'markdown renders');
    assert.ok(await text.locator('pre code .hljs-keyword').count() > 0, 'code is highlighted');
    const reasoning = answer.locator('details.reasoning');
    assert.equal(await reasoning.getAttribute('open'), null, 'reasoning starts collapsed');
    assert.match(await reasoning.locator('summary').innerText(), /^Reasoning · \d+ tokens$/);
    assert.equal((await reasoning.locator('.reasoning-text').textContent()).trim(), reasoningOf(chat));
    assert.match(await answer.locator('.meta').innerText(), /tokens · first token \d+ ms/);
    await shot(page, 'answer', ['.message.user', '.message.assistant .text', 'details.reasoning summary']);
    await reasoning.locator('summary').click();
    assert.equal(await reasoning.getAttribute('open'), '');
    await shot(page, 'reasoning-open', ['.reasoning-text']);
    assert.equal(await page.locator('#conversations li').count(), 1);
    assert.match(await page.locator('#conversations li.active').innerText(), /Hello, what can you do\?/);
  });

  test('a tool call renders with its arguments; the result the user gives continues the turn', async () => {
    await page.click('#new-chat');
    await settings(page, { 'set-model': 'weather', 'set-client-tools': true, 'set-tools-json': WEATHER_TOOL });
    assert.match(await page.locator('#mode').innerText(), /weather.*tools/);
    const answer = await ask(page, 'Weather in Paris?');
    const call = answer.locator('.tool-call');
    assert.equal(await call.locator('.tool-name').innerText(), 'get_weather');
    assert.deepEqual(JSON.parse(await call.locator('.tool-args').innerText()), { city: 'Paris', unit: 'celsius' });
    assert.equal(await call.locator('.tool-status').innerText(), 'waiting for your result');
    assert.match(await answer.locator('.meta').innerText(), /finish: tool_calls/);
    await shot(page, 'tool-call', ['.tool-call .tool-name', '.tool-call .tool-args', '.tool-result-form textarea']);
    await call.locator('.tool-result-form textarea').fill('sunny, 21 °C');
    await call.locator('.tool-result-form button').click();
    await page.waitForFunction(() => {
      const all = document.querySelectorAll('.message.assistant');
      return all.length === 2 && all[1].dataset.state === 'done';
    });
    assert.match(await last(page).locator('.text').innerText(), /It is sunny in Paris/);
    assert.equal(await call.locator('.tool-result').innerText(), 'sunny, 21 °C');
    await shot(page, 'tool-result', ['.tool-result']);
  });

  test('JSON mode: the answer is pretty-printed and marked valid against the schema', async () => {
    await page.click('#new-chat');
    await settings(page, { 'set-model': 'json', 'set-json-mode': true, 'set-schema': '{"type": ' });
    await page.click('#settings-button');
    assert.match(await page.locator('#schema-status').innerText(), /Schema: not JSON/, 'the editor names a broken schema');
    await page.fill('#set-schema', WEATHER_SCHEMA);
    assert.equal(await page.locator('#schema-status').innerText(), 'Schema: ✓ JSON');
    await shot(page, 'json-schema-editor', ['#set-schema', '#schema-status']);
    await page.click('#settings-done');
    const answer = await ask(page, 'Weather in Paris, as JSON');
    const badge = answer.locator('.json-badge');
    assert.equal(await badge.getAttribute('class'), 'json-badge valid');
    assert.match(await badge.innerText(), /valid JSON · matches the schema/);
    const pretty = await answer.locator('.json-output pre').innerText();
    assert.equal(pretty, JSON.stringify({ city: 'Paris', temperature: 21, conditions: ['sunny', 'light wind'] }, null, 2));
    assert.match(await answer.locator('.meta').innerText(), /constraint: validated/, 'the server checked it too');
    await shot(page, 'json', ['.json-badge.valid', '.json-output pre']);
  });

  test('reload keeps the conversations and their messages', async () => {
    await page.reload();
    await page.waitForSelector('.message.assistant');
    assert.equal(await page.locator('#conversations li').count(), 3);
    // (The JSON check arrives with the libraries, after the first paint.)
    await page.waitForSelector('.json-badge.valid');
    assert.equal(await page.locator('.json-badge.valid').count(), 1, 'the open conversation is the JSON one');
    await page.locator('#conversations li').nth(1).locator('.open').click();
    assert.equal(await page.locator('.tool-call .tool-name').innerText(), 'get_weather');
    assert.equal(await page.locator('.tool-call .tool-result').innerText(), 'sunny, 21 °C');
    await page.locator('#conversations li').nth(2).locator('.open').click();
    assert.equal((await page.locator('.reasoning-text').textContent()).trim(), reasoningOf(script('chat')));
    await shot(page, 'reloaded', ['#conversations li', '.message.assistant .text']);
    assert.deepEqual(page.errors, []);
  });
});

describe('the chat page: stop, keyboard, phone, API key, flags', { skip: !available && `no browser at ${CHROMIUM}` }, () => {
  let slow;
  before(async () => {
    browser ??= await launch();
    slow = await startServer(['--tokens-per-second', '25', '--api-key', 'sk-page'], { script: SCRIPTS });
  });
  after(async () => {
    await browser?.close();
    browser = null;
    await slow?.stop();
  });

  test('an API key: asked for, kept in the browser, sent with every request', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    const page = await open(slow.url, { context });
    await page.waitForSelector('#key-dialog[open]');
    assert.match(await page.locator('#key-reason').innerText(), /needs an API key/);
    await shot(page, 'api-key', ['#key-input', '#key-save']);
    await page.fill('#key-input', 'sk-page');
    await page.click('#key-save');
    await page.waitForFunction(() => /model/.test(document.querySelector('#server-info').textContent));
    await page.reload();
    await page.waitForFunction(() => /model/.test(document.querySelector('#server-info').textContent));
    assert.equal(await page.locator('#key-dialog[open]').count(), 0, 'the key was kept');
    await context.close();
  });

  test('stop cancels the generation on the server; Escape does too', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    await context.addInitScript(() => localStorage.setItem('crux.apiKey', 'sk-page'));
    const page = await open(slow.url, { context });
    await settings(page, { 'set-model': 'long' });
    const cancelled = await metric(slow.url, 'crux_cancelled_total');
    await page.fill('#input', 'Write a lot');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => Number(document.querySelector('.message.assistant')?.dataset.chunks) >= 5);
    assert.ok(await page.locator('#stop').isVisible(), 'Stop shows while it streams');
    await page.click('#stop');
    await page.waitForSelector('.message.assistant[data-state="stopped"]');
    await until(async () => await metric(slow.url, 'crux_cancelled_total') > cancelled, 'the server to count the cancellation');
    assert.ok((await last(page).locator('.text').innerText()).length < script('long').length / 2, 'the answer stopped early');
    assert.match(await last(page).locator('.meta').innerText(), /stopped/);
    assert.ok(await page.locator('#send').isVisible());
    await shot(page, 'stopped', ['.message.assistant[data-state="stopped"]', '#send']);

    // The same with the keyboard alone: Alt+N, type, Enter, Escape.
    await page.keyboard.press('Alt+N');
    assert.equal(await page.evaluate(() => document.activeElement.id), 'input');
    await page.keyboard.type('Again');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => Number(document.querySelector('.message.assistant')?.dataset.chunks) >= 3);
    await page.keyboard.press('Escape');
    await page.waitForSelector('.message.assistant[data-state="stopped"]');
    await until(async () => await metric(slow.url, 'crux_cancelled_total') > cancelled + 1, 'the second cancellation');
    await context.close();
  });

  test('keyboard only: every control is reached with Tab and used with Enter or Space', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    await context.addInitScript(() => localStorage.setItem('crux.apiKey', 'sk-page'));
    const page = await open(slow.url, { context });
    const reached = new Set();
    for (let i = 0; i < 12; i++) {
      await page.keyboard.press('Tab');
      reached.add(await page.evaluate(() => document.activeElement.id || document.activeElement.className));
    }
    for (const id of ['new-chat', 'key-button', 'settings-button', 'input', 'send']) assert.ok(reached.has(id), `Tab reaches #${id}: ${[...reached]}`);
    await page.focus('#settings-button');
    await page.keyboard.press('Enter');
    assert.ok(await page.locator('#settings[open]').isVisible(), 'Enter opens the settings');
    assert.equal(await page.evaluate(() => document.activeElement.closest('dialog')?.id), 'settings', 'focus moves into the dialog');
    await page.keyboard.press('Escape');
    assert.equal(await page.locator('#settings[open]').count(), 0, 'Escape closes it');
    const outline = await page.evaluate(() => {
      document.querySelector('#send').focus();
      return getComputedStyle(document.querySelector('#send')).outlineStyle;
    });
    assert.notEqual(outline, 'none', 'a focused control is outlined');
    await context.close();
  });

  test('a phone-sized screen: one column, the conversation list behind a menu button', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await context.addInitScript(() => localStorage.setItem('crux.apiKey', 'sk-page'));
    const page = await open(slow.url, { context });
    assert.equal(await page.locator('#sidebar').isVisible(), false, 'the list is hidden');
    assert.ok(await page.locator('#menu').isVisible());
    await settings(page, { 'set-model': 'chat' });
    const answer = await ask(page, 'Hello from a phone');
    assert.equal(await answer.getAttribute('data-state'), 'done');
    const box = await answer.boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 390, 'the answer fits the screen');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 390, 'nothing scrolls sideways');
    await shot(page, 'phone', ['#menu', '.message.assistant .text', '#input']);
    await page.tap('#menu');
    await page.waitForFunction(() => document.querySelector('#app').classList.contains('sidebar-open'));
    await until(() => page.locator('#sidebar').isVisible(), 'the list to slide in');
    await shot(page, 'phone-conversations', ['#sidebar', '#new-chat']);
    await context.close();
  });

  test('--no-webui answers / with a line of text and serves no page files', async () => {
    const off = await startServer(['--no-webui'], { script: SCRIPTS });
    try {
      const root = await get(off.port, '/', { 'Accept-Encoding': 'gzip' });
      assert.equal(root.status, 200);
      assert.match(root.headers['content-type'], /^text\/plain/);
      assert.match(root.body.toString(), /\/v1\/chat\/completions/);
      assert.equal((await get(off.port, '/ui/app.js')).status, 404);
    } finally {
      await off.stop();
    }
  });

  test('the page obeys the Host and Origin checks (DNS rebinding gets no page)', async () => {
    for (const p of ['/', '/ui/app.js']) {
      const res = await get(slow.port, p, { Host: 'evil.example' });
      assert.equal(res.status, 403, p);
      assert.match(res.body.toString(), /evil\.example/);
    }
    const context = await browser.newContext();
    const page = await context.newPage();
    const res = await page.goto(`http://rebind.example:${slow.port}/`);
    assert.equal(res.status(), 403, 'a page at a foreign name that resolves to crux is refused');
    await context.close();
  });
});

// The MCP tool loop: the model calls a tool of server-everything (from tests/e2e's npm ci),
// crux runs it, and the page shows the call with its result, then the answer.
const MCP_MODULES = path.join(here, 'node_modules', '@modelcontextprotocol');
describe('the chat page with MCP tools the server runs', {
  skip: (!available && `no browser at ${CHROMIUM}`) || (!existsSync(MCP_MODULES) && 'npm ci in tests/e2e first'),
}, () => {
  let crux;
  let dir;
  before(async () => {
    browser ??= await launch();
    dir = mkdtempSync(path.join(os.tmpdir(), 'crux-webui-mcp-'));
    const call = JSON.stringify({ name: 'everything__get-sum', arguments: { a: 2, b: 40 } });
    writeFileSync(path.join(dir, 'sum.txt'), `Let me add them.\n<tool_call>\n${call}\n</tool_call>\n--- next turn ---\nThe sum is 42.`);
    writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({
      mcpServers: { everything: { command: 'node', args: [path.join(MCP_MODULES, 'server-everything/dist/index.js'), 'stdio'] } },
    }));
    crux = await startServer(['--mcp-config', path.join(dir, 'mcp.json'), '--mcp-tool-loop', '--api-key', 'sk-mcp'],
      { script: dir, startTimeoutMs: 30000 });
  });
  after(async () => {
    await browser?.close();
    browser = null;
    await crux?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('server tools: the call, its arguments and the result crux got from the MCP server', async () => {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    await context.addInitScript(() => localStorage.setItem('crux.apiKey', 'sk-mcp'));
    const page = await open(crux.url, { context });
    await page.waitForFunction(() => /MCP tools/.test(document.querySelector('#server-info').textContent));
    await page.click('#settings-button');
    assert.match(await page.locator('#mcp-count').innerText(), /\(\d+ offered\)/);
    await page.click('#settings-done');
    await settings(page, { 'set-mcp-tools': true });
    const answer = await ask(page, 'What is 2 + 40?');
    const call = answer.locator('.tool-call[data-ran="true"]');
    assert.equal(await call.locator('.tool-name').innerText(), 'get-sum', 'the tool’s own name; the status names its server');
    assert.deepEqual(JSON.parse(await call.locator('.tool-args').innerText()), { a: 2, b: 40 });
    assert.equal(await call.locator('.tool-status').innerText(), 'ran on everything');
    assert.equal(await call.locator('.tool-result').innerText(), 'The sum of 2 and 40 is 42.');
    assert.match(await answer.locator('.text').last().innerText(), /The sum is 42\./);
    assert.equal(await answer.locator('.tool-result-form').count(), 0, 'nothing for the user to answer');
    await shot(page, 'mcp', ['.tool-call[data-ran="true"] .tool-result', '.message.assistant .text']);
    await context.close();
  });
});

// Qwen3.5's template opens the reasoning block in the prompt, so the random model reasons
// until the page's thinking budget ends it.
const thinkingTemplate = path.join(llamaCppDir(), 'models', 'templates', 'Qwen3.5-4B.jinja');
const modelSkip = (!available && `no browser at ${CHROMIUM}`) || (!tinyModel() && 'CRUX_TINY_MODEL not set') ||
  (!existsSync(thinkingTemplate) && 'no Qwen3.5 template in llama.cpp\'s tree');
describe('the chat page on the tiny model', { skip: modelSkip }, () => {
  let crux;
  before(async () => {
    browser ??= await launch();
    crux = await startModelServer(['--parallel', '1', '--ctx-size', '2048', '--chat-template', thinkingTemplate]);
  });
  after(async () => {
    await browser?.close();
    browser = null;
    await crux?.stop();
  });

  // (The random model's reasoning is newlines, which the parser trims: the budget is what
  // lets an answer come at all — without it, reasoning runs to max_tokens.)
  test('real generation: the thinking budget ends reasoning and the answer streams', async () => {
    const page = await open(crux.url);
    await page.waitForFunction(() => document.querySelector('#server-info').textContent !== '');
    await settings(page, { 'set-thinking-budget': '12', 'set-max-tokens': '48', 'set-temperature': '0.8' });
    const answer = await ask(page, 'Tell me about Paris');
    assert.equal(await answer.getAttribute('data-state'), 'done');
    assert.ok((await answer.locator('.text').innerText()).length > 0, 'an answer after the reasoning');
    assert.ok(Number(await answer.getAttribute('data-chunks')) > 3, 'streamed in pieces');
    assert.match(await answer.locator('.meta').innerText(), /48 tokens · first token \d+ ms .* finish: length/);
    await shot(page, 'tiny-answer', ['.message.assistant .text', '.message.assistant .meta']);
  });

  test('JSON mode on a real model: crux constrains the tokens and the page finds the answer valid', async () => {
    const page = await open(crux.url);
    await page.waitForFunction(() => document.querySelector('#server-info').textContent !== '');
    await settings(page, { 'set-thinking': false, 'set-max-tokens': '200', 'set-json-mode': true, 'set-schema': JSON.stringify(place, null, 2) });
    const answer = await ask(page, 'A forecast as JSON');
    assert.equal(await answer.locator('.json-badge').getAttribute('class'), 'json-badge valid', await answer.innerText());
    assert.match(await answer.locator('.meta').innerText(), /constraint: enforced/);
    await shot(page, 'tiny-json', ['.json-badge.valid', '.json-output pre']);
  });

  test('a tool call on a real model: tool_choice required gives a call whose arguments fit the schema', async () => {
    const page = await open(crux.url);
    await page.waitForFunction(() => document.querySelector('#server-info').textContent !== '');
    const tools = JSON.stringify([{ type: 'function', function: { name: 'get_weather', parameters: place } }]);
    await settings(page, { 'set-thinking': false, 'set-max-tokens': '300', 'set-client-tools': true, 'set-tools-json': tools, 'set-parallel-tools': false });
    await page.click('#settings-button');
    await page.selectOption('#set-tool-choice', 'required');
    await page.click('#settings-done');
    const answer = await ask(page, 'Weather in Paris?');
    const calls = answer.locator('.tool-call');
    assert.equal(await calls.count(), 1, 'one call: parallel calls are off');
    for (const call of await calls.all()) {
      assert.equal(await call.locator('.tool-name').innerText(), 'get_weather');
      checkPlace(JSON.parse(await call.locator('.tool-args').innerText()));
    }
    assert.match(await answer.locator('.meta').innerText(), /finish: tool_calls/);
    await shot(page, 'tiny-tool-call', ['.tool-call .tool-name', '.tool-call .tool-args']);
  });

  test('stop on a real model frees its slot at once; reload keeps the conversation', async () => {
    const page = await open(crux.url);
    await page.waitForFunction(() => document.querySelector('#server-info').textContent !== '');
    await settings(page, { 'set-thinking': false, 'set-max-tokens': '1500' });
    const cancelled = await metric(crux.url, 'crux_cancelled_total');
    await page.fill('#input', 'Write a long story');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => Number(document.querySelector('.message.assistant')?.dataset.chunks) >= 5);
    await page.click('#stop');
    await page.waitForSelector('.message.assistant[data-state="stopped"]');
    await until(async () => await metric(crux.url, 'crux_cancelled_total') > cancelled, 'the server to count the cancellation');
    const text = await last(page).locator('.text').innerText();
    await page.reload();
    await page.waitForSelector('.message.assistant[data-state="stopped"]');
    assert.equal(await last(page).locator('.text').innerText(), text, 'the stopped answer is kept as it was');
    assert.match(await page.locator('.message.user').last().innerText(), /Write a long story/);
    await shot(page, 'tiny-stopped-reloaded', ['.message.assistant[data-state="stopped"]', '.message.user']);
  });
});

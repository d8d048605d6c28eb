// Web pages against a local crux, in a real browser (Debian's Chromium, driven by
// playwright-core): what a cross-site page can and cannot make crux do, CORS for a
// configured origin, and DNS rebinding (a foreign name that resolves to 127.0.0.1 and so
// reaches crux as "same origin"). Skipped where Chromium is not installed
// (scripts/install-deps.sh installs it).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';

import { metric, startServer } from './lib/server.mjs';

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const chat = JSON.stringify({ model: 'plain', messages: [{ role: 'user', content: 'hi' }] });
const PAGE = '<!doctype html><title>page</title><p>a page</p>';

// A plain web server for the pages, on a port of its own (another origin than crux's).
async function pageServer(port = 0) {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { server, port: server.address().port, close: () => new Promise((r) => server.close(r)) };
}

async function freePort() {
  const s = http.createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((r) => s.close(r));
  return port;
}

// Prompt tokens processed: it grows with every generation that ran.
async function generated(url) {
  const n = await metric(url, 'crux_prompt_tokens_total');
  assert.ok(Number.isFinite(n), 'the metric exists');
  return n;
}

describe('web pages against crux, in Chromium', { skip: !available && `no browser at ${CHROMIUM}` }, () => {
  let browser;
  before(async () => {
    // A fresh profile of its own (playwright's), as the browser of a user would be.
    const { chromium } = await import('playwright-core');
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--host-resolver-rules=MAP rebind.example 127.0.0.1'],
    });
  });
  after(async () => browser?.close());

  test('a cross-site page cannot start a generation or read an answer', async () => {
    const crux = await startServer(['--tokens-per-second', '0']);
    const pages = await pageServer();
    const page = await browser.newPage();
    try {
      await page.goto(`http://127.0.0.1:${pages.port}/`);
      const before = await generated(crux.url);
      const results = await page.evaluate(async ({ url, body }) => {
        const out = {};
        // The classic CSRF request: text/plain needs no preflight, and a no-cors fetch is sent.
        await fetch(`${url}/v1/chat/completions`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body });
        // A form-encoded body, as an HTML form would post it.
        await fetch(`${url}/v1/chat/completions`, { method: 'POST', mode: 'no-cors', body: new URLSearchParams({ q: body }) });
        // A body with no type at all (a Blob of empty type sends no Content-Type).
        await fetch(`${url}/v1/chat/completions`, { method: 'POST', mode: 'no-cors', body: new Blob([body]) });
        // A JSON request needs a preflight, which crux does not grant to this origin.
        try {
          await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          out.json = 'read';
        } catch (e) { out.json = `blocked: ${e.name}`; }
        try {
          const r = await fetch(`${url}/v1/models`);
          out.models = `read ${r.status}`;
        } catch (e) { out.models = `blocked: ${e.name}`; }
        return out;
      }, { url: `http://localhost:${crux.port}`, body: chat });
      assert.match(results.json, /^blocked/);
      assert.match(results.models, /^blocked/);
      assert.equal(await generated(crux.url), before, `no generation ran for the page:\n${crux.log()}`);
      const refused = await metric(crux.url, 'crux_requests_total{endpoint="chat_completions",status="4xx"}');
      assert.ok(refused >= 3, `the no-cors posts were refused (${refused} 4xx)`);
    } finally {
      await page.close();
      await pages.close();
      await crux.stop();
    }
  });

  test('an origin listed in --cors-origins can call crux and read the answer, streams too', async () => {
    const pages = await pageServer();
    const origin = `http://127.0.0.1:${pages.port}`;
    const crux = await startServer(['--tokens-per-second', '0', '--cors-origins', origin]);
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/`);
      const result = await page.evaluate(async ({ url, body }) => {
        const r = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer none' }, body,
        });
        const json = await r.json();
        const s = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...JSON.parse(body), stream: true }),
        });
        const text = await s.text();
        return { status: r.status, content: json.choices[0].message.content, stream: text };
      }, { url: `http://localhost:${crux.port}`, body: chat });
      assert.equal(result.status, 200);
      assert.ok(result.content.length > 0, 'the page read the answer');
      assert.match(result.stream, /data: \[DONE\]/);
    } finally {
      await page.close();
      await pages.close();
      await crux.stop();
    }
  });

  test('DNS rebinding: a page whose name now resolves to 127.0.0.1 gets 403 from crux', async () => {
    // The attacker's page is served first; then "its" address is crux (same name and port, so
    // the browser calls it same-origin and would let the page read the answers).
    const port = await freePort();
    const pages = await pageServer(port);
    const page = await browser.newPage();
    let crux;
    try {
      await page.goto(`http://rebind.example:${port}/`);
      await pages.close();
      crux = await startServer(['--tokens-per-second', '0'], { port });
      const before = await generated(crux.url);
      const result = await page.evaluate(async (body) => {
        const models = await fetch('/v1/models');
        const post = await fetch('/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        return { models: models.status, modelsBody: await models.text(), post: post.status };
      }, chat);
      assert.equal(result.models, 403);
      assert.match(result.modelsBody, /rebind\.example/);
      assert.equal(result.post, 403);
      assert.equal(await generated(crux.url), before, 'no generation ran for the page');
    } finally {
      await page.close();
      await crux?.stop();
    }
  });
});

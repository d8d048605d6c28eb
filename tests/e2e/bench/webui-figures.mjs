// Figures for the chat page (run by hand; not a test), against `crux serve --engine mock`:
//   1. page weight: the bytes of every file a first load fetches (/, /ui/…) as a browser
//      receives them (gzip) and uncompressed
//   2. time to first contentful paint of a fresh load (new browser profile each time)
//   3. time to the first streamed token in the page: from pressing Enter to the first piece
//      of the answer in view (the page's own `crux:first-token` measure)
// Medians and tails over RUNS loads and messages (default 30), in headless Chromium.
//
//   cd tests/e2e && CRUX_BIN=../../build/release/apps/crux/crux node bench/webui-figures.mjs
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { startServer } from '../lib/server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const runs = Number(process.env.RUNS ?? 30);
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

function bytes(port, pathname, encoding) {
  return new Promise((resolve, reject) => {
    const headers = encoding ? { 'Accept-Encoding': encoding } : {};
    http.get({ host: '127.0.0.1', port, path: pathname, headers }, (res) => {
      let n = 0;
      res.on('data', (d) => { n += d.length; });
      res.on('end', () => resolve(n));
    }).on('error', reject);
  });
}

function summary(values) {
  const s = [...values].sort((a, b) => a - b);
  const at = (q) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return `p50 ${at(0.5).toFixed(1)} ms · p90 ${at(0.9).toFixed(1)} ms · max ${s.at(-1).toFixed(1)} ms (n=${s.length})`;
}

const crux = await startServer(['--tokens-per-second', '0'], { script: path.join(here, '..', 'webui-scripts') });
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  // The page's files: what a first load fetches from crux besides the API.
  const files = new Set();
  const probe = await browser.newContext();
  const page0 = await probe.newPage();
  page0.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname === '/' || url.pathname.startsWith('/ui/')) files.add(url.pathname);
  });
  await page0.goto(crux.url, { waitUntil: 'networkidle' });
  await probe.close();
  let gzip = 0;
  let identity = 0;
  for (const p of files) {
    const g = await bytes(crux.port, p, 'gzip');
    const i = await bytes(crux.port, p, null);
    gzip += g;
    identity += i;
    console.log(`${p.padEnd(28)} ${(g / 1024).toFixed(1)} KiB gzip, ${(i / 1024).toFixed(1)} KiB`);
  }
  console.log(`page weight: ${(gzip / 1024).toFixed(1)} KiB gzip (${(identity / 1024).toFixed(1)} KiB uncompressed), ${files.size} files`);

  const paints = [];
  const firstTokens = [];
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1200, height: 820 } });
    const page = await context.newPage();
    await page.goto(crux.url);
    await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0);
    paints.push(await page.evaluate(() => performance.getEntriesByName('first-contentful-paint')[0].startTime));
    await page.waitForFunction(() => document.querySelector('#server-info').textContent !== '');
    await page.fill('#input', 'Hello');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => performance.getEntriesByName('crux:first-token').length > 0);
    firstTokens.push(await page.evaluate(() => performance.getEntriesByName('crux:first-token')[0].duration));
    await page.waitForSelector('.message.assistant[data-state="done"]');
    await context.close();
  }
  console.log(`first contentful paint: ${summary(paints)}`);
  console.log(`first streamed token:   ${summary(firstTokens)}`);
} finally {
  await browser.close();
  await crux.stop();
}

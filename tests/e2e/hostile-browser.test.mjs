// What a web page can make a browser send to a local crux: simple (no-preflight) POSTs with
// text/plain or form bodies, DNS-rebinding Host names, foreign and `null` Origins, CORS
// preflights; plus request shapes a server must refuse (compressed bodies, unknown transfer
// codings), the scheme of the Authorization header, and the methods of /health.
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';

import { API, APIS } from './lib/hostile.mjs';
import { postJson, request } from './lib/raw.mjs';
import { startServer } from './lib/server.mjs';

const T = { timeout: 15_000 };

// The error of a response in its endpoint's vendor shape: OpenAI (chat, responses)
// {"error":{"message","type"}}, Anthropic {"type":"error","error":{"type","message"}}.
function assertVendorError(api, res, type) {
  assert.ok(res.json, `${api}: a JSON body, got ${JSON.stringify(res.text)}`);
  if (api === 'messages') assert.equal(res.json.type, 'error', `${api}: Anthropic shape`);
  assert.equal(typeof res.json.error?.message, 'string', `${api}: error.message`);
  if (type) assert.equal(res.json.error.type, type, `${api}: error.type`);
}

const post = (port, api, { contentType = 'application/json', body, headers = {}, ...rest } = {}) => request(port, {
  method: 'POST', path: API[api].path, body: body ?? API[api].body('plain'),
  headers: { ...(contentType === null ? {} : { 'Content-Type': contentType }), ...headers }, ...rest,
});

const hasCorsHeaders = (res) => Object.keys(res.headers).filter((h) => h.startsWith('access-control-allow-'));

describe('browser-reachable requests against a loopback server', () => {
  let server;
  before(async () => { server = await startServer(['--tokens-per-second', '0']); });
  after(async () => server?.stop());

  for (const [name, contentType] of [
    ['text/plain', 'text/plain'],
    ['text/plain;charset=UTF-8', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['multipart', 'multipart/form-data; boundary=xyz'],
    ['a missing Content-Type', null],
  ]) {
    test(`a JSON body sent as ${name} is a 415 on every API, in the API's error shape`, T, async () => {
      for (const api of APIS) {
        const res = await post(server.port, api, { contentType });
        assert.equal(res.status, 415, `${api} with ${contentType}`);
        assertVendorError(api, res, 'invalid_request_error');
      }
    });
  }

  test('application/json with parameters, in any case, is accepted', T, async () => {
    for (const contentType of ['application/json; charset=utf-8', 'Application/JSON', 'APPLICATION/JSON;CHARSET=UTF-8']) {
      for (const api of APIS) {
        assert.equal((await post(server.port, api, { contentType })).status, 200, `${api} with ${contentType}`);
      }
    }
  });

  test('Content-Encoding: gzip is a 415; Transfer-Encoding: gzip, chunked is a 501', T, async () => {
    const gz = gzipSync(JSON.stringify(API.chat.body('plain')));
    const enc = await post(server.port, 'chat', { body: gz, headers: { 'Content-Encoding': 'gzip' } });
    assert.equal(enc.status, 415);
    assertVendorError('chat', enc);
    const chunked = Buffer.concat([Buffer.from(`${gz.length.toString(16)}\r\n`), gz, Buffer.from('\r\n0\r\n\r\n')]);
    const te = await post(server.port, 'chat', { body: chunked, headers: { 'Transfer-Encoding': 'gzip, chunked' } });
    assert.equal(te.status, 501);
  });

  test('a foreign Host is a 403 on every endpoint, naming the host', T, async () => {
    const host = 'evil.example';
    for (const path of ['/', '/health', '/v1/models', '/v1/models/plain', '/metrics']) {
      const res = await request(server.port, { path, host });
      assert.equal(res.status, 403, `GET ${path}`);
      assert.ok(res.json, `GET ${path}: JSON body`);
      assert.match(res.text, /evil\.example/, `GET ${path}: the error names the host`);
    }
    for (const api of APIS) {
      const res = await post(server.port, api, { host });
      assert.equal(res.status, 403, api);
      assertVendorError(api, res);
      assert.match(res.json.error.message, /evil\.example/);
    }
  });

  test('a DNS-rebinding Host (attacker name, our port) is a 403', T, async () => {
    const host = `attacker.example:${server.port}`;
    assert.equal((await request(server.port, { path: '/v1/models', host })).status, 403);
    for (const api of APIS) {
      assert.equal((await post(server.port, api, { host })).status, 403, api);
      // Even with the Origin a rebinding page would send.
      assert.equal((await post(server.port, api, { host, headers: { Origin: `http://${host}` } })).status, 403, api);
    }
  });

  test('a missing Host on HTTP/1.1 is a 400', T, async () => {
    const res = await request(server.port, { path: '/health', host: null });
    assert.equal(res.status, 400);
  });

  test('loopback names pass, with or without a port', T, async () => {
    const p = server.port;
    for (const host of [`127.0.0.1:${p}`, '127.0.0.1', `localhost:${p}`, 'localhost', `app.localhost:${p}`, `[::1]:${p}`, '[::1]']) {
      assert.equal((await request(server.port, { path: '/v1/models', host })).status, 200, `Host: ${host}`);
      assert.equal((await post(server.port, 'chat', { host })).status, 200, `POST with Host: ${host}`);
    }
  });

  test('a foreign Origin is a 403; a same-origin one passes but gets no CORS headers', T, async () => {
    const p = server.port;
    for (const origin of ['http://evil.example', `http://evil.example:${p}`, 'null']) {
      assert.equal((await request(server.port, { path: '/v1/models', headers: { Origin: origin } })).status, 403, `GET, Origin: ${origin}`);
      for (const api of APIS) {
        const res = await post(server.port, api, { headers: { Origin: origin } });
        assert.equal(res.status, 403, `${api}, Origin: ${origin}`);
        assert.deepEqual(hasCorsHeaders(res), [], 'no Access-Control-Allow-* headers');
      }
    }
    for (const [host, origin] of [[`localhost:${p}`, `http://localhost:${p}`], [`127.0.0.1:${p}`, `http://127.0.0.1:${p}`]]) {
      for (const api of APIS) {
        const res = await post(server.port, api, { host, headers: { Origin: origin } });
        assert.equal(res.status, 200, `${api}: Host ${host}, Origin ${origin}`);
        assert.deepEqual(hasCorsHeaders(res), [], 'same-origin: no CORS headers without --cors-origins');
      }
    }
  });

  test('an unlisted origin\'s preflight gets no Access-Control-Allow-Origin', T, async () => {
    const res = await request(server.port, {
      method: 'OPTIONS', path: '/v1/chat/completions',
      headers: { Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(res.headers['access-control-allow-origin'], undefined);
    assert.deepEqual(hasCorsHeaders(res), []);
  });

  test('Authorization schemes are case-insensitive (with --api-key)', T, async () => {
    const secured = await startServer(['--api-key', 'sk-secret']);
    try {
      for (const scheme of ['Bearer', 'bearer', 'BEARER', 'BeArEr']) {
        const res = await postJson(secured.port, API.chat.path, API.chat.body('plain'), { headers: { Authorization: `${scheme} sk-secret` } });
        assert.equal(res.status, 200, `Authorization: ${scheme} KEY`);
      }
      const bad = await postJson(secured.port, API.chat.path, API.chat.body('plain'), { headers: { Authorization: 'BEARER sk-wrong' } });
      assert.equal(bad.status, 401);
    } finally {
      await secured.stop();
    }
  });

  test('POST /health is a 405 with Allow', T, async () => {
    const res = await request(server.port, { method: 'POST', path: '/health', body: '', headers: { 'Content-Type': 'application/json' } });
    assert.equal(res.status, 405);
    assert.equal(res.headers.allow, 'GET, HEAD, OPTIONS');
  });
});

describe('--cors-origins', () => {
  let server;
  before(async () => { server = await startServer(['--cors-origins', 'http://app.example,null']); });
  after(async () => server?.stop());

  test('a preflight from a listed origin gets 204 and the CORS headers', T, async () => {
    const requested = ['authorization', 'content-type', 'x-api-key', 'anthropic-version'];
    for (const api of APIS) {
      const res = await request(server.port, {
        method: 'OPTIONS', path: API[api].path,
        headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': requested.join(', ') },
      });
      assert.equal(res.status, 204, api);
      assert.equal(res.headers['access-control-allow-origin'], 'http://app.example');
      assert.match(res.headers['access-control-allow-methods'] ?? '', /\bPOST\b/);
      const allowed = (res.headers['access-control-allow-headers'] ?? '').toLowerCase().split(/\s*,\s*/);
      for (const h of requested) assert.ok(allowed.includes(h), `Access-Control-Allow-Headers covers ${h} (got ${allowed})`);
      assert.match(res.headers['access-control-max-age'] ?? '', /^\d+$/);
      assert.match(res.headers.vary ?? '', /\bOrigin\b/i);
    }
  });

  test('an actual request from a listed origin gets Access-Control-Allow-Origin and Vary: Origin', T, async () => {
    for (const api of APIS) {
      const res = await post(server.port, api, { headers: { Origin: 'http://app.example' } });
      assert.equal(res.status, 200, api);
      assert.equal(res.headers['access-control-allow-origin'], 'http://app.example');
      assert.match(res.headers.vary ?? '', /\bOrigin\b/i);
    }
  });

  test('Origin: null passes only when listed', T, async () => {
    assert.equal((await post(server.port, 'chat', { headers: { Origin: 'null' } })).status, 200);
  });

  test('an unlisted origin is refused and gets no CORS headers, preflight or not', T, async () => {
    const pre = await request(server.port, {
      method: 'OPTIONS', path: API.chat.path,
      headers: { Origin: 'http://other.example', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    assert.deepEqual(hasCorsHeaders(pre), []);
    const res = await post(server.port, 'chat', { headers: { Origin: 'http://other.example' } });
    assert.equal(res.status, 403);
    assert.deepEqual(hasCorsHeaders(res), []);
  });
});

describe('--allowed-hosts and non-loopback binds', () => {
  test('bound to 0.0.0.0, any Host is accepted', T, async () => {
    const server = await startServer(['--host', '0.0.0.0']);
    try {
      for (const host of ['whatever.example', `whatever.example:${server.port}`, '10.1.2.3']) {
        assert.equal((await request(server.port, { path: '/v1/models', host })).status, 200, host);
        assert.equal((await post(server.port, 'chat', { host })).status, 200, host);
      }
    } finally {
      await server.stop();
    }
  });

  test('--allowed-hosts restricts a 0.0.0.0 bind; * opens a loopback one', T, async () => {
    const restricted = await startServer(['--host', '0.0.0.0', '--allowed-hosts', 'api.example,gpu.internal']);
    const open = await startServer(['--allowed-hosts', '*']);
    try {
      assert.equal((await request(restricted.port, { path: '/health', host: `api.example:${restricted.port}` })).status, 200);
      assert.equal((await request(restricted.port, { path: '/health', host: 'gpu.internal' })).status, 200);
      assert.equal((await request(restricted.port, { path: '/health', host: 'other.example' })).status, 403);
      assert.equal((await post(restricted.port, 'chat', { host: 'other.example' })).status, 403);
      assert.equal((await request(open.port, { path: '/health', host: 'evil.example' })).status, 200);
      assert.equal((await post(open.port, 'chat', { host: 'evil.example' })).status, 200);
    } finally {
      await restricted.stop();
      await open.stop();
    }
  });
});

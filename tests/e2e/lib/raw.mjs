// Raw HTTP/1.x over node:net for the hostile-client suites: byte-exact requests, responses read
// until the server closes (or a timeout), a lenient parser for status line, headers and
// chunked bodies, SSE events, and /proc figures (RSS, CPU time) of a process.
// Every wait here is bounded; every socket is destroyed by its owner (RawConn.destroy).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

// One client connection that records everything the server sends.
export class RawConn {
  // keepBytes: keep only the first and the last keepBytes bytes received (for huge streams);
  // `length` still counts them all and `truncated` says whether some were dropped.
  constructor(socket, { keepBytes = Infinity } = {}) {
    this.socket = socket;
    this.chunks = [];
    this.length = 0;
    this.keepBytes = keepBytes;
    this.head = null;
    this.tail = [];
    this.tailLength = 0;
    this.truncated = false;
    this.ended = false;   // the server's FIN was read
    this.closed = false;  // the socket is closed (FIN, reset or destroy)
    this.error = null;    // e.g. ECONNRESET
    this.closedAt = null; // performance.now() when closed
    this.waiters = new Set();
    socket.on('data', (d) => {
      this.length += d.length;
      if (this.keepBytes === Infinity) {
        this.chunks.push(d);
      } else {
        this.keep(d);
      }
      this.notify();
    });
    socket.on('end', () => { this.ended = true; this.notify(); });
    socket.on('error', (e) => { this.error = e; this.notify(); });
    socket.on('close', () => {
      this.closed = true;
      this.closedAt = performance.now();
      this.notify();
    });
  }

  // Connects to 127.0.0.1:port (rejects on refusal or after timeoutMs).
  static open(port, { host = '127.0.0.1', timeoutMs = 3000, keepBytes = Infinity } = {}) {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ port, host });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connect to ${host}:${port} timed out`));
      }, timeoutMs);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new RawConn(socket, { keepBytes }));
      });
      socket.once('error', (e) => {
        clearTimeout(timer);
        socket.destroy();
        reject(e);
      });
    });
  }

  keep(d) {
    if (this.head === null || this.head.length < this.keepBytes) {
      const room = this.keepBytes - (this.head?.length ?? 0);
      this.head = Buffer.concat([this.head ?? Buffer.alloc(0), d.subarray(0, room)]);
      d = d.subarray(room);
      if (d.length === 0) return;
    }
    this.tail.push(d);
    this.tailLength += d.length;
    while (this.tailLength - this.tail[0].length >= this.keepBytes) {
      this.tailLength -= this.tail.shift().length;
      this.truncated = true;
    }
  }

  notify() {
    for (const w of [...this.waiters]) w();
  }

  // Everything received (with keepBytes: the head and the tail, which may not be contiguous).
  get buffer() {
    if (this.keepBytes !== Infinity) {
      this.tail = [Buffer.concat(this.tail)];
      return Buffer.concat([this.head ?? Buffer.alloc(0), this.tail[0]]);
    }
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0] ?? Buffer.alloc(0);
  }

  text() {
    return this.buffer.toString('utf8');
  }

  write(data) {
    if (!this.socket.destroyed) this.socket.write(data);
  }

  end(data) {
    if (!this.socket.destroyed) this.socket.end(data);
  }

  pause() { this.socket.pause(); }
  resume() { this.socket.resume(); }

  // Resolves true once pred(this) holds, false when the socket closed first or after timeoutMs.
  waitFor(pred, timeoutMs = 3000) {
    return new Promise((resolve) => {
      const check = () => {
        let ok = false;
        try { ok = pred(this); } catch { ok = false; }
        if (ok || this.closed) {
          done(ok);
          return true;
        }
        return false;
      };
      let timer = null;
      const done = (v) => {
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve(v);
      };
      if (check()) return;
      timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(check);
    });
  }

  // Resolves true when the server closed the connection within timeoutMs.
  async waitClose(timeoutMs = 3000) {
    await this.waitFor(() => false, timeoutMs);
    return this.closed;
  }

  // Waits until the text received contains `needle` (true) or the socket closed / timed out.
  waitText(needle, timeoutMs = 3000) {
    return this.waitFor((c) => c.buffer.includes(needle), timeoutMs);
  }

  // Waits for the first complete response head (status line and headers).
  waitHead(timeoutMs = 3000) {
    return this.waitFor((c) => c.buffer.includes('\r\n\r\n'), timeoutMs);
  }

  destroy() {
    this.socket.destroy();
  }
}

// The bytes of one HTTP/1.x request. `headers` is an object or an array of [name, value]
// (so that a header can be sent twice or spelt oddly); Host defaults to 127.0.0.1:port unless
// a host header is given or host === null. Content-Length is added for a body unless one of
// content-length / transfer-encoding is given or noLength is set.
export function requestBytes({ method = 'GET', path = '/', version = '1.1', port, host,
  headers = {}, body = null, noLength = false } = {}) {
  const list = Array.isArray(headers) ? [...headers] : Object.entries(headers);
  const has = (n) => list.some(([k]) => k.toLowerCase() === n);
  if (host !== null && !has('host')) list.unshift(['Host', host ?? `127.0.0.1:${port}`]);
  const bodyBuf = body === null ? null : Buffer.isBuffer(body) ? body
    : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  if (bodyBuf && !noLength && !has('content-length') && !has('transfer-encoding')) {
    list.push(['Content-Length', String(bodyBuf.length)]);
  }
  const head = `${method} ${path} HTTP/${version}\r\n` + list.map(([k, v]) => `${k}: ${v}\r\n`).join('') + '\r\n';
  return bodyBuf ? Buffer.concat([Buffer.from(head, 'latin1'), bodyBuf]) : Buffer.from(head, 'latin1');
}

// Sends `bytes` on a new connection and reads until the server closes it, or until
// `until(conn)` holds, or timeoutMs. Returns the connection (destroyed) and its parsed responses.
export async function exchange(port, bytes, { timeoutMs = 3000, until = null, end = false } = {}) {
  const conn = await RawConn.open(port, { timeoutMs });
  try {
    conn.write(bytes);
    if (end) conn.end();
    await conn.waitFor(until ?? (() => false), timeoutMs);
    const closed = conn.ended || conn.closed;
    return { conn, closed, responses: parseResponses(conn.buffer, { closedBody: closed }), raw: conn.buffer };
  } finally {
    conn.destroy();
  }
}

// One request on its own connection with `Connection: close`; resolves to the parsed response
// ({status, headers, body, text, json, complete, ...}) or throws when none came within timeoutMs.
export async function request(port, opts = {}) {
  const headers = Array.isArray(opts.headers) ? [...opts.headers] : Object.entries(opts.headers ?? {});
  if (!headers.some(([k]) => k.toLowerCase() === 'connection')) headers.push(['Connection', 'close']);
  const bytes = requestBytes({ ...opts, port, headers });
  const { responses, closed } = await exchange(port, bytes, {
    timeoutMs: opts.timeoutMs ?? 3000,
    end: opts.end ?? false,
    until: finalResponseComplete,
  });
  const final = responses.find((r) => r.status >= 200);
  if (!final) throw new Error(`no response to ${opts.method ?? 'GET'} ${opts.path ?? '/'} (closed: ${closed})`);
  return { ...final, interim: responses.filter((r) => r.status < 200), closed };
}

// Whether the connection holds a complete final (non-1xx) response; cheap enough to run on
// every chunk of a large body (the head is parsed once, then only lengths and the tail are read).
export function finalResponseComplete(c) {
  if (!c.finalHead) {
    const buf = c.buffer;
    const responses = parseResponses(buf);
    const final = responses.find((r) => r.status >= 200);
    if (!final) return false;
    if (final.complete) return true;
    const headEnd = buf.indexOf('\r\n\r\n', responses.slice(0, responses.indexOf(final)).reduce((n, r) => buf.indexOf('\r\n\r\n', n) + 4, 0));
    c.finalHead = { bodyStart: headEnd + 4, length: final.headers['content-length'], chunked: final.chunked };
  }
  const h = c.finalHead;
  if (h.chunked) {
    const last = c.chunks.at(-1) ?? c.tail.at(-1) ?? Buffer.alloc(0);
    const end = (last.length >= 7 ? last : c.buffer).subarray(-7).toString('latin1');
    if (!end.endsWith('0\r\n\r\n')) return false;
    const r = parseResponses(c.buffer).find((x) => x.status >= 200);
    return Boolean(r?.complete);
  }
  if (h.length !== undefined) return c.length >= h.bodyStart + Number(h.length);
  return false;
}

// Shorthand for a JSON POST.
export function postJson(port, path, body, { headers = {}, ...rest } = {}) {
  return request(port, { method: 'POST', path, body, headers: { 'Content-Type': 'application/json', ...headers }, ...rest });
}

// Parses as many responses as `buf` holds. Each: {version, status, reason, headers (lower-case
// names; repeated ones joined with ', '), headerList, body (Buffer, de-chunked), text, json,
// complete (the body is all there), chunked, rawBody}. The last may be incomplete. A response
// with neither Content-Length nor chunking (or to a HEAD-less close-delimited message) takes
// the rest of the buffer and is `complete` only when `closedBody` says the peer closed.
export function parseResponses(buf, { closedBody = false } = {}) {
  const out = [];
  let pos = 0;
  while (pos < buf.length) {
    const headEnd = buf.indexOf('\r\n\r\n', pos);
    if (headEnd < 0) break;
    const head = buf.subarray(pos, headEnd).toString('latin1');
    const [statusLine, ...lines] = head.split('\r\n');
    const m = statusLine.match(/^HTTP\/(\d\.\d) (\d{3})(?: (.*))?$/);
    if (!m) break;
    const headerList = lines.map((l) => { const i = l.indexOf(':'); return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()]; });
    const headers = {};
    for (const [k, v] of headerList) headers[k] = k in headers ? `${headers[k]}, ${v}` : v;
    const res = { version: m[1], status: Number(m[2]), reason: m[3] ?? '', statusLine, headers, headerList };
    pos = headEnd + 4;
    const noBody = res.status < 200 || res.status === 204 || res.status === 304;
    const chunked = /\bchunked\b/i.test(headers['transfer-encoding'] ?? '');
    res.chunked = chunked;
    if (noBody) {
      res.body = Buffer.alloc(0);
      res.complete = true;
    } else if (chunked) {
      const parts = [];
      let p = pos;
      res.complete = false;
      for (;;) {
        const lineEnd = buf.indexOf('\r\n', p);
        if (lineEnd < 0) break;
        const size = parseInt(buf.subarray(p, lineEnd).toString('latin1'), 16);
        if (Number.isNaN(size)) break;
        if (size === 0) {
          const trailerEnd = buf.indexOf('\r\n\r\n', lineEnd);
          if (buf.subarray(lineEnd, lineEnd + 4).toString() === '\r\n\r\n') { p = lineEnd + 4; res.complete = true; } else if (trailerEnd >= 0) { p = trailerEnd + 4; res.complete = true; }
          break;
        }
        if (lineEnd + 2 + size + 2 > buf.length) {
          parts.push(buf.subarray(lineEnd + 2, Math.min(buf.length, lineEnd + 2 + size)));
          p = buf.length;
          break;
        }
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        p = lineEnd + 2 + size + 2;
      }
      res.rawBody = buf.subarray(pos, p);
      res.body = Buffer.concat(parts);
      pos = p;
    } else if (headers['content-length'] !== undefined) {
      const len = Number(headers['content-length']);
      res.body = buf.subarray(pos, Math.min(buf.length, pos + len));
      res.complete = res.body.length === len;
      pos += res.body.length;
    } else {
      res.body = buf.subarray(pos);
      res.complete = closedBody;
      pos = buf.length;
    }
    res.text = res.body.toString('utf8');
    try { res.json = JSON.parse(res.text); } catch { res.json = null; }
    out.push(res);
    if (!res.complete) break;
  }
  return out;
}

// SSE events of a text: [{event, data (string), json (parsed data or null)}]; comments skipped.
export function sseEvents(text) {
  const events = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const lines = block.split(/\r?\n/).filter((l) => l && !l.startsWith(':'));
    if (lines.length === 0) continue;
    let event = null;
    const data = [];
    for (const l of lines) {
      if (l.startsWith('event:')) event = l.slice(6).trim();
      else if (l.startsWith('data:')) data.push(l.slice(5).replace(/^ /, ''));
    }
    if (data.length === 0 && event === null) continue;
    const d = data.join('\n');
    let json = null;
    try { json = JSON.parse(d); } catch { json = null; }
    events.push({ event, data: d, json });
  }
  return events;
}

// Resident set size of a process in KiB (VmRSS), or NaN when it is gone.
export function rssKiB(pid) {
  try {
    const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB/m);
    return m ? Number(m[1]) : NaN;
  } catch {
    return NaN;
  }
}

let clockTicks = null;
function ticksPerSecond() {
  if (clockTicks === null) {
    try { clockTicks = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100; } catch { clockTicks = 100; }
  }
  return clockTicks;
}

// CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat.
export function cpuSeconds(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond();
}

// Percent of one core the process used over the next `ms` milliseconds.
export async function cpuPercent(pid, ms = 2000) {
  const c0 = cpuSeconds(pid);
  const t0 = performance.now();
  await sleep(ms);
  const c1 = cpuSeconds(pid);
  return (100 * (c1 - c0)) / ((performance.now() - t0) / 1000);
}

// Opens `count` idle connections (in batches), keeping the ones that connect; failures
// (refused, reset, timeout) are counted, not thrown.
export async function openIdle(port, count, { batch = 50, timeoutMs = 2000 } = {}) {
  const conns = [];
  let failed = 0;
  for (let i = 0; i < count; i += batch) {
    const settled = await Promise.allSettled(
      Array.from({ length: Math.min(batch, count - i) }, () => RawConn.open(port, { timeoutMs })));
    for (const s of settled) {
      if (s.status === 'fulfilled') conns.push(s.value);
      else failed += 1;
    }
  }
  return { conns, failed };
}

// Polls `fn` (an async predicate) every `everyMs` until it returns true or `timeoutMs` passes.
export async function pollUntil(fn, { timeoutMs = 5000, everyMs = 100 } = {}) {
  const until = performance.now() + timeoutMs;
  for (;;) {
    let ok = false;
    try { ok = await fn(); } catch { ok = false; }
    if (ok) return true;
    if (performance.now() >= until) return false;
    await sleep(everyMs);
  }
}

// Resolves with `promise`, or rejects after ms with `label`.
export function withTimeout(promise, ms, label = 'operation') {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${label} timed out after ${ms} ms`)), ms); }),
  ]);
}

// Reads a Prometheus sample over a raw Connection: close request (no pooled connection left).
export async function rawMetric(port, name, { timeoutMs = 2000 } = {}) {
  const res = await request(port, { path: '/metrics', timeoutMs });
  const line = res.text.split('\n').find((l) => l.startsWith(name + ' ') || l.startsWith(name + '{'));
  return line ? Number(line.split(' ').pop()) : NaN;
}

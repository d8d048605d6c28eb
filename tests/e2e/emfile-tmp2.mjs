import net from 'node:net';
import { spawn } from 'node:child_process';
const bin = process.env.CRUX_BIN;
for (let round = 0; round < 6; round++) {
const p = spawn('bash', ['-c', 'ulimit -n 128 && exec "$0" "$@"', bin, 'serve', '--engine', 'mock', '--script', 'scripts', '--port', '0', '--max-connections', '1000'], { stdio: ['ignore', 'ignore', 'pipe'] });
let log = '';
p.stderr.on('data', (d) => { log += d; });
let died = false; p.on('exit', () => { died = true; });
const port = await new Promise((res) => { const t = setInterval(() => { const m = log.match(/listening on http:\/\/[^:]+:(\d+)/); if (m) { clearInterval(t); res(Number(m[1])); } }, 10); });
const socks = [];
for (let b = 0; b < 6; b++) { for (let i = 0; i < 50; i++) { const s = net.connect(port, '127.0.0.1'); s.on('error', () => {}); socks.push(s); } await new Promise((r) => setTimeout(r, 50)); }
await new Promise((r) => setTimeout(r, 800));
for (const s of socks) s.destroy();
await new Promise((r) => setTimeout(r, 300));
if (died) { console.log('DIED', log.split('\n').filter((l) => !/accept failed/.test(l)).slice(-15).join('\n')); break; }
p.kill('SIGTERM');
await new Promise((r) => setTimeout(r, 300));
}

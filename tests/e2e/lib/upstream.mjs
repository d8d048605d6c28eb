// llama.cpp's llama-server on the tiny model, as an upstream for `crux serve --engine upstream`
// (CRUX_LLAMA_SERVER: the binary scripts/build-llama-cpp.sh --server builds).
import { spawn } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

import { tinyModel } from './model.mjs';

export function freePort() {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

// One llama-server on `port` serving the tiny model as `tiny-qwen3` (`args` added: slots,
// context); start() resolves once /health answers 200, and start() again after kill() reuses
// the port.
export function llamaServer(port, args = ['-c', '4096', '-np', '4']) {
  let proc = null;
  return {
    url: `http://127.0.0.1:${port}`,
    async start() {
      proc = spawn(process.env.CRUX_LLAMA_SERVER, ['-m', tinyModel(), '--host', '127.0.0.1',
        '--port', String(port), '--alias', 'tiny-qwen3', '-t', '1', '--no-webui', ...args],
      { stdio: 'ignore' });
      for (let i = 0; i < 300; ++i) {
        try {
          if ((await fetch(`${this.url}/health`)).status === 200) return;
        } catch { /* not listening yet */ }
        await sleep(100);
      }
      throw new Error(`llama-server on ${port} did not start`);
    },
    kill() {
      proc?.kill('SIGKILL');
      proc = null;
    },
  };
}

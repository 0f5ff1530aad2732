// Starts a real `canopy` server process for a test: the binary cargo built
// (CANOPY_BIN, default ../target/debug/canopy), on a free loopback port, in memory when
// the binary has `--in-memory` (persistence with a default data dir is on its way, and
// tests must not leave state behind), and waits until `GET /healthz` answers.

import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CANOPY_BIN =
  process.env.CANOPY_BIN ?? fileURLToPath(new URL('../../../target/debug/canopy', import.meta.url));

let help;
function flags() {
  if (!existsSync(CANOPY_BIN)) {
    throw new Error(`no server binary at ${CANOPY_BIN}: run cargo build -p canopy-server --bin canopy, or set CANOPY_BIN`);
  }
  help ??= execFileSync(CANOPY_BIN, ['--help'], { encoding: 'utf8' });
  return help;
}

/** Whether the server binary has a flag (features land on main at different times). */
export const hasFlag = (flag) => flags().includes(flag);

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts a server; `args` are extra flags (e.g. ['--admin-token', 't']). Resolves with
 * { url, port, stop }; `stop()` ends the process and waits for it.
 */
export async function startServer(args = []) {
  const port = await freePort();
  const all = ['--addr', `127.0.0.1:${port}`, '--tick-hz', '60', '--query-rate', '0', ...args];
  if (hasFlag('--in-memory')) all.push('--in-memory');
  const child = spawn(CANOPY_BIN, all, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CANOPY_LOG: 'warn' } });
  let log = '';
  child.stderr.on('data', (d) => {
    log = (log + d).slice(-4000);
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`canopy exited at start: ${log}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 400) throw new Error(`canopy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    port,
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

// What the inspector's browser tests share: a real `canopy` server process on a free
// port, headless Chromium (Debian's package, driven by playwright-core) with WebGL on
// SwiftShader, and a place for screenshots under the repository's target/.

import { spawn, execFileSync } from 'node:child_process';
import { createServer } from 'node:net';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const root = fileURLToPath(new URL('../../', import.meta.url));
export const CANOPY_BIN = process.env.CANOPY_BIN ?? join(root, 'target/debug/canopy');
export const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
export const SHOTS = join(root, 'target/inspector');

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let help;
/** Starts `canopy` with `args`, in memory when the binary has that flag; resolves once it answers. */
export async function startServer(args = []) {
  if (!existsSync(CANOPY_BIN)) throw new Error(`no server at ${CANOPY_BIN}: cargo build -p canopy-server --bin canopy`);
  help ??= execFileSync(CANOPY_BIN, ['--help'], { encoding: 'utf8' });
  const port = await freePort();
  const all = ['--addr', `127.0.0.1:${port}`, ...args];
  if (help.includes('--in-memory')) all.push('--in-memory');
  if (help.includes('--query-rate')) all.push('--query-rate', '0');
  const child = spawn(CANOPY_BIN, all, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, CANOPY_LOG: 'warn' } });
  let log = '';
  child.stderr.on('data', (d) => (log = (log + d).slice(-4000)));
  const exited = new Promise((r) => child.on('exit', r));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`canopy exited at start: ${log}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`canopy did not start: ${log}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    url,
    log: () => log,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A JSON call to the server; answers { status, body }. */
export async function api(url, method, path, { body, token } = {}) {
  const headers = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/**
 * Headless Chromium with a fresh profile. WebGL without a GPU: `--disable-gpu` would take
 * WebGL away, so instead ANGLE renders on SwiftShader (Chromium's CPU rasterizer), which
 * recent builds allow only when asked with --enable-unsafe-swiftshader.
 */
export async function launch() {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'canopy-inspector-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 860 },
    args: [
      '--headless',
      '--no-sandbox',
      '--use-gl=angle',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--ignore-gpu-blocklist',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The screenshot path of `name`, creating target/inspector/. */
export function shot(name) {
  mkdirSync(SHOTS, { recursive: true });
  return join(SHOTS, name);
}

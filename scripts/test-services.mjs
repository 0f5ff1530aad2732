// What the npm test suites of client-ts/ and inspector/ need besides their own
// packages, provisioned so that `npm ci && npm test` works on a fresh clone:
//
// - a `canopy` server binary: `cargo build -p canopy-server --bin canopy` (quick when it
//   is up to date), unless CANOPY_BIN names one;
// - Chromium for the browser tests: Debian's `chromium` package, installed with apt-get
//   when it is missing and this runs as root, unless CHROMIUM_BIN names one. Never a
//   browser downloaded by a test tool.
//
// Run by each package's `pretest`. A service that cannot be had stops the tests with
// one line saying which and how to provide it.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function run(cmd, args, what) {
  try {
    execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });
  } catch (e) {
    console.error(`test services: ${what} failed (${e.code ?? `exit ${e.status}`})`);
    process.exit(1);
  }
}

if (process.env.CANOPY_BIN) {
  if (!existsSync(process.env.CANOPY_BIN)) {
    console.error(`test services: CANOPY_BIN=${process.env.CANOPY_BIN} does not exist`);
    process.exit(1);
  }
} else {
  console.error('test services: cargo build -p canopy-server --bin canopy');
  run('cargo', ['build', '-p', 'canopy-server', '--bin', 'canopy', '--locked'], 'building the canopy server');
}

const chromium = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';
if (!existsSync(chromium)) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (process.env.CHROMIUM_BIN || !root || !existsSync('/usr/bin/apt-get')) {
    console.error(
      `test services: no Chromium at ${chromium} for the browser tests: install Debian's chromium ` +
        '(sudo apt-get install -y chromium) or set CHROMIUM_BIN',
    );
    process.exit(1);
  }
  console.error("test services: apt-get install chromium (Debian's package, for the browser tests)");
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    try {
      execFileSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env });
    } catch {
      console.error(`test services: apt-get ${args.join(' ')} failed: is the Debian registry reachable?`);
      process.exit(1);
    }
  }
}

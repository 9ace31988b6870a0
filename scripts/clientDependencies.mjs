// Installs the typed client's own dependencies (clients/typescript has its own package and lock file)
// when they are missing, so that `npm run client:check` and `npm run client:generate` work right after
// the root's `npm install` on a fresh clone. Present already: does nothing.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'typescript');
const needed = ['openapi-typescript', 'openapi-fetch', 'typescript'];
const missing = needed.filter((name) => !existsSync(join(client, 'node_modules', name, 'package.json')));

if (missing.length > 0) {
  console.log(`client: installing clients/typescript's dependencies (missing: ${missing.join(', ')})`);
  // Under npm, npm_execpath is npm's own CLI script: run it with this Node, as npm itself would.
  const npm = process.env.npm_execpath;
  const [command, prefix] = npm ? [process.execPath, [npm]] : ['npm', []];
  const result = spawnSync(command, [...prefix, 'ci', '--no-audit', '--no-fund', '--prefix', client], {
    stdio: 'inherit',
    shell: !npm && process.platform === 'win32',
  });
  if (result.status !== 0) {
    console.error('client: `npm ci --prefix clients/typescript` failed');
    process.exit(result.status ?? 1);
  }
}

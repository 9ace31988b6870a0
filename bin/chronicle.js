#!/usr/bin/env node
// The `chronicle` command. The TypeScript is compiled to dist/ by `npm install` (prepare) or `npm run build`.
import { existsSync } from 'node:fs';

// A `.env` file in the working folder sets what the environment does not (variables already set win).
if (existsSync('.env')) process.loadEnvFile('.env');

const entry = new URL('../dist/src/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  console.error('chronicle: dist/ is missing; run `npm run build` first');
  process.exit(1);
}
const { runCli } = await import(entry.href);
const code = await runCli(process.argv.slice(2), {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
});
// `serve` keeps running; every other command ends here.
if (code !== 0 || process.argv[2] !== 'serve') process.exitCode = code;
// A failed command has closed what it opened, so the process ends by itself; this bound makes sure it does
// (and says so: something the command opened was left running).
if (code !== 0) {
  setTimeout(() => {
    process.stderr.write('chronicle: still running 10 s after the command failed; exiting\n');
    process.exit(code);
  }, 10_000).unref();
}
// A process that `API_WORKERS` started holds an IPC channel to its supervisor, which would keep it alive
// (and a cluster worker that lets go of it exits 0): it ends now, with its code.
if (code !== 0 && process.connected) process.exit(code);

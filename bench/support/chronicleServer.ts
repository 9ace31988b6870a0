// Chronicle as `npm start` runs it, in a child process, for the HTTP benchmarks that load it
// next to other servers (bench:crud) or profile it (bench:profile).
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { basename, join } from 'node:path';
import { freePort } from '../../test/support/freePort.js';
import { CLI, type Server } from './httpLoad.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface ChronicleOptions {
  /** Environment beside the benchmark's (another engine, read models in memory). */
  readonly env?: Record<string, string>;
  /** Node's own options, before the script (`--perf-basic-prof`). */
  readonly nodeArgs?: readonly string[];
  /** The process's working folder (where V8 writes the logs some of those options ask for); default the benchmark's. */
  readonly cwd?: string;
  /** The `chronicle` script to start (another build's `bin/chronicle.js`); default this build's. */
  readonly cli?: string;
}

/**
 * `chronicle serve` on an empty folder, request logs at `info` into a file beside it, rate
 * limits raised so that no load is answered 429: resolves with the demo key it prints.
 */
export const startChronicle = async (dataDir: string, options: ChronicleOptions = {}): Promise<{ server: Server; key: string }> => {
  const port = await freePort();
  const logs = openSync(join(dataDir, '..', `${basename(dataDir)}-requests.log`), 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), options.cli ?? CLI, 'serve'], {
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      RATE_LIMIT_HOURLY: '100000000',
      RATE_LIMIT_DAILY: '100000000',
      RATE_LIMIT_CONCURRENT: '1000',
      ...options.env,
    },
    stdio: ['ignore', logs, 'pipe'],
    cwd: options.cwd,
  });
  closeSync(logs);
  let said = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (said = (said + chunk).slice(-8192)));
  const started = Date.now();
  while (Date.now() - started < 60_000) {
    const key = /API key (chr_[A-Za-z0-9]+)/.exec(said)?.[1];
    if (key && said.includes('Chronicle is listening on')) {
      return { server: { url: `http://127.0.0.1:${port}`, output: () => said, child }, key };
    }
    if (child.exitCode !== null) throw new Error(`chronicle serve exited with ${child.exitCode}:\n${said}`);
    await sleep(50);
  }
  child.kill('SIGKILL');
  throw new Error(`chronicle serve did not listen within 60 s:\n${said}`);
};

/** Creates `count` contacts through the server (20 at a time, phones `+1777…`), answering their ids. */
export const seedContacts = async (url: string, key: string, count: number): Promise<string[]> => {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (next < count) {
        const n = next++;
        const response = await fetch(`${url}/contacts`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ name: `Seeded ${n}`, phoneNumber: `+1777${String(n).padStart(8, '0')}` }),
        });
        if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
        ids.push(((await response.json()) as { data: { id: string } }).data.id);
      }
    }),
  );
  return ids;
};

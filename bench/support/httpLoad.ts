// What the HTTP benchmarks share: autocannon runs at 10 connections, the figures they
// report, bare Koa in a child process, and a stream of contacts to create.
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
export const CONNECTIONS = 10;
export const CLI = fileURLToPath(new URL('../../../bin/chronicle.js', import.meta.url));
const BARE = fileURLToPath(new URL('../bareKoa.js', import.meta.url));

export interface Figures {
  readonly rps: number;
  /** Requests answered during the run. */
  readonly requests: number;
  readonly p50: number;
  readonly p99: number;
  /** Non-2xx answers, errors and timeouts. */
  readonly errors: number;
}

/** One autocannon run of BENCH_SECONDS at CONNECTIONS connections. */
export const load = async (options: autocannon.Options): Promise<Figures> => {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
  };
};

export interface Server {
  readonly url: string;
  readonly output: () => string;
  readonly child: ChildProcess;
}

/** Ends a child process (SIGTERM) and resolves once it has exited. */
export const stopProcess = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });

/** Starts a Node process and resolves once it prints its `listening on <url>` line. */
export const startListening = (args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Server> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env } });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${timeoutMs} ms:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (https?:\/\/[^\s]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!.replace('localhost', '127.0.0.1'), output: () => output, child });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });

/**
 * The bare Koa baseline (`bench/bareKoa.ts`) in a child process. `workUs`: CPU its
 * GET by id spends first; `durableFile`: the SQLite file its POST /contacts appends to.
 */
export const startBareKoa = (options: { workUs?: number; durableFile?: string } = {}): Promise<Server> =>
  startListening([BARE], {
    BARE_KOA_WORK_US: String(options.workUs ?? 0),
    ...(options.durableFile ? { BARE_KOA_DURABLE_FILE: options.durableFile } : {}),
  });

/** GET /contacts/:id, each request the next of `ids` in turn. */
export const contactReading = (url: string, headers: Record<string, string>, ids: readonly string[]): autocannon.Options => {
  let next = 0;
  return {
    url: `${url}/contacts/${ids[0]}`,
    headers,
    requests: [{ setupRequest: (request) => ({ ...request, path: `/contacts/${ids[next++ % ids.length]}` }) }],
  };
};

/** POST /contacts, each request a new contact with a phone number of its own (`+1666…`, counted across calls). */
let nextPhone = 0;
export const contactPosting = (url: string, headers: Record<string, string>): autocannon.Options => ({
  url: `${url}/contacts`,
  method: 'POST',
  headers: { ...headers, 'Content-Type': 'application/json' },
  requests: [
    {
      setupRequest: (request) => {
        const n = nextPhone++;
        return { ...request, body: JSON.stringify({ name: `Bench ${n}`, phoneNumber: `+1666${String(n).padStart(8, '0')}` }) };
      },
    },
  ],
});

// npm run bench:profile — where a request's CPU goes in `chronicle serve` (embedded storage,
// as `npm start` runs it), sampled by the kernel with `perf` on every thread of the process:
// POST /contacts (or GET /contacts/:id: BENCH_PROFILE_ROUTE=read) at 10 connections, 6 s of
// warm-up, then BENCH_PROFILE_SECONDS (default 7) sampled at 1,999 Hz. Prints each busy
// thread's share of a core, and the event loop's samples (and the busiest other thread's)
// summed by source file, the kernel's part apart; writes their stacks folded and as flame
// graphs (SVG) into BENCH_PROFILE_OUT (default: a new temporary folder, printed).
// Needs `perf` (Debian: linux-perf) and the right to sample (root, or perf_event_paranoid ≤ 1).
// Not a test: it prints figures. Every phase is bounded in time.
import type autocannon from 'autocannon';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tempDir } from '../test/support/tempStore.js';
import { contactPosting, contactReading, load, stopProcess, type Figures } from './support/httpLoad.js';
import { seedContacts, startChronicle } from './support/chronicleServer.js';
import { flameGraphSvg } from './support/flameGraph.js';
import { foldStacks, parsePerfScript, summarizeThread, threadsBySamples, type ThreadSummary } from './support/perfProfile.js';

const ROUTE = process.env.BENCH_PROFILE_ROUTE ?? 'create';
const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 7);
const WARM_UP_SECONDS = 6;
const HZ = 1_999;
const CONNECTIONS = 10;

const percent = (share: number): string => `${(100 * share).toFixed(1)}%`;

const table = (summary: ThreadSummary, rows: number): string =>
  [
    '| where (the JavaScript nearest the sample, else the native file) | share | of it in the kernel |',
    '|---|---:|---:|',
    ...summary.places.slice(0, rows).map(({ place, share, kernelShare }) => `| ${place} | ${percent(share)} | ${percent(kernelShare)} |`),
  ].join('\n');

const sampleFor = async (pid: number, file: string, seconds: number): Promise<void> => {
  const perf = spawn('perf', ['record', '-F', String(HZ), '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(seconds)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  perf.stderr.setEncoding('utf8').on('data', (chunk: string) => (said += chunk));
  const code = await new Promise<number | null>((resolve) => perf.once('exit', resolve));
  if (code !== 0) throw new Error(`perf record exited with ${code}:\n${said}`);
};

const main = async (): Promise<void> => {
  if (ROUTE !== 'create' && ROUTE !== 'read') throw new Error(`BENCH_PROFILE_ROUTE is create or read, not ${ROUTE}`);
  const version = spawnSync('perf', ['--version'], { encoding: 'utf8' });
  if (version.error || version.status !== 0) {
    console.error('bench:profile needs perf on the PATH (Debian: apt-get install linux-perf)');
    process.exitCode = 1;
    return;
  }
  const out = process.env.BENCH_PROFILE_OUT ?? mkdtempSync(join(tmpdir(), `chronicle-profile-${ROUTE}-`));
  mkdirSync(out, { recursive: true });
  const dir = tempDir('chronicle-profile-');
  try {
    await profile(dir.path, out);
  } finally {
    dir.dispose();
  }
};

/** Starts the server in `folder`, loads and samples it, and reports into `out`. */
const profile = async (folder: string, out: string): Promise<void> => {
  // In the temporary folder: with `--perf-basic-prof` V8 also writes a log of its own into the working folder.
  const { server, key } = await startChronicle(join(folder, 'chronicle'), { nodeArgs: ['--perf-basic-prof'], cwd: folder });
  const pid = server.child.pid!;
  try {
    const headers = { Authorization: `Bearer ${key}` };
    let options: autocannon.Options;
    if (ROUTE === 'create') options = contactPosting(server.url, headers);
    else {
      options = contactReading(server.url, headers, await seedContacts(server.url, key, 100));
    }
    const what = ROUTE === 'create' ? 'POST /contacts' : 'GET /contacts/:id';
    await load({ ...options, connections: CONNECTIONS, duration: WARM_UP_SECONDS });
    const data = join(out, 'perf.data');
    const [loaded]: [Figures, void] = await Promise.all([
      load({ ...options, connections: CONNECTIONS, duration: SECONDS + 1 }),
      sampleFor(pid, data, SECONDS),
    ]);
    const samples = parsePerfScript(execFileSync('perf', ['script', '-i', data], { maxBuffer: 2 ** 31 - 1, stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8'));
    const threads = threadsBySamples(samples);
    const loop = summarizeThread(samples, pid);
    const other = threads.find(({ thread }) => thread !== pid);
    console.log(`${what} at ${CONNECTIONS} connections: ${loaded.rps} req/s while sampled (p99 ${loaded.p99} ms), ${samples.length} samples over ${SECONDS} s at ${HZ} Hz`);
    console.log('\nthreads (share of one core):');
    for (const { thread, samples: n } of threads.slice(0, 8)) {
      const top = summarizeThread(samples, thread).places[0]?.place ?? '';
      console.log(`  ${thread === pid ? 'event loop' : `thread ${thread}`}: ${percent(n / (SECONDS * HZ))} (most: ${top})`);
    }
    console.log(`\nthe event loop's ${loop.samples} samples:\n\n${table(loop, 30)}`);
    const write = (name: string, thread: number, title: string): void => {
      const folded = foldStacks(samples, thread);
      writeFileSync(join(out, `${name}.folded`), folded.map(({ stack, count }) => `${stack.join(';')} ${count}`).join('\n') + '\n');
      writeFileSync(join(out, `${name}.svg`), flameGraphSvg(folded, { title }));
    };
    write('event-loop', pid, `${what}, 10 connections: the event loop (${loop.samples} samples)`);
    if (other) {
      const summary = summarizeThread(samples, other.thread);
      console.log(`\nthread ${other.thread}'s ${summary.samples} samples:\n\n${table(summary, 15)}`);
      write('busiest-other-thread', other.thread, `${what}, 10 connections: thread ${other.thread} (${summary.samples} samples)`);
    }
    console.log(`\nfolded stacks and flame graphs (SVG) in ${out}`);
  } finally {
    await stopProcess(server.child);
    // The JIT's symbol map `--perf-basic-prof` wrote (perf script has read it).
    rmSync(`/tmp/perf-${pid}.map`, { force: true });
  }
};

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

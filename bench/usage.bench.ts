// npm run bench:usage — what counting a request for the console costs the API's hot path
// (UsageRecorder.request), and what writing a batch costs the store, embedded.
// Not a test: it prints figures. Every loop is bounded by count.
import { join } from 'node:path';
import { SqliteUsageCounters } from '../src/adapters/sqlite/SqliteUsageCounters.js';
import { MemoryUsageCounters } from '../src/adapters/memory/MemoryUsageCounters.js';
import { silentLogger } from '../src/application/ports/Logger.js';
import { UsageRecorder } from '../src/application/usage/UsageRecorder.js';
import { systemClock } from '../src/shared/Clock.js';
import { tempDir } from '../test/support/tempStore.js';

const CALLS = Number(process.env.BENCH_USAGE_CALLS ?? 5_000_000);
const ROUNDS = 5;

/** Nanoseconds per `request()` over CALLS calls spread over `companies` × `keys` keys, best of ROUNDS. */
const perCall = (companies: number, keys: number): number => {
  const ids = Array.from({ length: companies * keys }, (_, i) => [`company-${i % companies}`, `key-${i}`] as const);
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const recorder = new UsageRecorder({ counters: new MemoryUsageCounters(), clock: systemClock, logger: silentLogger });
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) {
      const [company, key] = ids[i % ids.length]!;
      recorder.request(company, key, (i & 1023) === 0);
    }
    best = Math.min(best, Number(process.hrtime.bigint() - start) / CALLS);
  }
  return best;
};

/** Milliseconds to write one batch of `rows` rows (distinct company, hour and key) to DATA_DIR/console.sqlite, median of ROUNDS. */
const batchWrite = async (rows: number): Promise<number> => {
  const dir = tempDir('chronicle-bench-usage-');
  const counters = SqliteUsageCounters.open(join(dir.path, 'console.sqlite'));
  const times: number[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      const recorder = new UsageRecorder({ counters, clock: systemClock, logger: silentLogger });
      for (let i = 0; i < rows; i++) recorder.request(`company-${i}`, `key-${i}`, false);
      const start = performance.now();
      await recorder.flush();
      times.push(performance.now() - start);
    }
  } finally {
    await counters.close();
    dir.dispose();
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
};

console.log(`UsageRecorder.request, ${CALLS.toLocaleString('en-US')} calls, best of ${ROUNDS}:`);
for (const [companies, keys] of [[1, 1], [100, 10], [10_000, 1]] as const) {
  console.log(`  ${String(companies * keys).padStart(6)} keys over ${String(companies).padStart(6)} companies  ${perCall(companies, keys).toFixed(1).padStart(6)} ns a request`);
}
console.log(`A batch written to console.sqlite (synchronous=NORMAL), median of ${ROUNDS}:`);
for (const rows of [10, 1_000, 10_000]) console.log(`  ${String(rows).padStart(6)} rows  ${(await batchWrite(rows)).toFixed(2).padStart(8)} ms`);

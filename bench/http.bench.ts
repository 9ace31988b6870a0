// npm run bench — Chronicle's HTTP API against a bare Koa server in the same run.
// Each server runs in its own child process; autocannon loads them from this one.
// Not a test: it prints figures and ratios. Every phase is bounded in time or count.
import type autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { tempDir } from '../test/support/tempStore.js';
import { CLI, CONNECTIONS, SECONDS, contactPosting, load, startBareKoa, startListening as start, type Figures } from './support/httpLoad.js';

const CONTACTS = Number(process.env.BENCH_CONTACTS ?? 100_000);
const DEALS = Number(process.env.BENCH_DEALS ?? 100_000);
const STAGES = ['Lead', 'Qualified', 'Proposal', 'Negotiation', 'Closing'];

const report = (name: string, mine: Figures, bare: Figures | null): void => {
  const ratio = bare ? `  ${((mine.rps / bare.rps) * 100).toFixed(0)}% of bare Koa (${bare.rps} req/s)` : '';
  const errors = mine.errors ? `  (${mine.errors} non-2xx/errors!)` : '';
  console.log(`${name.padEnd(44)} ${String(mine.rps).padStart(7)} req/s  p50 ${mine.p50} ms  p99 ${mine.p99} ms${ratio}${errors}`);
};

/** Runs `count` jobs with 50 concurrent workers. */
const inParallel = async (count: number, job: (n: number) => Promise<void>): Promise<void> => {
  let next = 0;
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < count) await job(next++);
    }),
  );
};

/** Creates deals through the API (a fifth won, a fifth lost, five stages), each linked to a contact. */
const seedDeals = async (url: string, key: string, count: number, contactIds: readonly string[]): Promise<string[]> => {
  const ids: string[] = [];
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  await inParallel(count, async (n) => {
    const response = await fetch(`${url}/deals`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ title: `Deal ${n}`, value: n % 1000, stage: STAGES[n % STAGES.length], contactId: contactIds[n % contactIds.length] }),
    });
    if (response.status !== 201) throw new Error(`seeding deals failed: ${response.status} ${await response.text()}`);
    const id = ((await response.json()) as { data: { id: string } }).data.id;
    ids.push(id);
    const status = n % 5 === 1 ? 'won' : n % 5 === 2 ? 'lost' : null;
    if (status) {
      const changed = await fetch(`${url}/deals/${id}/status`, { method: 'PUT', headers, body: JSON.stringify({ status }) });
      if (changed.status !== 200) throw new Error(`seeding deal status failed: ${changed.status}`);
    }
  });
  return ids;
};

/** Creates contacts through the API with 50 concurrent clients. */
const seed = async (url: string, key: string, count: number): Promise<string[]> => {
  const ids: string[] = [];
  await inParallel(count, async (n) => {
    const response = await fetch(`${url}/contacts`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({
        name: `Contact ${n} ${n % 7 === 0 ? 'Müller' : 'Smith'}`,
        phoneNumber: `+1555${String(n).padStart(8, '0')}`,
        email: `contact${n}@example.com`,
        tags: n % 2 ? ['odd'] : ['even'],
      }),
    });
    if (response.status !== 201) throw new Error(`seeding failed: ${response.status} ${await response.text()}`);
    ids.push(((await response.json()) as { data: { id: string } }).data.id);
  });
  return ids;
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-httpbench-');
  const servers: ChildProcess[] = [];
  try {
    const bare = await startBareKoa();
    servers.push(bare.child);
    const chronicle = await start([CLI, 'serve'], {
      DATA_DIR: dir.path,
      PORT: '0',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_HOURLY: '100000000',
      RATE_LIMIT_DAILY: '100000000',
      RATE_LIMIT_CONCURRENT: '1000',
    });
    servers.push(chronicle.child);
    const key = /(chr_[A-Za-z0-9]+)/.exec(chronicle.output())?.[1];
    if (!key) throw new Error(`no demo key printed:\n${chronicle.output()}`);
    const auth = { Authorization: `Bearer ${key}` };

    console.log(`HTTP benchmark: ${CONNECTIONS} connections, ${SECONDS} s per case; seeding ${CONTACTS} contacts…`);
    const seededAt = Date.now();
    const ids = await seed(chronicle.url, key, CONTACTS);
    console.log(`seeded ${ids.length} contacts in ${((Date.now() - seededAt) / 1000).toFixed(1)} s\n`);
    const someId = ids[Math.floor(ids.length / 2)]!;

    const bareGet = await load({ url: `${bare.url}/contacts/${someId}` });
    report('GET /contacts/:id', await load({ url: `${chronicle.url}/contacts/${someId}`, headers: auth }), bareGet);

    // Searches of different selectivity in turn (1 in 7 names, one e-mail, a phone prefix, nothing), so no
    // single query's luck decides the figure.
    const searches = ['m%C3%BCller', `contact${Math.floor(ids.length / 3)}%40`, '%2B155500001', 'nobody'];
    let turn = 0;
    const rotating = (url: string, headers: Record<string, string>): autocannon.Options => ({
      url,
      headers,
      requests: [{ setupRequest: (request) => ({ ...request, path: `/contacts?search=${searches[turn++ % searches.length]}&limit=10` }) }],
    });
    const bareList = await load(rotating(bare.url, {}));
    const search = await load(rotating(chronicle.url, auth));
    report(`GET /contacts?search= over ${ids.length}`, search, bareList);

    const barePost = await load(contactPosting(bare.url, {}));
    report('POST /contacts (durable, read-your-writes)', await load(contactPosting(chronicle.url, auth)), barePost);

    if (DEALS > 0) {
      console.log(`\nseeding ${DEALS} deals…`);
      const dealsAt = Date.now();
      const dealIds = await seedDeals(chronicle.url, key, DEALS, ids);
      console.log(`seeded ${dealIds.length} deals in ${((Date.now() - dealsAt) / 1000).toFixed(1)} s\n`);

      let dealN = 0;
      const postDeal = (url: string, headers: Record<string, string>): autocannon.Options => ({
        url: `${url}/deals`,
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/json' },
        requests: [
          {
            setupRequest: (request) => ({
              ...request,
              body: JSON.stringify({ title: `Bench deal ${dealN}`, value: 100, contactId: ids[dealN++ % ids.length] }),
            }),
          },
        ],
      });
      const bareDealPost = await load(postDeal(bare.url, {}));
      report('POST /deals with a contact', await load(postDeal(chronicle.url, auth)), bareDealPost);

      // Each request moves one deal to the next stage, so none is a no-op.
      let moveN = 0;
      const moveStage = (url: string, headers: Record<string, string>): autocannon.Options => ({
        url,
        method: 'PUT',
        headers: { ...headers, 'Content-Type': 'application/json' },
        requests: [
          {
            setupRequest: (request) => {
              const n = moveN++;
              const id = dealIds[n % dealIds.length]!;
              const round = Math.floor(n / dealIds.length);
              return { ...request, path: `/deals/${id}/status`, body: JSON.stringify({ stage: `Stage ${round + 1}` }) };
            },
          },
        ],
      });
      const bareMove = await load(moveStage(bare.url, {}));
      report('PUT /deals/:id/status', await load(moveStage(chronicle.url, auth)), bareMove);

      let filterN = 0;
      const filtered = (url: string, headers: Record<string, string>): autocannon.Options => ({
        url,
        headers,
        requests: [
          {
            setupRequest: (request) => {
              const n = filterN++;
              const status = ['open', 'won', 'lost'][n % 3];
              return { ...request, path: `/deals?status=${status}&stage=${STAGES[n % STAGES.length]}&limit=10` };
            },
          },
        ],
      });
      const bareFiltered = await load(filtered(bare.url, {}));
      report(`GET /deals?status&stage over ${dealIds.length}`, await load(filtered(chronicle.url, auth)), bareFiltered);
    }

    console.log('');
    console.log('targets: GET by id ≥ 50% of bare; POST /contacts ≥ 20% of bare; search p99 ≤ 100 ms at 10 connections');
  } finally {
    for (const child of servers) child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    dir.dispose();
  }
};

await main();

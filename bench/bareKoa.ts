// The baseline: a bare Koa server answering the benchmarked routes with fixed
// bodies of the same size and shape, so the ratio shows what Chronicle adds.
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';

const contact = {
  id: '01900000-0000-7000-8000-000000000000',
  name: 'Ada Lovelace',
  firstName: 'Ada',
  lastName: 'Lovelace',
  phoneNumber: '+44 20 7946 0000',
  email: 'ada@example.com',
  position: null,
  currentCompany: 'Analytical Engines Ltd',
  industrySector: null,
  city: 'London',
  country: 'UK',
  tags: ['vip'],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const deal = {
  id: '01900000-0000-7000-8000-000000000001',
  title: 'Fleet renewal',
  description: null,
  value: 125000,
  currency: 'EUR',
  stage: 'Proposal',
  priority: 'medium',
  probability: 60,
  status: 'open',
  expectedCloseDate: '2027-03-31T00:00:00.000Z',
  actualCloseDate: null,
  source: null,
  contact: { id: contact.id, name: contact.name, email: contact.email, phoneNumber: contact.phoneNumber, currentCompany: contact.currentCompany },
  assignedTo: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

/**
 * `BARE_KOA_WORK_US`: microseconds of CPU spent in GET /contacts/:id before it
 * answers (default 0). The scale benchmark's budget phase uses it to tell what a
 * fixed amount of work per request costs in the ratio to bare Koa.
 */
const workNs = BigInt(Math.round(Number(process.env.BARE_KOA_WORK_US ?? 0) * 1000));
const work = (): void => {
  const until = process.hrtime.bigint() + workNs;
  while (process.hrtime.bigint() < until);
};

/**
 * `BARE_KOA_DURABLE_FILE`: a SQLite file (WAL, `synchronous=FULL`) into which POST
 * /contacts appends each body as a row before it answers, the rows of one turn of
 * the event loop in one transaction (one fsync), as Chronicle's log does: the
 * least a durable create costs, for the scale benchmark's budget phase. Unset:
 * POST answers at once.
 */
const durableFile = process.env.BARE_KOA_DURABLE_FILE;
const durable = durableFile ? groupCommitted(durableFile) : null;

function groupCommitted(file: string): (body: string) => Promise<void> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS log (position INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO log (body) VALUES (?)');
  let pending: { body: string; done: () => void }[] = [];
  const commit = db.transaction((batch: typeof pending) => batch.forEach(({ body }) => insert.run(body)));
  return (body) =>
    new Promise((done) => {
      if (pending.push({ body, done }) > 1) return;
      setImmediate(() => {
        const batch = pending;
        pending = [];
        commit.immediate(batch);
        batch.forEach((request) => request.done());
      });
    });
}

const app = new Koa();
const router = new Router();
router.get('/contacts/:id', (ctx) => {
  if (workNs > 0n) work();
  ctx.body = { success: true, data: { ...contact, id: ctx.params.id } };
});
router.get('/contacts', (ctx) => {
  ctx.body = { success: true, data: Array.from({ length: 10 }, () => contact), meta: { page: 1, limit: 50, total: 10, totalPages: 1 } };
});
router.post('/contacts', bodyParser(), async (ctx) => {
  if (durable) await durable(JSON.stringify(ctx.request.body));
  ctx.status = 201;
  ctx.body = { success: true, data: { ...contact, ...(ctx.request.body as object) } };
});
router.get('/deals', (ctx) => {
  ctx.body = { success: true, data: Array.from({ length: 10 }, () => deal), meta: { page: 1, limit: 10, total: 10, totalPages: 1 } };
});
router.post('/deals', bodyParser(), (ctx) => {
  ctx.status = 201;
  ctx.body = { success: true, data: { ...deal, ...(ctx.request.body as object) } };
});
router.put('/deals/:id/status', bodyParser(), (ctx) => {
  ctx.body = { success: true, data: { ...deal, id: ctx.params.id, ...(ctx.request.body as object) } };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

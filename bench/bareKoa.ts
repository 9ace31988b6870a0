// The baseline: a bare Koa server answering the benchmarked routes with fixed
// bodies of the same size and shape, so the ratio shows what Chronicle adds.
import Koa from 'koa';
import Router from '@koa/router';
import bodyParser from 'koa-bodyparser';
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

const app = new Koa();
const router = new Router();
router.get('/contacts/:id', (ctx) => {
  if (workNs > 0n) work();
  ctx.body = { success: true, data: { ...contact, id: ctx.params.id } };
});
router.get('/contacts', (ctx) => {
  ctx.body = { success: true, data: Array.from({ length: 10 }, () => contact), meta: { page: 1, limit: 50, total: 10, totalPages: 1 } };
});
router.post('/contacts', bodyParser(), (ctx) => {
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

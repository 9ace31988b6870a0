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

const app = new Koa();
const router = new Router();
router.get('/contacts/:id', (ctx) => {
  ctx.body = { success: true, data: { ...contact, id: ctx.params.id } };
});
router.get('/contacts', (ctx) => {
  ctx.body = { success: true, data: Array.from({ length: 10 }, () => contact), meta: { page: 1, limit: 50, total: 10, totalPages: 1 } };
});
router.post('/contacts', bodyParser(), (ctx) => {
  ctx.status = 201;
  ctx.body = { success: true, data: { ...contact, ...(ctx.request.body as object) } };
});
app.use(router.routes());
const server = app.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}\n`);
});

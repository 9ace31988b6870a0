import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { REVOCATION_BOUND_MS } from '../../src/application/credentials/freshCredentialVerifier.js';
import { eventually, sleep } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/**
 * A receiver on 127.0.0.1 that keeps the `webhook-id` of every request in the order
 * they came and answers 200; while `holding`, it keeps each request open until
 * `release()` (so that a delivery is in flight across the suspension).
 */
const startReceiver = async () => {
  const arrivals: { readonly id: string; readonly body: string }[] = [];
  const waiting: ServerResponse[] = [];
  let holding = true;
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      arrivals.push({ id: String(req.headers['webhook-id']), body });
      if (holding) waiting.push(res);
      else res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    release: () => {
      holding = false;
      for (const res of waiting.splice(0)) res.writeHead(200).end();
    },
    close: () => {
      for (const res of waiting.splice(0)) res.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

const call = async (baseUrl: string, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(20_000),
  });
  return { status: res.status, body: (await res.json()) as any };
};

/** The contact's name each delivery of the receiver carries, in the order they came. */
const namesOf = (arrivals: readonly { readonly body: string }[]): string[] => arrivals.map((a) => (JSON.parse(a.body) as { data: { name: string } }).data.name);

const engines: { readonly name: string; readonly database: () => Promise<FreshDatabase | null> }[] = [
  { name: 'SQLite', database: async () => null },
  ...(postgresTestUrl() ? [{ name: 'PostgreSQL', database: () => freshPostgresDatabase() }] : []),
];
if (!postgresTestUrl()) skipLine('Suspending a company across two API processes: PostgreSQL', 'POSTGRES_TEST_URL');

for (const engine of engines) {
  /**
   * Two API processes on one store: the first runs the projector and the webhooks,
   * the second only the API (RUN_PROJECTIONS=false, as keysAcrossProcesses). The
   * platform suspends a company through the first; the second refuses its key with
   * 403 `Company suspended` (how soon is printed, not asserted); its webhook
   * deliveries recorded before the suspension are held, and go out in order once it
   * is resumed.
   */
  describe(`suspending a company across two API processes (${engine.name})`, function () {
    this.timeout(120_000);
    const dirs = [tempDir('chronicle-suspend-a-'), tempDir('chronicle-suspend-b-')];
    let database: FreshDatabase | null;
    let env: NodeJS.ProcessEnv;
    let first: ServerProcess;
    let second: ServerProcess;
    let adminToken: string;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;

    const admin = (at: ServerProcess, method: string, path: string, body?: unknown) => call(at.baseUrl, adminToken, method, path, body);
    const cli = async (...args: string[]) => runCli(args, { ...env, DATA_DIR: dirs[0]!.path });
    const newCompany = async (name: string) => {
      const company = await admin(first, 'POST', '/admin/companies', { name });
      expect(company.status, JSON.stringify(company.body)).to.equal(201);
      const companyId = company.body.data.id as string;
      const key = await admin(first, 'POST', `/admin/companies/${companyId}/keys`, { name: 'sync', type: 'generic', permissions: ['contacts:read', 'contacts:write', 'webhooks:read', 'webhooks:write'] });
      expect(key.status, JSON.stringify(key.body)).to.equal(201);
      return { companyId, key: key.body.data.key as string };
    };

    before(async () => {
      database = await engine.database();
      receiver = await startReceiver();
      env = {
        ...(database ? { POSTGRES_URL: database.url, POSTGRES_POOL_SIZE: '4' } : {}),
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '60000',
        READ_YOUR_WRITES_TIMEOUT_MS: '10000',
      };
      const created = await cli('admin-tokens', 'create', '--name', 'platform', '--json');
      expect(created.code, created.stderr).to.equal(0);
      adminToken = (JSON.parse(created.stdout) as { token: string }).token;
      first = await startServer({ ...env, DATA_DIR: dirs[0]!.path });
      // On SQLite the second process shares the first's DATA_DIR; on PostgreSQL the database is what they share.
      second = await startServer({ ...env, DATA_DIR: dirs[database ? 1 : 0]!.path, RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' });
    });
    after(async () => {
      const codes = await Promise.all([second, first].filter(Boolean).map((p) => p.stop()));
      if (codes.some((code) => code !== 0)) console.log(first.output(), second.output());
      await receiver.close();
      await database?.drop();
      for (const dir of dirs) dir.dispose();
      expect(codes).to.deep.equal([0, 0]);
    });

    it('refuses the company\'s key on the other process within the propagation time, holds its deliveries, and resumes them in order', async () => {
      const acme = await newCompany('Acme');
      const bystander = await newCompany('Bystander');
      for (const company of [acme, bystander]) {
        const subscribed = await call(first.baseUrl, company.key, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: receiver.url });
        expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
      }
      expect((await call(second.baseUrl, acme.key, 'GET', '/test')).status).to.equal(200);

      // The first delivery is in flight (the receiver keeps it open); two more events are recorded behind it.
      const contact = (name: string, phone: string, key = acme.key) => call(first.baseUrl, key, 'POST', '/contacts', { name, phoneNumber: phone });
      expect((await contact('Held One', '+4400100001')).status).to.equal(201);
      await eventually(() => receiver.arrivals.length === 1, 20_000, 10);
      expect((await contact('Held Two', '+4400100002')).status).to.equal(201);
      expect((await contact('Held Three', '+4400100003')).status).to.equal(201);

      const suspended = await admin(first, 'POST', `/admin/companies/${acme.companyId}/suspend`, { reason: 'Unpaid invoices' });
      const answeredAt = performance.now();
      expect(suspended.status, JSON.stringify(suspended.body)).to.equal(200);
      expect(suspended.body.data).to.include({ status: 'suspended', suspensionReason: 'Unpaid invoices' });
      let refused = await call(second.baseUrl, acme.key, 'GET', '/test');
      while (refused.status === 200 && performance.now() - answeredAt < 30_000) {
        await sleep(5);
        refused = await call(second.baseUrl, acme.key, 'GET', '/test');
      }
      const propagationMs = performance.now() - answeredAt;
      console.log(`      ${engine.name}: first 403 on the other API process ${propagationMs.toFixed(0)} ms after the suspension's answer`);
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({ success: false, error: 'Company suspended', code: 'COMPANY_SUSPENDED' });
      expect(refused.body).not.to.have.any.keys('requiredPermission', 'availablePermissions');
      // On the first process too (a key found active a moment ago may be answered from memory for part of the bound).
      await eventually(async () => (await call(first.baseUrl, acme.key, 'GET', '/contacts')).status === 403, 20_000, 10);
      expect((await call(first.baseUrl, acme.key, 'POST', '/contacts', { name: 'Refused', phoneNumber: '+4400100009' })).status).to.equal(403);
      expect((await call(second.baseUrl, bystander.key, 'GET', '/test')).status, 'another company\'s key').to.equal(200);

      // The delivery in flight before the suspension completes; the two behind it are held. Another
      // company's event, recorded after them, is delivered: the dispatcher is at work and passes them by.
      // Released once the bound a suspension has (a second, as a revocation) is over: the dispatcher may
      // go on for that long with the list of suspended companies it read before.
      await sleep(Math.max(0, REVOCATION_BOUND_MS - (performance.now() - answeredAt)));
      receiver.release();
      expect((await contact('Bystander Event', '+4400100004', bystander.key)).status).to.equal(201);
      await eventually(() => namesOf(receiver.arrivals).includes('Bystander Event'), 20_000, 10);
      const bystanderHooks = (await call(first.baseUrl, bystander.key, 'GET', '/webhooks')).body.data as { id: string }[];
      await eventually(async () => (await call(first.baseUrl, bystander.key, 'GET', `/webhooks/${bystanderHooks[0]!.id}/deliveries`)).body.data[0]?.state === 'delivered', 20_000);
      expect(namesOf(receiver.arrivals).filter((name) => name.startsWith('Held'))).to.deep.equal(['Held One']);

      // Resumed through the other process: its key works again there, and the held deliveries go out in order.
      const resumed = await admin(second, 'POST', `/admin/companies/${acme.companyId}/resume`, {});
      expect(resumed.status, JSON.stringify(resumed.body)).to.equal(200);
      expect(resumed.body.data).to.include({ status: 'active', suspendedAt: null });
      await eventually(async () => (await call(second.baseUrl, acme.key, 'GET', '/test')).status === 200, 20_000, 10);
      await eventually(() => namesOf(receiver.arrivals).filter((name) => name.startsWith('Held')).length === 3, 20_000, 10);
      expect(namesOf(receiver.arrivals).filter((name) => name.startsWith('Held'))).to.deep.equal(['Held One', 'Held Two', 'Held Three']);
      const [hook] = (await call(first.baseUrl, acme.key, 'GET', '/webhooks')).body.data as { id: string; delivery_status: string }[];
      expect(hook?.delivery_status, 'no pause or disable rule tripped').to.equal('active');
      await eventually(async () => (await call(first.baseUrl, acme.key, 'GET', `/webhooks/${hook!.id}/deliveries`)).body.data.every((d: { state: string }) => d.state === 'delivered'), 20_000);
      const deliveries = (await call(first.baseUrl, acme.key, 'GET', `/webhooks/${hook!.id}/deliveries`)).body.data as { attempts: unknown[] }[];
      expect(deliveries.map((d) => d.attempts.length), 'one attempt each: none counted while held').to.deep.equal([1, 1, 1]);
    });

    it('with the projector stopped: a suspension made by the CLI is refused from the company\'s stream in the log, and a resumption accepted the same way', async () => {
      const { companyId, key } = await newCompany('Behind Co');
      // Known to the read models before the projector (the first process) stops.
      expect((await call(second.baseUrl, key, 'GET', '/test')).status).to.equal(200);
      expect(await first.stop()).to.equal(0);
      try {
        const suspended = await cli('companies', 'suspend', companyId, '--reason', 'Read models behind');
        expect(suspended.code, suspended.stderr).to.equal(0);
        // Refused once the read models are behind by more than the bound allows (a second): the log decides.
        await eventually(async () => (await call(second.baseUrl, key, 'GET', '/test')).status === 403, 20_000, 10);
        const resumed = await cli('companies', 'resume', companyId);
        expect(resumed.code, resumed.stderr).to.equal(0);
        await eventually(async () => (await call(second.baseUrl, key, 'GET', '/test')).status === 200, 20_000, 10);
      } finally {
        first = await startServer({ ...env, DATA_DIR: dirs[0]!.path });
      }
      expect((await call(first.baseUrl, key, 'GET', '/test')).status).to.equal(200);
    });

    it('suspends and resumes through the CLI: the key refused on both processes, then accepted; the list shows the status', async () => {
      const { companyId, key } = await newCompany('Cli Co');
      const suspended = await cli('companies', 'suspend', companyId, '--reason', 'Fraud review', '--json');
      expect(suspended.code, suspended.stderr).to.equal(0);
      expect(JSON.parse(suspended.stdout)).to.include({ id: companyId, status: 'suspended', suspensionReason: 'Fraud review' });
      for (const at of [first, second]) await eventually(async () => (await call(at.baseUrl, key, 'GET', '/test')).status === 403, 20_000, 10);
      const again = await cli('companies', 'suspend', companyId, '--reason', 'Other');
      expect(again.code, again.stderr).to.equal(0);
      expect(again.stdout).to.match(/already suspended, since .*; nothing changed/);
      const listed = await cli('companies', 'list');
      expect(listed.stdout).to.match(new RegExp(`${companyId}  Cli Co  \\(created [^;]+; suspended since `));
      expect((await admin(first, 'GET', `/admin/companies/${companyId}`)).body.data).to.include({ status: 'suspended', suspensionReason: 'Fraud review' });
      const link = await cli('console', 'link', '--company', companyId);
      expect([link.code, link.stdout]).to.deep.equal([1, '']);
      expect(link.stderr).to.contain(`Company ${companyId} is suspended`);

      const resumed = await cli('companies', 'resume', companyId);
      expect([resumed.code, resumed.stdout.trim()]).to.deep.equal([0, `Resumed company ${companyId}`]);
      for (const at of [first, second]) await eventually(async () => (await call(at.baseUrl, key, 'GET', '/test')).status === 200, 20_000, 10);
      const idle = await cli('companies', 'resume', companyId);
      expect(idle.stdout.trim()).to.equal(`Company ${companyId} is not suspended; nothing changed`);

      const unknown = await cli('companies', 'suspend', '00000000-0000-4000-8000-000000000000', '--reason', 'x');
      expect([unknown.code, unknown.stderr]).to.satisfy(([code, stderr]: [number, string]) => code !== 0 && /Company 00000000-0000-4000-8000-000000000000 not found/.test(stderr));
      const blank = await cli('companies', 'suspend', companyId, '--reason', '   ');
      expect(blank.code).to.not.equal(0);
      expect(blank.stderr).to.match(/--reason reason must be 1 to 500 characters/);
      const missing = await cli('companies', 'suspend', companyId);
      expect(missing.code).to.not.equal(0);
      expect(missing.stderr).to.contain("required option '--reason <text>' not specified");
    });
  });
}

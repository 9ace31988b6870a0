import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { eventually } from '../support/events.js';
import { skipLine } from '../support/integration.js';
import { freshPostgresDatabase, postgresTestUrl, type FreshDatabase } from '../support/postgres.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

interface Received {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** A receiver on 127.0.0.1 that answers 200 and keeps what it got. */
const startReceiver = async (): Promise<{ url: string; received: Received[]; close: () => Promise<void> }> => {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

const call = async (baseUrl: string, key: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
};

if (!postgresTestUrl()) {
  skipLine('chronicle serve on PostgreSQL (POSTGRES_URL) end to end', 'POSTGRES_TEST_URL');
} else {
  describe('chronicle serve on PostgreSQL (POSTGRES_URL): every store in one database', function () {
    this.timeout(90_000);
    let database: FreshDatabase;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    const first = tempDir('chronicle-pg-a-');
    const second = tempDir('chronicle-pg-b-');
    const servers: ServerProcess[] = [];
    let env: NodeJS.ProcessEnv;
    let key: string;
    let server: ServerProcess;

    const start = async (extra: NodeJS.ProcessEnv = {}): Promise<ServerProcess> => {
      const started = await startServer({ ...env, ...extra });
      servers.push(started);
      return started;
    };
    const stop = async (process: ServerProcess): Promise<number | null> => {
      servers.splice(servers.indexOf(process), 1);
      return process.stop();
    };

    before(async () => {
      database = await freshPostgresDatabase();
      receiver = await startReceiver();
      env = {
        POSTGRES_URL: database.url,
        POSTGRES_POOL_SIZE: '4',
        DATA_DIR: first.path,
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_DELAYS_MS: '50,100,200',
      };
      server = await start();
      // An empty database: the first start makes a demo company and key, shown once.
      key = /API key (chr_\S+)/.exec(server.output())?.[1] ?? '';
      expect(key, server.output()).to.match(/^chr_/);
    });

    after(async () => {
      const codes = await Promise.all(servers.splice(0).map((process) => process.stop()));
      await receiver.close();
      await database.drop();
      first.dispose();
      second.dispose();
      expect(codes.every((code) => code === 0), 'every process stops cleanly').to.equal(true);
    });

    it('reports PostgreSQL as its event store', async () => {
      const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as { data: { eventStore: string } };
      expect(health.data.eventStore).to.equal('postgres');
    });

    it('creates a contact and a deal, lists them, delivers the webhook, and reads them again after a restart', async () => {
      const subscribed = await call(server.baseUrl, key, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: receiver.url });
      expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
      const { secret } = subscribed.body.data as { secret: string };

      const contact = await call(server.baseUrl, key, 'POST', '/contacts', { name: 'Ada Lovelace', phoneNumber: '+44 20 7946 0001' });
      expect(contact.status, JSON.stringify(contact.body)).to.equal(201);
      const deal = await call(server.baseUrl, key, 'POST', '/deals', { title: 'Analytical engine', value: 1843, stage: 'Proposal' });
      expect(deal.status, JSON.stringify(deal.body)).to.equal(201);

      const listed = async (at: ServerProcess) => ({
        contacts: ((await call(at.baseUrl, key, 'GET', '/contacts')).body.data as { id: string }[]).map((c) => c.id),
        deals: ((await call(at.baseUrl, key, 'GET', '/deals')).body.data as { id: string }[]).map((d) => d.id),
      });
      expect(await listed(server)).to.deep.equal({ contacts: [contact.body.data.id], deals: [deal.body.data.id] });

      await eventually(() => receiver.received.length >= 1, 10_000, 20);
      const [delivery] = receiver.received;
      const envelope = new Webhook(secret).verify(delivery!.body, delivery!.headers) as { event: string; data: { id: string } };
      expect(envelope.event).to.equal('contact.created');
      expect(envelope.data.id).to.equal(contact.body.data.id);

      expect(await stop(server)).to.equal(0);
      server = await start();
      expect(server.output(), 'no second demo company on a database that has events').not.to.match(/API key chr_/);
      expect(await listed(server)).to.deep.equal({ contacts: [contact.body.data.id], deals: [deal.body.data.id] });
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${contact.body.data.id}`)).body.data.name).to.equal('Ada Lovelace');
      // Delivered once: the restarted fan-out resumed from its checkpoint in the database.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(receiver.received).to.have.length(1);
    });

    it('deletes and restores a contact: 404, out of lists, searches and recent triggers, its number free, its deal showing nulls, the delete delivered', async () => {
      const subscribed = await call(server.baseUrl, key, 'POST', '/webhooks/subscribe', { event: 'contact.deleted', target_url: receiver.url });
      expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
      const contact = (await call(server.baseUrl, key, 'POST', '/contacts', { name: 'Katherine Johnson', phoneNumber: '+1 555 0142', email: 'kj@example.com' })).body.data;
      const deal = (await call(server.baseUrl, key, 'POST', '/deals', { title: 'Trajectory', value: 1962, contactId: contact.id })).body.data;
      const deleted = await call(server.baseUrl, key, 'DELETE', `/contacts/${contact.id}`);
      expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
      expect(deleted.body.data).to.include({ id: contact.id });

      expect((await call(server.baseUrl, key, 'GET', `/contacts/${contact.id}`)).status).to.equal(404);
      expect((await call(server.baseUrl, key, 'GET', '/contacts?search=Katherine')).body.data).to.deep.equal([]);
      const recent = (await call(server.baseUrl, key, 'GET', '/triggers/contact.created/recent?limit=100')).body as { id: string }[];
      expect(recent.map((record) => record.id)).not.to.include(contact.id);
      const shown = (await call(server.baseUrl, key, 'GET', `/deals/${deal.id}`)).body.data.contact;
      expect(shown).to.deep.equal({ id: contact.id, name: null, email: null, phoneNumber: null, currentCompany: null });

      // Its number is free; restoring while another contact has it is refused, then works once it is free again.
      const taker = await call(server.baseUrl, key, 'POST', '/contacts', { name: 'Number Taker', phoneNumber: '+1 555 0142' });
      expect(taker.status).to.equal(201);
      const refused = await call(server.baseUrl, key, 'POST', `/contacts/${contact.id}/restore`, {});
      expect(refused.status).to.equal(409);
      expect(refused.body.existingContactId).to.equal(taker.body.data.id);
      expect((await call(server.baseUrl, key, 'DELETE', `/contacts/${taker.body.data.id}`)).status).to.equal(200);
      const restored = await call(server.baseUrl, key, 'POST', `/contacts/${contact.id}/restore`, {});
      expect(restored.status, JSON.stringify(restored.body)).to.equal(200);
      expect(restored.body.data).to.deep.equal(contact);
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${contact.id}`)).body.data).to.deep.equal(contact);
      expect((await call(server.baseUrl, key, 'GET', `/deals/${deal.id}`)).body.data.contact).to.include({ name: 'Katherine Johnson' });

      await eventually(() => receiver.received.some((delivery) => delivery.body.includes('"contact.deleted"')), 10_000, 20);
      const deliveries = receiver.received.filter((delivery) => delivery.body.includes('"contact.deleted"'));
      const bodies = deliveries.map((delivery) => new Webhook(subscribed.body.data.secret).verify(delivery.body, delivery.headers) as { data: { id: string } });
      expect(bodies.map((body) => body.data.id)).to.include(contact.id);
      expect(deliveries.every((delivery) => !delivery.body.includes('Katherine'))).to.equal(true);
    });

    it('answers a warm GET by id from memory, and every change at once: its own update and delete, and an update made by another API process', async () => {
      const viewsAnswered = async (): Promise<{ memory: number; store: number }> => {
        const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
        const figure = (answered: string) => Number(new RegExp(`chronicle_read_views_total\\{answered="${answered}"\\} (\\d+)`).exec(text)?.[1] ?? NaN);
        return { memory: figure('memory'), store: figure('store') };
      };
      const created = await call(server.baseUrl, key, 'POST', '/contacts', { name: 'Edsger Dijkstra', phoneNumber: '+31 20 555 0100' });
      expect(created.status).to.equal(201);
      const id = created.body.data.id as string;
      const before = await viewsAnswered();
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`)).body.data.name).to.equal('Edsger Dijkstra');
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`)).body.data.name).to.equal('Edsger Dijkstra');
      const warm = await viewsAnswered();
      expect(warm.store - before.store, 'the first read from the store').to.equal(1);
      expect(warm.memory - before.memory, 'the second from memory').to.equal(1);

      // Its own update: the next read shows it, without waiting for anything.
      const updated = await call(server.baseUrl, key, 'PUT', `/contacts/${id}`, { name: 'E. W. Dijkstra' });
      expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`)).body.data.name).to.equal('E. W. Dijkstra');

      // An update through another API process, read here with its position.
      const reader = await start({ DATA_DIR: second.path, RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' });
      const elsewhere = await call(reader.baseUrl, key, 'PUT', `/contacts/${id}`, { name: 'Edsger W. Dijkstra' });
      expect(elsewhere.status, JSON.stringify(elsewhere.body)).to.equal(200);
      const read = await call(server.baseUrl, key, 'GET', `/contacts/${id}`, undefined, { 'X-Min-Log-Position': elsewhere.headers.get('x-log-position')! });
      expect(read.body.data.name).to.equal('Edsger W. Dijkstra');
      expect(await stop(reader)).to.equal(0);

      // Its delete: 404 at once.
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`)).status).to.equal(200);
      expect((await call(server.baseUrl, key, 'DELETE', `/contacts/${id}`)).status).to.equal(200);
      expect((await call(server.baseUrl, key, 'GET', `/contacts/${id}`)).status).to.equal(404);
    });

    it("a second API process on its own DATA_DIR reads the first one's writes (X-Min-Log-Position)", async function () {
      const health = (await (await fetch(`${server.baseUrl}/health`)).json()) as { data: { readModels: string } };
      if (health.data.readModels !== 'postgres') {
        // Until the read models live in PostgreSQL too, each DATA_DIR has read models of its own.
        console.log(`      (skipped: the read models are ${health.data.readModels}, not in PostgreSQL)`);
        this.skip();
      }
      const reader = await start({ DATA_DIR: second.path, RUN_PROJECTIONS: 'false', RUN_WEBHOOKS: 'false' });
      const created = await call(server.baseUrl, key, 'POST', '/contacts', { name: 'Grace Hopper', phoneNumber: '+1 555 0199' });
      expect(created.status).to.equal(201);
      const position = created.headers.get('x-log-position');
      expect(position).to.match(/^\d+$/);
      const read = await call(reader.baseUrl, key, 'GET', `/contacts/${created.body.data.id}`, undefined, { 'X-Min-Log-Position': position! });
      expect(read.status, JSON.stringify(read.body)).to.equal(200);
      expect(read.body.data.name).to.equal('Grace Hopper');
      // And its own writes, read back through the first.
      const own = await call(reader.baseUrl, key, 'POST', '/deals', { title: 'Compiler', value: 1952, stage: 'Lead' });
      expect(own.status).to.equal(201);
      const back = await call(server.baseUrl, key, 'GET', `/deals/${own.body.data.id}`, undefined, { 'X-Min-Log-Position': own.headers.get('x-log-position')! });
      expect(back.status).to.equal(200);
      expect(await stop(reader)).to.equal(0);
    });
  });
}

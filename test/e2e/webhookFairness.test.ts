import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { eventually } from '../support/events.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { seedCompanyWithKeys } from '../support/seedCompany.js';
import { tempDir } from '../support/tempStore.js';

/** Subscriptions of the other company whose receivers accept the connection and never answer. */
const HANGING = 60;
/** The default `WEBHOOK_MAX_IN_FLIGHT_PER_COMPANY`. */
const PER_COMPANY = 16;
const HEALTHY_DELIVERIES = 5;

/** A receiver on 127.0.0.1 that reads each request and never answers it. */
const startHangingReceiver = async () => {
  const sockets = new Set<Socket>();
  let received = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  const server: Server = createServer((req, res) => {
    received += 1;
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.once('close', () => (inFlight -= 1));
    req.resume();
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** A receiver that answers 200 at once and notes each delivery that arrived (by contact name). */
const startHealthyReceiver = async () => {
  const arrivals = new Set<string>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      arrivals.add((JSON.parse(body) as { data: { name: string } }).data.name);
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};

const call = async (server: ServerProcess, key: string, method: string, path: string, body?: unknown) => {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json()) as { data: { id: string } } };
};

/**
 * The target of fair delivery, on a real `chronicle serve` (default 30 s timeout,
 * default caps): another company's 60 hanging subscriptions, each with a queued
 * event, hold at most its share of the dispatcher, and a healthy subscription's
 * deliveries still arrive while those attempts hang (within a second: `npm run
 * bench:timings`), with the dispatcher in the same process as the API and in the
 * background process of API_WORKERS.
 */
for (const apiWorkers of ['1', '2']) {
  describe(`webhooks shared fairly between companies (API_WORKERS=${apiWorkers}): another company's hanging receivers`, function () {
    this.timeout(60_000);
    const dir = tempDir('chronicle-fairness-');
    let server: ServerProcess;
    let hanging: Awaited<ReturnType<typeof startHangingReceiver>>;
    let healthy: Awaited<ReturnType<typeof startHealthyReceiver>>;
    let keyA: string;
    let keyB: string;

    before(async () => {
      const store = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
      try {
        [keyA, keyB] = [(await seedCompanyWithKeys(store, 1)).keys[0]!, (await seedCompanyWithKeys(store, 1)).keys[0]!];
      } finally {
        await store.close();
      }
      hanging = await startHangingReceiver();
      healthy = await startHealthyReceiver();
      server = await startServer({ DATA_DIR: dir.path, API_WORKERS: apiWorkers, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
      await eventually(async () => (await fetch(`${server.baseUrl}/ready`)).status === 200, 15_000, 50);
    });

    after(async () => {
      // The hanging attempts end with their connections, so the server stops at once.
      await hanging?.close();
      await server?.stop();
      await healthy?.close();
      dir.dispose();
    });

    it(`holds at most ${PER_COMPANY} slots for them, and the healthy subscription's deliveries arrive while they hang`, async () => {
      for (let i = 0; i < HANGING; i++) {
        const res = await call(server, keyB, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: `${hanging.url}/h${i}` });
        expect(res.status).to.equal(201);
      }
      expect((await call(server, keyB, 'POST', '/contacts', { name: 'Queued for every hanging receiver', phoneNumber: '+44 20 7946 0001' })).status).to.equal(201);
      // The other company's share of the dispatcher fills up with attempts that will not end for 30 s.
      await eventually(() => hanging.inFlight() === PER_COMPANY, 15_000, 20);

      expect((await call(server, keyA, 'POST', '/webhooks/subscribe', { event: 'contact.created', target_url: healthy.url })).status).to.equal(201);
      // Each delivered before any of those attempts ended (30 s): never in a slot one of them gave up.
      for (let i = 0; i < HEALTHY_DELIVERIES; i++) {
        const name = `Healthy ${i}`;
        expect((await call(server, keyA, 'POST', '/contacts', { name, phoneNumber: `+44 20 7946 ${1000 + i}` })).status).to.equal(201);
        await eventually(() => healthy.arrivals.has(name), 15_000, 5);
      }
      expect(hanging.inFlight(), 'the hanging attempts still hang').to.equal(PER_COMPANY);
      // Still within its share: the 44 others wait for its slots, none beyond them.
      expect(hanging.maxInFlight()).to.equal(PER_COMPANY);
      expect(hanging.received()).to.equal(PER_COMPANY);
    });
  });
}

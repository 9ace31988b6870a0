import { expect } from 'chai';
import { connect, type Socket } from 'node:net';
import { SqliteWebhookOutbox } from '../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logging.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { eventually } from '../support/events.js';
import { startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { startReceiver, type Receiver } from '../unit/webhooks/delivery/support/receiver.js';

/**
 * Graceful shutdown of a real `chronicle serve` child process: what is in flight
 * when SIGTERM or SIGINT arrives finishes, nothing new is accepted, and the exit
 * code says whether everything finished within SHUTDOWN_TIMEOUT_MS.
 */

const portOf = (server: ServerProcess): number => Number(new URL(server.baseUrl).port);

/** Resolves once the child's output holds `text` (bounded). */
const outputContains = (server: ServerProcess, text: string): Promise<void> =>
  eventually(() => server.output().includes(text), 10_000, 10);

const exitOf = (server: ServerProcess): Promise<number | null> =>
  server.child.exitCode !== null
    ? Promise.resolve(server.child.exitCode)
    : new Promise((resolve) => server.child.once('exit', (code) => resolve(code)));

/** A raw HTTP/1.1 connection: what it sent and received, and when it closed. */
interface RawClient {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<void>;
}

const rawClient = (port: number): Promise<RawClient> =>
  new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
    socket.once('connect', () => {
      socket.removeListener('error', reject);
      socket.on('error', () => undefined);
      resolve({ socket, received: () => received, closed });
    });
  });

/** Starts a POST /contacts whose body is held back; resolves once the server has handed it to the application. */
const slowPost = async (port: number, key: string, body: string): Promise<RawClient> => {
  const client = await rawClient(port);
  client.socket.write(
    [
      'POST /contacts HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: Bearer ${key}`,
      'Content-Type: application/json',
      `Content-Length: ${Buffer.byteLength(body)}`,
      // Node answers "100 Continue" just before it hands the request to the application.
      'Expect: 100-continue',
      '',
      '',
    ].join('\r\n'),
  );
  await eventually(() => client.received().includes('100 Continue'), 10_000, 5);
  return client;
};

/** Whether a new TCP connection to the port is refused. */
const connectionRefused = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });

const demoKeyOf = (server: ServerProcess): string => {
  const key = /API key (chr_\S+)/.exec(server.output())?.[1];
  if (!key) throw new Error('no demo key in the output');
  return key;
};

describe('graceful shutdown of `chronicle serve`', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let server: ServerProcess | null = null;
  beforeEach(() => (dir = tempDir('chronicle-shutdown-')));
  afterEach(() => {
    if (server && server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    server = null;
    dir.dispose();
  });

  it('on SIGTERM: refuses new connections, answers the request in flight, and exits 0, complete within the bound', async () => {
    server = await startServer({ DATA_DIR: dir.path, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '10000' });
    const port = portOf(server);
    const exited = exitOf(server);
    const body = JSON.stringify({ name: 'In flight', phoneNumber: '+44 20 7946 0100' });
    const inFlight = await slowPost(port, demoKeyOf(server), body);

    server.child.kill('SIGTERM');
    await outputContains(server, '"msg":"stopped accepting connections"');
    expect(await connectionRefused(port)).to.equal(true);

    inFlight.socket.write(body);
    await inFlight.closed;
    const answer = inFlight.received().replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
    expect(answer).to.match(/^HTTP\/1\.1 201 Created\r\n/);
    // Told not to reuse the connection, which the server then closes.
    expect(answer).to.match(/\r\nConnection: close\r\n/i);
    expect(answer).to.contain('"name":"In flight"');

    expect(await exited).to.equal(0);
    // Its own report: every step finished within the bound (SHUTDOWN_TIMEOUT_MS), nothing cut off.
    expect(server.output()).to.contain('"msg":"stopped"').and.contain('"complete":true');
  });

  it('on SIGINT: closes idle keep-alive connections at once and exits 0', async () => {
    server = await startServer({ DATA_DIR: dir.path, LOG_LEVEL: 'info' });
    const port = portOf(server);
    const exited = exitOf(server);
    const idle = await rawClient(port);
    idle.socket.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n');
    await eventually(() => /\r\n\r\n\{.*\}$/s.test(idle.received()), 10_000, 5);
    expect(idle.received()).to.match(/^HTTP\/1\.1 200 OK\r\n/);
    expect(idle.received()).to.match(/\r\nConnection: keep-alive\r\n/i);

    server.child.kill('SIGINT');
    // Closed by the server: the keep-alive timeout (5 s) would otherwise hold the shutdown.
    await idle.closed;
    expect(await exited).to.equal(0);
    expect(server.output()).to.contain('"signal":"SIGINT"');
  });

  it('cuts off what is still in flight when SHUTDOWN_TIMEOUT_MS runs out, and exits 1', async () => {
    server = await startServer({ DATA_DIR: dir.path, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '1000' });
    const port = portOf(server);
    const exited = exitOf(server);
    // A body that never comes.
    const stuck = await slowPost(port, demoKeyOf(server), JSON.stringify({ name: 'Never finished', phoneNumber: '+44 20 7946 0101' }));

    server.child.kill('SIGTERM');
    await stuck.closed;
    // Cut off by the bound, and said so (it exits then, however long the request would have taken).
    expect(await exited).to.equal(1);
    expect(stuck.received()).not.to.contain('201 Created');
    expect(server.output()).to.contain('requests still in flight at the bound were cut off');
  });
});

describe('graceful shutdown: webhook deliveries in flight', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let receiver: Receiver;
  let chronicle: Chronicle;
  beforeEach(async () => {
    dir = tempDir('chronicle-shutdown-');
    receiver = await startReceiver();
    const config = loadConfig({ DATA_DIR: dir.path, PORT: '0', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
    chronicle = await startChronicle(config, createLogger('silent'));
  });
  afterEach(async () => {
    await chronicle.close();
    await receiver.close();
    dir.dispose();
  });

  /** Subscribes the receiver's `/slow` to contact.created, creates a contact, and resolves with the held response once it arrives. */
  const deliveryInFlight = async () => {
    let held: ((status: number) => void) | null = null;
    receiver.on('/slow', (_request, res) => (held = (status) => res.writeHead(status).end('ok')));
    const call = (method: string, path: string, body: unknown) =>
      fetch(`http://127.0.0.1:${chronicle.port}${path}`, {
        method,
        headers: { Authorization: `Bearer ${chronicle.demo!.key}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await call('POST', '/webhooks/subscribe', { event: 'contact.created', target_url: `${receiver.url}/slow` })).status).to.equal(201);
    expect((await call('POST', '/contacts', { name: 'Ada', phoneNumber: '+44 20 7946 0200' })).status).to.equal(201);
    await eventually(() => held !== null, 5000);
    return (status: number) => held!(status);
  };

  const depthAfterClose = async () => {
    const outbox = SqliteWebhookOutbox.open(embeddedDatabaseFile(dir.path));
    try {
      return await outbox.depthByState();
    } finally {
      await outbox.close();
    }
  };

  it('lets an attempt in flight finish within the bound and records it', async () => {
    const answer = await deliveryInFlight();
    const closing = chronicle.close({ timeoutMs: 10_000 });
    // The receiver answers only after the shutdown began.
    setTimeout(() => answer(200), 100);
    expect((await closing).complete).to.equal(true);
    expect(await depthAfterClose()).to.deep.equal({ pending: 0, delivered: 1, failed: 0 });
  });

  it('aborts an attempt still in flight at the bound: not recorded, so it is sent again after a restart', async () => {
    await deliveryInFlight();
    const report = await chronicle.close({ timeoutMs: 400 });
    expect(report.complete).to.equal(false);
    expect(await depthAfterClose()).to.deep.equal({ pending: 1, delivered: 0, failed: 0 });
  });
});

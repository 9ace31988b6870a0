import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import { createChronicleClient, type ChronicleClient } from '../src/index.js';

/**
 * The typed client through a whole flow against a real Chronicle (the root's built
 * `chronicle serve` on 127.0.0.1): create, list, update with an ETag, subscribe,
 * receive a signed delivery, poll it.
 */

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..');
// The root package's webhook verifier (`standardwebhooks`), as integrators use it.
const { Webhook } = createRequire(join(root, 'package.json'))('standardwebhooks') as {
  Webhook: new (secret: string) => { verify(body: string, headers: Record<string, string>): unknown };
};

const waitFor = async <T>(check: () => T | undefined | null | false, timeoutMs: number, what: string): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

interface Delivery {
  readonly headers: IncomingHttpHeaders;
  readonly raw: string;
}

describe('typed client: a whole flow against a running Chronicle', function () {
  this.timeout(60_000);
  let child: ChildProcess;
  let dataDir: string;
  let receiver: Server;
  let receiverUrl: string;
  const deliveries: Delivery[] = [];
  let api: ChronicleClient;

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'chronicle-client-'));
    child = spawn(process.execPath, [join(root, 'bin', 'chronicle.js'), 'serve'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', BASE_PATH: '' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const started = await waitFor(
      () => {
        if (child.exitCode !== null) throw new Error(`chronicle serve exited:\n${stderr}`);
        const port = /listening on http:\/\/localhost:(\d+)/.exec(stderr);
        const key = /API key (chr_\S+)/.exec(stderr);
        return port && key ? { port: Number(port[1]), key: key[1]! } : null;
      },
      30_000,
      'chronicle serve',
    );
    api = createChronicleClient({ baseUrl: `http://127.0.0.1:${started.port}/`, apiKey: started.key });

    receiver = createServer((req, res) => {
      let raw = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => (raw += chunk));
      req.on('end', () => {
        deliveries.push({ headers: req.headers, raw });
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });

  after(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, lists, updates with an ETag, subscribes, receives and polls', async () => {
    const test = await api.GET('/test');
    assert.equal(test.response.status, 200);
    assert.ok(test.data?.data.permissions.includes('contacts:write'));

    // Create (safe to retry with an Idempotency-Key).
    const key = randomUUID();
    const body = { name: 'Katherine Johnson', phoneNumber: '+1 757 555 0101', email: 'kj@example.com', tags: ['nasa'] };
    const created = await api.POST('/contacts', { params: { header: { 'Idempotency-Key': key } }, body });
    assert.equal(created.response.status, 201);
    const contact = created.data!.data;
    assert.equal(contact.phoneNumber, '+17575550101');
    const retried = await api.POST('/contacts', { params: { header: { 'Idempotency-Key': key } }, body });
    assert.equal(retried.response.headers.get('Idempotent-Replayed'), 'true');
    assert.equal(retried.data!.data.id, contact.id);

    // List.
    const listed = await api.GET('/contacts', { params: { query: { search: 'Katherine', limit: 10 } } });
    assert.deepEqual(listed.data!.data.map((c) => c.id), [contact.id]);
    assert.equal(listed.data!.meta.total, 1);

    // Subscribe to its updates, with the local receiver as target.
    const subscribed = await api.POST('/webhooks/subscribe', { body: { event: 'contact.updated', target_url: receiverUrl } });
    assert.equal(subscribed.response.status, 201);
    const { secret, id: subscriptionId } = subscribed.data!.data;
    assert.ok(secret);

    // Update with the ETag read: once, and then the same ETag is stale.
    const read = await api.GET('/contacts/{id}', { params: { path: { id: contact.id } } });
    const etag = read.response.headers.get('ETag')!;
    assert.match(etag, /^"0-\d+"$/);
    const notModified = await api.GET('/contacts/{id}', { params: { path: { id: contact.id }, header: { 'If-None-Match': etag } } });
    assert.equal(notModified.response.status, 304);
    const updated = await api.PUT('/contacts/{id}', {
      params: { path: { id: contact.id }, header: { 'If-Match': etag } },
      body: { city: 'Hampton' },
    });
    assert.equal(updated.response.status, 200);
    assert.equal(updated.data!.data.city, 'Hampton');
    const stale = await api.PUT('/contacts/{id}', { params: { path: { id: contact.id }, header: { 'If-Match': etag } }, body: { city: 'Elsewhere' } });
    assert.equal(stale.response.status, 412);
    assert.equal(stale.error?.error, 'Precondition failed');

    // Receive: one signed delivery of the update.
    const delivery = await waitFor(() => deliveries[0], 20_000, 'the contact.updated delivery');
    const headers = Object.fromEntries(Object.entries(delivery.headers).map(([name, value]) => [name, String(value)]));
    const envelope = new Webhook(secret!).verify(delivery.raw, headers) as { event: string; data: { id: string; city: string }; metadata: { eventId: string } };
    assert.equal(envelope.event, 'contact.updated');
    assert.equal(envelope.data.id, contact.id);
    assert.equal(envelope.data.city, 'Hampton');

    // Poll the same change: the record carries the delivery's event id.
    const recent = await api.GET('/triggers/{event_type}/recent', { params: { path: { event_type: 'contact.updated' } } });
    assert.deepEqual(recent.data!.map((record) => record.eventId), [envelope.metadata.eventId]);

    const unsubscribed = await api.DELETE('/webhooks/{id}', { params: { path: { id: subscriptionId } } });
    assert.equal(unsubscribed.response.status, 200);
  });
});

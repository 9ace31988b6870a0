import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { runCli, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** A receiver on 127.0.0.1 answering `code` to every delivery, counting them. */
const startReceiver = async (code: number): Promise<{ url: string; count: () => number; close: () => Promise<void> }> => {
  let received = 0;
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.writeHead(code).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    count: () => received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
};

/** Every spelling a stored value could take: as sent, normalised, lower- and upper-cased, URL-escaped, and a number's digits. */
const spellingsOf = (value: string): string[] => {
  const spellings = new Set([value, value.toLowerCase(), value.toUpperCase(), encodeURIComponent(value), encodeURIComponent(value.toLowerCase())]);
  const digits = value.replace(/\D/g, '');
  if (digits.length >= 8) spellings.add(digits);
  return [...spellings];
};

/** Every file under `dir`, recursively. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });

/** The spellings found in any file under `dir`, as bytes (UTF-8), with the file that holds each. */
const bytesFound = (dir: string, spellings: readonly string[]): string[] =>
  filesUnder(dir).flatMap((file) => {
    const bytes = readFileSync(file);
    return spellings.filter((spelling) => bytes.includes(Buffer.from(spelling, 'utf8'))).map((spelling) => `${spelling} in ${file}`);
  });

describe('erasing a contact on the embedded engine leaves none of its values in any byte Chronicle keeps', function () {
  this.timeout(120_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.dispose());

  it('after writes, a replayed create, a search, a won deal, deliveries that succeed and fail, the history; and after a restart, a replay and a verify', async () => {
    const [ok, failing] = [await startReceiver(200), await startReceiver(500)];
    const env = {
      DATA_DIR: dir.path,
      LOG_LEVEL: 'debug',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '20,40',
      WEBHOOK_PAUSE_DELAYS_MS: '50',
    };
    const server = await startServer(env);
    const unique = randomBytes(4).toString('hex');
    const phoneDigits = `1512${String(parseInt(unique, 16) % 10_000_000).padStart(7, '0')}`;
    const person = {
      name: `Zephyrine Quillfeather${unique}`,
      email: `Zq.${unique}@Example.ORG`,
      phoneNumber: `+49 ${phoneDigits.slice(0, 4)} ${phoneDigits.slice(4)}`,
      city: `Oberwaldhausen${unique}`,
      currentCompany: `Quillwerk${unique} GmbH`,
      tags: [`vip${unique}`],
    };
    const movedTo = `Unterbrunnwies${unique}`;
    let output = '';
    try {
      const companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())?.[1];
      expect(companyId, server.output()).to.be.a('string');
      const keyWith = async (permissions: string): Promise<string> => {
        const created = await runCli(['keys', 'create', '--company', companyId!, '--permissions', permissions, '--json'], { DATA_DIR: dir.path });
        expect(created.code, created.stderr).to.equal(0);
        return (JSON.parse(created.stdout) as { key: string }).key;
      };
      const key = await keyWith('all');
      const eraser = await keyWith('contacts:erase');
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, as = key) => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${as}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
      };
      await eventually(async () => (await call('GET', '/test')).status === 200 && (await call('GET', '/test', undefined, {}, eraser)).status === 200, 10_000);

      for (const receiver of [ok, failing]) {
        for (const event of ['contact.created', 'contact.updated', 'deal.created', 'deal.won']) {
          const subscribed = await call('POST', '/webhooks/subscribe', { event, target_url: receiver.url });
          expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
        }
      }

      const first = await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const contactId = first.body.data!.id as string;
      expect((await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` })).status).to.equal(201);
      expect((await call('PUT', `/contacts/${contactId}`, { city: movedTo })).status).to.equal(200);
      const found = await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`);
      expect((found.body as unknown as { data: unknown[] }).data).to.have.length(1);
      const deal = await call('POST', '/deals', { title: 'Quills', value: 100, currency: 'EUR', contactId }, { 'Idempotency-Key': `deal-${unique}` });
      expect(deal.status, JSON.stringify(deal.body)).to.equal(201);
      const dealId = deal.body.data!.id as string;
      expect((await call('PUT', `/deals/${dealId}/status`, { status: 'won' })).status).to.equal(200);
      expect((await call('GET', `/contacts/${contactId}/history`)).status).to.equal(200);
      await eventually(() => ok.count() >= 5 && failing.count() >= 5, 15_000);

      const erased = await call('POST', `/contacts/${contactId}/erase`, {}, {}, eraser);
      expect(erased.status, JSON.stringify(erased.body)).to.equal(200);
      // The deal stays, its contact's values erased; the create's replay answers as for an unknown contact.
      const dealNow = await call('GET', `/deals/${dealId}`);
      expect(dealNow.body.data!.contact).to.deep.equal({ id: contactId, name: null, email: null, phoneNumber: null, currentCompany: null });
      expect((await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` })).status).to.equal(404);
      expect((await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`)).body).to.deep.include({ data: [] });
      // The fan-out has passed the erasure once its contact.erased is enqueued: wait for the receiver to get it.
      await eventually(async () => {
        const feed = await call('GET', '/events?types=contact.erased');
        return ((feed.body as unknown as { data: { data: { id: string } }[] }).data ?? []).some((item) => item.data.id === contactId);
      }, 10_000);
    } finally {
      await server.stop();
      await ok.close();
      await failing.close();
      output = server.output();
    }

    const compacted = await runCli(['erasures', 'compact'], { DATA_DIR: dir.path });
    expect(compacted.code, compacted.stderr).to.equal(0);

    const values = [person.name, person.email, `+49${phoneDigits}`, person.city, person.currentCompany, person.tags[0]!, movedTo];
    const spellings = values.flatMap(spellingsOf);
    expect(bytesFound(dir.path, spellings), 'values in the files of DATA_DIR').to.deep.equal([]);
    expect(spellings.filter((spelling) => output.includes(spelling)), 'values in stdout and stderr').to.deep.equal([]);

    // Again after a restart, a replay of every read model and a verify.
    const again = await startServer(env);
    await again.stop();
    const replayed = await runCli(['replay'], { DATA_DIR: dir.path });
    expect(replayed.code, replayed.stderr).to.equal(0);
    const verified = await runCli(['verify'], { DATA_DIR: dir.path });
    expect(verified.code, verified.stdout + verified.stderr).to.equal(0);
    expect((await runCli(['erasures', 'compact'], { DATA_DIR: dir.path })).code).to.equal(0);
    expect(bytesFound(dir.path, spellings), 'values in the files of DATA_DIR after a replay').to.deep.equal([]);
    const said = again.output() + replayed.stdout + replayed.stderr + verified.stdout + verified.stderr;
    expect(spellings.filter((spelling) => said.includes(spelling)), 'values in what the restart, replay and verify wrote').to.deep.equal([]);
  });
});

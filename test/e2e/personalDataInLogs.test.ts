import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { eventually } from '../support/events.js';
import { runCli, startServer } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { spellingsOf, startCountingReceiver } from '../support/personalValues.js';

describe('a person\'s values in what chronicle serve writes to stdout and stderr', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir()));
  afterEach(() => dir.dispose());

  it('appear in no line, at debug level, along every path a contact takes: writes, replays, refusals, searches, deals, webhooks, history', async () => {
    const [ok, failing] = [await startCountingReceiver(200), await startCountingReceiver(500)];
    const server = await startServer({
      DATA_DIR: dir.path,
      LOG_LEVEL: 'debug',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_DELAYS_MS: '20,40',
      WEBHOOK_PAUSE_DELAYS_MS: '50',
    });
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
    try {
      const companyId = /company Demo company \(([0-9a-f-]+)\)/.exec(server.output())?.[1];
      expect(companyId, server.output()).to.be.a('string');
      const created = await runCli(['keys', 'create', '--company', companyId!, '--permissions', 'all', '--json'], { DATA_DIR: dir.path });
      expect(created.code, created.stderr).to.equal(0);
      const { key } = JSON.parse(created.stdout) as { key: string };
      const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
        const response = await fetch(`${server.baseUrl}${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown> } };
      };
      // Waited for until the server sees the key made by another process.
      await eventually(async () => (await call('GET', '/test')).status === 200, 10_000);

      for (const receiver of [ok, failing]) {
        for (const event of ['contact.created', 'contact.updated', 'deal.created', 'deal.won']) {
          const subscribed = await call('POST', '/webhooks/subscribe', { event, target_url: receiver.url });
          expect(subscribed.status, JSON.stringify(subscribed.body)).to.equal(201);
        }
      }

      const first = await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` });
      expect(first.status, JSON.stringify(first.body)).to.equal(201);
      const contactId = first.body.data!.id as string;
      const replayed = await call('POST', '/contacts', person, { 'Idempotency-Key': `create-${unique}` });
      expect(replayed.status).to.equal(201);
      // Refusals that name the values: a number taken, a malformed address, a replay with another body.
      expect((await call('POST', '/contacts', { name: `${person.name} twin`, phoneNumber: person.phoneNumber })).status).to.equal(409);
      expect((await call('POST', '/contacts', { name: person.name, phoneNumber: '+4915100000009', email: `not-an-address ${person.email}` })).status).to.equal(422);
      const reused = await call('POST', '/contacts', { ...person, city: movedTo }, { 'Idempotency-Key': `create-${unique}` });
      expect(reused.status, JSON.stringify(reused.body)).to.be.within(400, 499);
      expect((await call('PUT', `/contacts/${contactId}`, { city: movedTo })).status).to.equal(200);
      const found = await call('GET', `/contacts?search=${encodeURIComponent(person.name)}`);
      expect(found.status).to.equal(200);
      expect((await call('GET', `/contacts?search=${encodeURIComponent(`nobody ${unique}`)}`)).status).to.equal(200);

      const deal = await call('POST', '/deals', { title: 'Quills', value: 100, currency: 'EUR', contactId });
      expect(deal.status, JSON.stringify(deal.body)).to.equal(201);
      const won = await call('PUT', `/deals/${deal.body.data!.id as string}/status`, { status: 'won' });
      expect(won.status, JSON.stringify(won.body)).to.equal(200);
      expect((await call('GET', `/contacts/${contactId}/history`)).status).to.equal(200);

      // Delivered to one receiver, tried and failed at the other.
      await eventually(() => ok.count() >= 4 && failing.count() >= 4, 15_000);
    } finally {
      await server.stop();
      await ok.close();
      await failing.close();
    }
    const output = server.output();
    expect(output, 'the server logged at debug level').to.match(/"level":20/);
    const values = [person.name, person.email, person.phoneNumber, `+49${phoneDigits}`, person.city, person.currentCompany, person.tags[0]!, movedTo];
    const found = values.flatMap(spellingsOf).filter((spelling) => output.includes(spelling));
    expect(found, 'values found in the output').to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import type { AttemptOutcome, NewDelivery } from '../../../src/application/ports/WebhookOutbox.js';
import { tempDir } from '../../support/tempStore.js';

/** A small deterministic generator (a linear congruential one): the same seed, the same deliveries and attempts. */
const generator = (seed: number) => {
  let state = seed * 7919 + 1;
  return (): number => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
};

interface Person {
  readonly id: string;
  readonly name: string;
  readonly phone: string;
}

/**
 * One busy delivery log: eight receivers, forty webhook events of twelve people, each row tried once or, for a
 * failing receiver, up to four times, in an interleaved order, every response echoing the body back (so it holds
 * the person's values twice: in the body and in a header). Then eight of the people are erased, one after the
 * other, as the fan-out does; answers every erased person's value still found in the file or its write-ahead log,
 * with its page.
 */
const busyLogThenErase = async (seed: number): Promise<string[]> => {
  const random = generator(seed);
  const dir = tempDir('chronicle-outbox-erasure-bytes-');
  const file = join(dir.path, 'chronicle.sqlite');
  const outbox = SqliteWebhookOutbox.open(file);
  try {
    const company = 'company-1';
    const subscriptions = Array.from({ length: 8 }, (_, i) => ({
      subscriptionId: `sub-${i}`,
      companyId: company,
      event: 'contact.created',
      targetUrl: `https://receiver-${i}.example/`,
      filters: null,
      subscribedAt: '1',
      unsubscribedAt: null,
    }));
    const people: Person[] = Array.from({ length: 12 }, (_, i) => ({
      id: `contact-${i}-${Math.floor(random() * 1e9)}`,
      name: `Person${i} Q${Math.floor(random() * 1e9).toString(36)}`,
      phone: `+491512${String(Math.floor(random() * 1e7)).padStart(7, '0')}`,
    }));
    const rows: Array<NewDelivery & { tries: number; failing: boolean }> = [];
    let position = 10;
    await outbox.commitFanOut('fan-out', { position: String(position), subscriptions, deliveries: [] }, new Date());
    for (let round = 0; round < 40; round++) {
      const person = people[Math.floor(random() * people.length)]!;
      position += 1;
      const envelope = JSON.stringify({
        event: 'contact.created',
        data: { id: person.id, name: person.name, phoneNumber: person.phone, city: 'X'.repeat(Math.floor(random() * 400)), round },
      });
      const deliveries = subscriptions.map((s) => ({
        subscriptionId: s.subscriptionId,
        companyId: company,
        eventId: `event-${round}-${s.subscriptionId}`,
        eventType: 'contact.created',
        position: String(position),
        ordinal: 0,
        occurredAt: new Date().toISOString(),
        envelope,
      }));
      await outbox.commitFanOut('fan-out', { position: String(position), subscriptions: [], deliveries }, new Date());
      rows.push(...deliveries.map((d) => ({ ...d, tries: 0, failing: random() < 0.5 })));
      for (let k = 0; k < 12; k++) {
        const open = rows.filter((row) => row.tries < (row.failing ? 4 : 1));
        if (open.length === 0) break;
        const row = open[Math.floor(random() * open.length)]!;
        row.tries += 1;
        const attempt = {
          at: new Date(Date.now() + row.tries).toISOString(),
          statusCode: row.failing ? 500 : 200,
          error: null,
          latencyMs: 3,
          request: { url: 'https://receiver.example/', headers: { 'webhook-id': row.eventId, 'content-type': 'application/json' } },
          response: {
            headers: { 'content-type': 'application/json', 'x-echo': encodeURIComponent(row.envelope.slice(0, 200)) },
            body: `{"received":${row.envelope}}`,
            bodyTruncated: false,
          },
        };
        const outcome: AttemptOutcome = !row.failing
          ? { state: 'delivered' }
          : row.tries >= 4
            ? { state: 'failed', reason: 'retries_exhausted' }
            : { state: 'pending', nextAttemptAt: new Date() };
        await outbox.recordAttempt(row.subscriptionId, row.eventId, attempt, outcome, row.envelope);
      }
    }
    const erased = people.slice(0, 8);
    for (const person of erased) {
      await outbox.eraseMentions(company, person.id, (envelope) => envelope.split(person.name).join('null').split(person.phone).join('null'));
    }
    const found: string[] = [];
    for (const name of ['chronicle.sqlite', 'chronicle.sqlite-wal']) {
      let bytes: Buffer;
      try {
        bytes = readFileSync(join(dir.path, name));
      } catch {
        continue;
      }
      for (const value of erased.flatMap((person) => [person.name, person.phone.slice(1)])) {
        for (let at = bytes.indexOf(value); at >= 0; at = bytes.indexOf(value, at + 1)) found.push(`${value} in ${name}, page ${Math.floor(at / 4096) + 1}`);
      }
    }
    return found;
  } finally {
    await outbox.close();
    dir.dispose();
  }
};

/**
 * SQLite's `secure_delete` overwrites what a delete or a rewrite frees, but a page that SQLite
 * rebuilds when it rebalances it with its neighbours keeps, in its unused middle, old copies of
 * the rows it still holds. Outbox rows that grew with each attempt, with their bodies in them,
 * left such copies (decision 206): this log left some in most seeds before the bodies were kept
 * beside the rows, and an erasure's delete of a response could leave copies of other people's.
 */
describe('SQLite webhook outbox: an erasure leaves none of the person’s values in the file’s bytes', function () {
  this.timeout(60_000);

  it('after a busy log of echoed responses, in ten seeded runs', async () => {
    const found: string[] = [];
    for (let seed = 1; seed <= 10; seed++) found.push(...(await busyLogThenErase(seed)).map((where) => `seed ${seed}: ${where}`));
    expect(found).to.deep.equal([]);
  });
});

import { expect } from 'chai';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { UpcastingEventStore } from '../../src/application/versioning/UpcastingEventStore.js';
import { PROJECTIONS, STORED_EVENT_TYPES } from '../../src/features/index.js';
import { GOLDEN_LOGS_DIR, goldenLogReleases } from '../support/goldenLog.js';
import { tempDir } from '../support/tempStore.js';

/** Every event of a copy of a release's golden log, in today's shapes (upcast). */
const goldenEvents = async (release: string): Promise<RecordedEvent[]> => {
  const dir = tempDir('chronicle-creates-');
  const file = join(dir.path, 'chronicle.sqlite');
  copyFileSync(join(GOLDEN_LOGS_DIR, release, 'chronicle.sqlite'), file);
  const raw = SqliteEventStore.open(file);
  try {
    const store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
    const events: RecordedEvent[] = [];
    for (let after: string | null = null; ; ) {
      const page = await store.readAll({ after, maxCount: 500 });
      if (page.length === 0) return events;
      events.push(...page);
      after = page[page.length - 1]!.position;
    }
  } finally {
    await raw.close();
    dir.dispose();
  }
};

// `Projection.creates` lets a store write an event's documents without loading them
// (PostgreSQL sends such a batch in one round trip): it must never say so of an event
// whose documents could be stored already.
describe('projections that say an event creates its documents', () => {
  const creating = PROJECTIONS.filter((projection) => projection.creates !== undefined);

  it('are the contacts and the webhook events, and say it of their creations only', () => {
    expect(creating.map((projection) => projection.name)).to.include.members(['contacts', 'webhook_events.contact.created', 'webhook_events.deal.updated']);
    const contacts = creating.find((projection) => projection.name === 'contacts')!;
    const of = (type: string) => ({ type }) as RecordedEvent;
    expect([contacts.creates!(of('ContactCreated')), contacts.creates!(of('ContactUpdated'))]).to.deep.equal([true, false]);
  });

  for (const release of goldenLogReleases()) {
    it(`say it truly of every event of the golden log of ${release}: none of its documents is stored before it`, async () => {
      const events = await goldenEvents(release);
      const store = new MemoryReadModelStore();
      let checked = 0;
      for (const projection of creating) {
        const collection = store.collection(projection);
        for (const event of events) {
          if (!projection.eventTypes.has(event.type)) continue;
          if (projection.creates!(event)) {
            for (const target of projection.targets(event)) {
              expect(target.kind, `${projection.name} at ${event.position}`).to.equal('id');
              if (target.kind !== 'id') continue;
              expect(await collection.get(target.companyId, target.id), `${projection.name}: ${target.id} before ${event.type} at ${event.position}`).to.equal(null);
              checked += 1;
            }
          }
          await collection.apply([event]);
        }
      }
      expect(checked, 'documents created in the log').to.be.above(10);
    });
  }
});

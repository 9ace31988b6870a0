import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import { UndecodableEventError } from '../../src/application/versioning/UndecodableEventError.js';
import { withUpcasting, type UpcastingEventStore } from '../../src/application/versioning/UpcastingEventStore.js';
import type { ContactUpdated } from '../../src/features/contacts/domain/contactEvents.js';
import type { DealStatusChanged } from '../../src/features/deals/domain/dealEvents.js';
import { eventually } from '../support/events.js';
import { contactCreated, contactUpdatedV1, dealCreated, dealStatusChangedV1, storedAs } from '../support/legacyEvents.js';
import type { EventStoreFixture } from './eventStore.contract.js';
import { STORED_EVENT_TYPES } from '../../src/features/index.js';

/**
 * Event versions on an adapter: the versioning decorator (`UpcastingEventStore`,
 * which the composition root wraps around whichever adapter it picks) records
 * the schema version in the metadata, which the adapter must keep as plain JSON,
 * and upcasts on every read path the adapter offers. Run for every adapter; every
 * id is new and `readAll` and subscriptions start at a head captured in the test,
 * so it runs against a shared server.
 */
export const eventStoreVersionsContract = (
  name: string,
  open: () => Promise<EventStoreFixture>,
  options: {
    /**
     * The store is a server that others read too: an unreadable event written
     * there would stop any Chronicle that reads its log from the start, so the
     * test that writes one is left out (it runs on the embedded store, and the
     * code under test is the same decorator).
     */
    readonly shared?: boolean;
  } = {},
): void => {
  describe(`EventStore versions contract: ${name}`, function () {
    this.timeout(20_000);
    let fixture: EventStoreFixture;
    let store: UpcastingEventStore;

    beforeEach(async () => {
      fixture = await open();
      store = withUpcasting(fixture.store, STORED_EVENT_TYPES);
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    /** A contact and a deal as release 92d4d5c stored them (version 1, no version recorded), in new streams. */
    const writeLegacy = async () => {
      const raw = fixture.store;
      const company = `company-${randomUUID()}`;
      const contactId = randomUUID();
      const dealId = randomUUID();
      const contact = `contact-${contactId}`;
      const deal = `deal-${dealId}`;
      await raw.append(contact, [contactCreated(contactId, company, 'Ada')], 'no_stream');
      await raw.append(contact, [contactUpdatedV1(contactId, company, { name: 'Ada L' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z')], 0);
      await raw.append(deal, [dealCreated(dealId, company, { id: contactId, name: 'Ada L', email: 'ada@example.com' })], 'no_stream');
      await raw.append(contact, [contactUpdatedV1(contactId, company, { name: 'Countess' }, { name: 'Ada L' }, '2026-01-02T00:00:00.000Z')], 1);
      await raw.append(deal, [dealStatusChangedV1(dealId, company, { stage: { from: 'lead', to: 'won' } }, '2026-01-03T00:00:00.000Z')], 0);
      return { contact, deal, streams: new Set([contact, deal]) };
    };

    /** The current version of a stored event type. */
    const current = (type: string): number => STORED_EVENT_TYPES.get(type)!.versions.length;

    const checkCurrent = (events: readonly RecordedEvent[], contact: string) => {
      expect(events.map((event) => [event.type, event.version?.stored, event.version?.current])).to.deep.equal([
        ['ContactCreated', 1, current('ContactCreated')],
        ['ContactUpdated', 1, current('ContactUpdated')],
        ['DealCreated', 1, current('DealCreated')],
        ['ContactUpdated', 1, current('ContactUpdated')],
        ['DealStatusChanged', 1, current('DealStatusChanged')],
      ]);
      expect((events[1]!.data as ContactUpdated['data']).contact.name).to.equal('Ada L');
      expect((events[3]!.data as ContactUpdated['data']).contact.name).to.equal('Countess');
      const deal = (events[4]!.data as DealStatusChanged['data']).deal;
      expect(deal.stage).to.equal('won');
      expect(deal.contact).to.include({ id: contact.slice('contact-'.length), name: 'Countess' });
    };

    it('keeps the schema version recorded on append in the metadata, as the adapter reads it back', async () => {
      const contactId = randomUUID();
      await store.append(`contact-${contactId}`, [contactCreated(contactId, 'co', 'Ada')], 'no_stream');
      const [raw] = await fixture.store.readStream(`contact-${contactId}`);
      expect(raw!.metadata.schemaVersion).to.equal(current('ContactCreated'));
      const [read] = await store.readStream(`contact-${contactId}`);
      expect(read!.version).to.deep.equal({ current: current('ContactCreated'), stored: current('ContactCreated'), recorded: true });
    });

    it('upcasts version-1 events on readStream, readAll and subscribeToAll alike', async () => {
      const head = await store.headPosition();
      const { contact, deal, streams } = await writeLegacy();
      const byStream = [...(await store.readStream(contact)), ...(await store.readStream(deal))].sort((a, b) =>
        BigInt(a.position) < BigInt(b.position) ? -1 : 1,
      );
      checkCurrent(byStream, contact);

      const all = (await store.readAll({ after: head })).filter((event) => streams.has(event.stream));
      checkCurrent(all, contact);
      expect(all).to.deep.equal(byStream);

      const seen: RecordedEvent[] = [];
      const subscription = store.subscribeToAll({
        after: head,
        handle: async (batch) => void seen.push(...batch.filter((event) => streams.has(event.stream))),
      });
      try {
        await eventually(() => seen.length === 5, 10_000);
        checkCurrent(seen, contact);
      } finally {
        await subscription.stop();
      }
    });

    (options.shared ? it.skip : it)('stops every read path at a version this release does not know, naming the event', async () => {
      const head = await store.headPosition();
      const contactId = randomUUID();
      const stream = `contact-${contactId}`;
      await fixture.store.append(stream, [contactCreated(contactId, 'co', 'Ada')], 'no_stream');
      const { position } = await fixture.store.append(stream, [storedAs('ContactUpdated', { contactId }, 'co', 99)], 0);
      const expectNamed = (error: unknown) => {
        expect(error).to.be.instanceOf(UndecodableEventError);
        expect(error).to.include({ stream, type: 'ContactUpdated', position, version: 99 });
      };
      expectNamed(await store.readStream(stream).catch((error: unknown) => error));
      expectNamed(await store.readAll({ after: head }).catch((error: unknown) => error));
      const errors: unknown[] = [];
      const subscription = store.subscribeToAll({ after: head, handle: async () => undefined, onError: (error) => void errors.push(error) });
      try {
        await eventually(() => errors.length > 0, 10_000);
        expectNamed(errors[0]);
      } finally {
        await subscription.stop();
      }
    });
  });
};

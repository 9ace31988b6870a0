import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { historyEntryOf, readEntityHistory } from '../../../src/application/audit/entityHistory.js';
import { contactAggregate } from '../../../src/features/contacts/application/contactAggregate.js';
import { dealAggregate } from '../../../src/features/deals/application/dealAggregate.js';
import { EventUpcaster } from '../../../src/application/versioning/EventUpcaster.js';
import { StoredHistory } from '../../features/webhookEvents/storedHistory.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';

/** A stream reader over `events`, through the versioning decorator's upcaster as the server's event store reads. */
const storeOf = (events: readonly RecordedEvent[]) => {
  const raw = { readStream: async (stream: string) => events.filter((event) => event.stream === stream) };
  const upcaster = new EventUpcaster(raw, { types: STORED_EVENT_TYPES });
  return { readStream: async (stream: string) => upcaster.upcastStream(stream, await raw.readStream(stream)) };
};

describe('entity history', () => {
  let history: StoredHistory;

  beforeEach(() => {
    history = new StoredHistory();
    history.contact({ type: 'CreateContact', contactId: 'c-1', companyId: 'co-1', fields: { name: 'Ada', phoneNumber: '+441000', tags: [] }, at: new Date('2024-05-01T10:00:00.000Z') });
    for (let i = 1; i <= 4; i++) {
      history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { city: `City ${i}` }, at: new Date(`2024-05-01T10:0${i}:00.000Z`) });
    }
    history.deal({ type: 'CreateDeal', dealId: 'd-1', companyId: 'co-1', fields: { title: 'Deal', value: 1 }, contact: null, assignedTo: null, at: new Date('2024-05-01T11:00:00.000Z') });
  });

  const read = (id: string, page = 1, limit = 50, companyId = 'co-1') =>
    readEntityHistory(storeOf(history.events), contactAggregate.history!, { companyId, id, page, limit });

  it('pages a contact\'s events oldest first, with the stream\'s total', async () => {
    const first = await read('c-1', 1, 2);
    expect(first!.total).to.equal(5);
    expect(first!.entries.map((e) => [e.type, e.revision])).to.deep.equal([
      ['ContactCreated', 0],
      ['ContactUpdated', 1],
    ]);
    expect((await read('c-1', 3, 2))!.entries.map((e) => e.revision)).to.deep.equal([4]);
    expect(await read('c-1', 4, 2)).to.deep.equal({ entries: [], total: 5 });
  });

  it('answers an unknown id and another company\'s alike: null', async () => {
    expect(await read('nobody')).to.equal(null);
    expect(await read('c-1', 1, 50, 'co-2')).to.equal(null);
    const deal = (companyId: string) => readEntityHistory(storeOf(history.events), dealAggregate.history!, { companyId, id: 'd-1', page: 1, limit: 50 });
    expect((await deal('co-1'))!.entries.map((e) => e.type)).to.deep.equal(['DealCreated']);
    expect(await deal('co-2')).to.equal(null);
  });

  it('shows type, revision, position, recorded time, versions, data, and who caused it (never the company or anything else)', () => {
    const stored: RecordedEvent = {
      ...history.events[1]!,
      metadata: { source: 'api', correlationId: 'req-7', companyId: 'co-1', keyId: 'key-9', causationId: 'cause', schemaVersion: 2 },
      recordedAt: '2024-05-01T10:01:00.004Z',
      version: { current: 2, stored: 2, recorded: true },
    };
    expect(historyEntryOf(stored)).to.deep.equal({
      type: 'ContactUpdated',
      revision: 1,
      position: '2',
      timestamp: '2024-05-01T10:01:00.004Z',
      schema: { version: 2, storedVersion: 2, versionRecorded: true },
      data: stored.data,
      erasedFields: [],
      metadata: { source: 'api', keyId: 'key-9', correlationId: 'req-7' },
    });
    // A person's values erased since: the paths that read as null.
    expect(historyEntryOf({ ...stored, erasedFields: ['changes.city'] }).erasedFields).to.deep.equal(['changes.city']);
    expect(historyEntryOf({ ...stored, metadata: { source: 'cli', correlationId: 'x', userId: 'u-1' } }).metadata).to.deep.equal({
      source: 'cli',
      userId: 'u-1',
      correlationId: 'x',
    });
  });

  it('shows an event stored in an older version upcast to the current one, saying which version was stored', async () => {
    // As release 92d4d5c stored it: no `contact` snapshot, no version recorded.
    const updated = history.events[1]!;
    const { contact: _snapshot, ...v1 } = updated.data as Record<string, unknown>;
    const store = storeOf([history.events[0]!, { ...updated, data: v1 }]);
    const page = await readEntityHistory(store, contactAggregate.history!, { companyId: 'co-1', id: 'c-1', page: 1, limit: 50 });
    expect(page!.entries.map((entry) => entry.schema)).to.deep.equal([
      { version: 2, storedVersion: 1, versionRecorded: false },
      { version: 3, storedVersion: 1, versionRecorded: false },
    ]);
    expect(page!.entries[1]!.data).to.deep.equal(updated.data);
  });

  it('refuses an event that did not come through the versioning decorator (its version would be a guess)', () => {
    expect(() => historyEntryOf(history.events[0]!)).to.throw(/versioning decorator/);
  });
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { WrongExpectedRevisionError, type EventStore, type RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { UndecodableEventError } from '../../../src/application/versioning/UndecodableEventError.js';
import { UpcastingEventStore, upcastingSource } from '../../../src/application/versioning/UpcastingEventStore.js';
import { contactDecider } from '../../../src/features/contacts/domain/contactDecider.js';
import { ContactUpdated, contactStream } from '../../../src/features/contacts/domain/contactEvents.js';
import {
  ContactUpdatedV1,
  unmarkedContactUpdatedVersion,
  upcastContactUpdatedV1,
} from '../../../src/features/contacts/domain/contactEventVersions.js';
import { dealDecider } from '../../../src/features/deals/domain/dealDecider.js';
import { DealStatusChanged, dealStream } from '../../../src/features/deals/domain/dealEvents.js';
import {
  DealStatusChangedV1,
  unmarkedDealStatusChangedVersion,
  upcastDealStatusChangedV1,
} from '../../../src/features/deals/domain/dealEventVersions.js';
import { eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { contactCreated, contactUpdatedV1, dealCreated, dealStatusChangedV1, storedAs } from '../../support/legacyEvents.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';

const CO = 'co-1';
const right = <A>(either: E.Either<string, A>): A => {
  if (E.isLeft(either)) throw new Error(either.left);
  return either.right;
};
const decoded = <A>(codec: { decode(u: unknown): E.Either<unknown, A> }, event: { type: string; data: unknown }): A => {
  const result = codec.decode({ type: event.type, data: event.data });
  if (E.isLeft(result)) throw new Error(`does not decode: ${event.type}`);
  return result.right;
};

describe('Event versions', () => {
  describe('the rule for events stored before versions were recorded', () => {
    it('reads a ContactUpdated without `contact` as version 1 (92d4d5c) and one with it as version 2 (22653f6)', () => {
      expect(unmarkedContactUpdatedVersion({ contactId: 'c', changes: {} })).to.equal(1);
      expect(unmarkedContactUpdatedVersion({ contactId: 'c', changes: {}, contact: {} })).to.equal(2);
      expect(unmarkedContactUpdatedVersion(null)).to.equal(1);
    });

    it('reads a DealStatusChanged without `deal` as version 1 and one with it as version 2', () => {
      expect(unmarkedDealStatusChangedVersion({ dealId: 'd', actualCloseDate: null })).to.equal(1);
      expect(unmarkedDealStatusChangedVersion({ dealId: 'd', actualCloseDate: null, deal: {} })).to.equal(2);
    });
  });
});

describe('UpcastingEventStore (over SQLite)', () => {
  let dir: ReturnType<typeof tempDir>;
  let raw: SqliteEventStore;
  let store: UpcastingEventStore;

  beforeEach(() => {
    dir = tempDir('chronicle-upcast-');
    raw = SqliteEventStore.open(join(dir.path, 'events.sqlite'), { pollIntervalMs: 10 });
    store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  const contactId = 'c-1';
  const dealId = 'd-1';

  /**
   * As release 92d4d5c wrote it (no versions): Ada created, renamed, a deal embedding
   * her, the deal won, Ada's e-mail changed, the deal's stage moved.
   */
  const writeLegacyLog = async (target: EventStore = raw) => {
    await target.append(contactStream(contactId), [contactCreated(contactId, CO, 'Ada')], 'no_stream');
    await target.append(contactStream(contactId), [contactUpdatedV1(contactId, CO, { name: 'Ada L' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z')], 0);
    await target.append(dealStream(dealId), [dealCreated(dealId, CO, { id: contactId, name: 'Ada L', email: 'ada@example.com' })], 'no_stream');
    await target.append(dealStream(dealId), [dealStatusChangedV1(dealId, CO, { status: { from: 'open', to: 'won' }, actualCloseDate: '2026-01-02T00:00:00.000Z' }, '2026-01-02T00:00:00.000Z')], 0);
    await target.append(
      contactStream(contactId),
      [contactUpdatedV1(contactId, CO, { email: 'countess@example.com' }, { email: 'ada@example.com' }, '2026-01-03T00:00:00.000Z')],
      1,
    );
    await target.append(dealStream(dealId), [dealStatusChangedV1(dealId, CO, { stage: { from: 'lead', to: 'won-stage' }, actualCloseDate: '2026-01-02T00:00:00.000Z' }, '2026-01-04T00:00:00.000Z')], 1);
  };

  const contactOf = (event: RecordedEvent) => (event.data as ContactUpdated['data']).contact;
  const dealOf = (event: RecordedEvent) => (event.data as DealStatusChanged['data']).deal;

  it('records the current schema version of each declared type on append, keeps an explicit one, and leaves other types alone', async () => {
    await store.append(contactStream(contactId), [contactCreated(contactId, CO, 'Ada')], 'no_stream');
    await store.append(contactStream(contactId), [contactUpdatedV1(contactId, CO, { name: 'B' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z', 1)], 0);
    await store.append('other-1', [storedAs('SomethingElse', { a: 1 }, CO)], 'no_stream');
    const stored = [...(await raw.readStream(contactStream(contactId))), ...(await raw.readStream('other-1'))];
    expect(stored.map((event) => event.metadata.schemaVersion)).to.deep.equal([2, 1, undefined]);
    const written = await store.readStream(contactStream(contactId));
    expect(written.map((event) => event.version)).to.deep.equal([
      { current: 2, stored: 2, recorded: true },
      { current: 3, stored: 1, recorded: true },
    ]);
  });

  it('records versions on a multi-stream append as on append, and appends all or nothing as the store does', async () => {
    await store.appendToStreams!([
      { stream: contactStream(contactId), events: [contactCreated(contactId, CO, 'Ada')], expected: 'no_stream' },
      { stream: 'other-1', events: [storedAs('SomethingElse', { a: 1 }, CO)], expected: 'no_stream' },
    ]);
    const stored = [...(await raw.readStream(contactStream(contactId))), ...(await raw.readStream('other-1'))];
    expect(stored.map((event) => event.metadata.schemaVersion)).to.deep.equal([2, undefined]);
    const refused = await store
      .appendToStreams!([
        { stream: contactStream(contactId), events: [contactUpdatedV1(contactId, CO, { name: 'B' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z')], expected: 0 },
        { stream: 'other-1', events: [storedAs('SomethingElse', { a: 2 }, CO)], expected: 'no_stream' },
      ])
      .then(
        () => null,
        (error: unknown) => error,
      );
    expect(refused).to.be.instanceOf(WrongExpectedRevisionError);
    expect(await raw.readStream(contactStream(contactId))).to.have.length(1);
  });

  it('offers no multi-stream append over a store without one', () => {
    const oneAtATime: EventStore = {
      kind: raw.kind,
      append: (stream, events, expected) => raw.append(stream, events, expected),
      readStream: (stream, options) => raw.readStream(stream, options),
      readAll: (options) => raw.readAll(options),
      headPosition: () => raw.headPosition(),
      subscribeToAll: (options) => raw.subscribeToAll(options),
      close: () => raw.close(),
    };
    expect(new UpcastingEventStore(oneAtATime, { types: STORED_EVENT_TYPES }).appendToStreams).to.equal(undefined);
  });

  it('reads a stream of version-1 events in current shapes: the snapshots folded from the stream before each event', async () => {
    await writeLegacyLog();
    const contact = await store.readStream(contactStream(contactId));
    expect(contact.map((event) => event.version)).to.deep.equal([
      { current: 2, stored: 1, recorded: false },
      { current: 3, stored: 1, recorded: false },
      { current: 3, stored: 1, recorded: false },
    ]);
    expect(contactOf(contact[1]!)).to.include({ id: contactId, name: 'Ada L', email: 'ada@example.com', updatedAt: '2026-01-01T10:05:00.000Z' });
    expect(contactOf(contact[2]!)).to.include({ name: 'Ada L', email: 'countess@example.com', createdAt: '2026-01-01T10:00:00.000Z' });
    expect(contact.every((event) => ContactUpdated.is(event) || event.type === 'ContactCreated')).to.equal(true);

    // From a revision: the events before it are read too, to fold the state before the first one asked for.
    const tail = await store.readStream(contactStream(contactId), { fromRevision: 2 });
    expect(tail.map((event) => event.revision)).to.deep.equal([2]);
    expect(contactOf(tail[0]!)).to.deep.equal(contactOf(contact[2]!));
  });

  it('embeds in a DealStatusChanged v1 the deal before it and its contact as the contact\'s stream was at that position', async () => {
    await writeLegacyLog();
    const deal = await store.readStream(dealStream(dealId));
    const won = dealOf(deal[1]!);
    expect(won).to.include({ id: dealId, status: 'won', stage: 'lead', actualCloseDate: '2026-01-02T00:00:00.000Z', updatedAt: '2026-01-02T00:00:00.000Z' });
    expect(won.contact).to.deep.equal({ id: contactId, name: 'Ada L', email: 'ada@example.com', phoneNumber: '+441000', currentCompany: null });
    expect(won.assignedTo).to.deep.equal({ id: 'user-1', name: 'Dana', email: 'dana@example.com' });
    // The e-mail changed between the two status changes: the second embeds the new one.
    expect(dealOf(deal[2]!)).to.include({ status: 'won', stage: 'won-stage', updatedAt: '2026-01-04T00:00:00.000Z' });
    expect(dealOf(deal[2]!).contact!.email).to.equal('countess@example.com');
    expect(deal.every((event) => event.type === 'DealCreated' || DealStatusChanged.is(event))).to.equal(true);
  });

  it('reads the log (readAll) and subscriptions in the same current shapes as the streams, also with a cache of one stream', async () => {
    await writeLegacyLog();
    const byStreams = [...(await store.readStream(contactStream(contactId))), ...(await store.readStream(dealStream(dealId)))];
    const key = (event: RecordedEvent) => event.id;
    const expected = new Map(byStreams.map((event) => [key(event), event]));

    for (const reader of [store, new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES, cachedStreams: 1 })]) {
      const all = await reader.readAll();
      expect(all).to.have.length(6);
      for (const event of all) expect(event).to.deep.equal(expected.get(key(event)));
      const paged = [...(await reader.readAll({ maxCount: 3 })), ...(await reader.readAll({ after: all[2]!.position }))];
      expect(paged).to.deep.equal(all);
    }

    const received: RecordedEvent[] = [];
    const subscription = store.subscribeToAll({ after: null, maxBatchSize: 2, handle: async (batch) => void received.push(...batch) });
    await eventually(() => received.length === 6);
    await subscription.stop();
    for (const event of received) expect(event).to.deep.equal(expected.get(key(event)));
  });

  it('upcasts another log source (the EventStoreDB fan-out source) the same way', async () => {
    await writeLegacyLog();
    const received: RecordedEvent[] = [];
    const source = upcastingSource(raw, store);
    const subscription = source.subscribeToAll({ after: null, handle: async (batch) => void received.push(...batch) });
    await eventually(() => received.length === 6);
    await subscription.stop();
    expect(received.map((event) => event.version?.stored)).to.deep.equal([1, 1, 1, 1, 1, 1]);
    expect(dealOf(received[3]!).contact!.name).to.equal('Ada L');
  });

  it('keeps what else the wrapped source offers (the fan-out group check), bound to the source', async () => {
    const prepared: (string | null)[] = [];
    const raw = {
      group: 'chronicle-webhooks',
      subscribeToAll: (options: Parameters<EventStore['subscribeToAll']>[0]) => store.subscribeToAll(options),
      async prepare(after: string | null) {
        prepared.push(after, this.group);
      },
    };
    const source = upcastingSource(raw, store);
    await source.prepare('41');
    expect(prepared).to.deep.equal(['41', 'chronicle-webhooks']);
    expect(source.group).to.equal('chronicle-webhooks');
  });

  it('passes events stored in a version the current one reads as it is through as stored, recorded or not', async () => {
    await store.append(contactStream(contactId), [contactCreated(contactId, CO, 'Ada')], 'no_stream');
    // As 22653f6 wrote it: the version 2 shape, no version recorded. Its snapshot is taken as stored, not recomputed.
    const v2 = contactUpdatedV1(contactId, CO, { name: 'B' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z');
    const snapshot = {
      id: contactId,
      name: 'B (as stored)',
      firstName: null,
      lastName: null,
      phoneNumber: '+441000',
      email: 'ada@example.com',
      position: null,
      currentCompany: null,
      industrySector: null,
      city: null,
      country: null,
      tags: ['vip'],
      createdAt: '2026-01-01T10:00:00.000Z',
      updatedAt: '2026-01-01T10:05:00.000Z',
    };
    await raw.append(contactStream(contactId), [{ ...v2, data: { ...(v2.data as object), contact: snapshot } }], 0);
    const [, updated] = await store.readStream(contactStream(contactId));
    expect(updated!.version).to.deep.equal({ current: 3, stored: 2, recorded: false });
    expect(contactOf(updated!)).to.deep.equal(snapshot);
  });

  describe('an event no codec or upcaster of this release reads', () => {
    const expectNames = (error: unknown, event: { stream: string; type: string; version: number | null }) => {
      expect(error).to.be.instanceOf(UndecodableEventError);
      const undecodable = error as UndecodableEventError;
      expect(undecodable).to.include({ stream: event.stream, type: event.type, version: event.version });
      expect(undecodable.position).to.match(/^\d+$/);
      expect(undecodable.message).to.include(undecodable.position).and.include(event.stream).and.include(event.type);
      return undecodable;
    };
    const rejection = async (promise: Promise<unknown>): Promise<unknown> => promise.then(() => new Error('expected a rejection'), (error: unknown) => error);

    it('stops every read path at a version written by a newer release, naming position, stream, type and version', async () => {
      await raw.append(contactStream(contactId), [contactCreated(contactId, CO, 'Ada')], 'no_stream');
      await raw.append(contactStream(contactId), [storedAs('ContactUpdated', { contactId, anything: 'new' }, CO, 4)], 0);
      const named = { stream: contactStream(contactId), type: 'ContactUpdated', version: 4 };
      const fromStream = expectNames(await rejection(store.readStream(contactStream(contactId))), named);
      expect(fromStream.reason).to.match(/version 4 .* reads versions 1 to 3: .*newer release/);
      expectNames(await rejection(store.readAll()), named);

      // A subscription hands over the events before it, then fails the batch with the error (offered again).
      const received: RecordedEvent[] = [];
      const errors: unknown[] = [];
      const subscription = store.subscribeToAll({
        after: null,
        handle: async (batch) => void received.push(...batch),
        onError: (error) => void errors.push(error),
      });
      await eventually(() => errors.length >= 2);
      await subscription.stop();
      expect(received.map((event) => event.type)[0]).to.equal('ContactCreated');
      expectNames(errors[0], named);
    });

    it('refuses a stored event its own version\'s codec refuses, and one whose upcaster cannot find what it needs', async () => {
      await raw.append('contact-x', [storedAs('ContactUpdated', { contactId: 'x' }, CO, 1)], 'no_stream');
      const refused = expectNames(await rejection(store.readAll()), { stream: 'contact-x', type: 'ContactUpdated', version: 1 });
      expect(refused.reason).to.match(/version 1 of ContactUpdated refuses it: .*companyId/);

      await raw.append('contact-y', [contactUpdatedV1('y', CO, { name: 'B' }, { name: 'A' }, '2026-01-01T00:00:00.000Z')], 'no_stream');
      const orphan = expectNames(await rejection(store.readStream('contact-y')), { stream: 'contact-y', type: 'ContactUpdated', version: 1 });
      expect(orphan.reason).to.match(/no upcaster reads it: version 1 → 2: no ContactCreated/);
    });

    it('refuses a current-version event its codec refuses, and a version that is not one', async () => {
      await raw.append('contact-z', [storedAs('ContactCreated', { contactId: 'z' }, CO)], 'no_stream');
      expectNames(await rejection(store.readStream('contact-z')), { stream: 'contact-z', type: 'ContactCreated', version: 1 });
      await raw.append('contact-w', [storedAs('ContactCreated', { contactId: 'w' }, CO, 0)], 'no_stream');
      expectNames(await rejection(store.readStream('contact-w')), { stream: 'contact-w', type: 'ContactCreated', version: null });
    });

    it('reads the log up to it: an earlier event that needs its stream (or another) is not held up by it', async () => {
      await writeLegacyLog();
      const { position } = await raw.append(contactStream(contactId), [storedAs('ContactUpdated', { contactId }, CO, 4)], 'any');
      for (const reader of [store, new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES })]) {
        const { events, failure } = await reader.upcaster.upcastLog(await raw.readAll());
        expect(events).to.have.length(6);
        expect(dealOf(events[5]!).contact!.email).to.equal('countess@example.com');
        expect(failure).to.include({ position, version: 4 });
      }
    });

    it('names, for a later event that needs an unreadable earlier one, the later event with the earlier as the reason', async () => {
      await raw.append(contactStream(contactId), [contactCreated(contactId, CO, 'Ada')], 'no_stream');
      await raw.append(contactStream(contactId), [storedAs('ContactUpdated', { contactId }, CO, 1)], 0);
      const later = contactUpdatedV1(contactId, CO, { name: 'B' }, { name: 'Ada' }, '2026-01-01T10:05:00.000Z');
      await raw.append(contactStream(contactId), [later], 1);
      const [, , third] = await raw.readAll();
      const error = await store.upcaster.upcastLog([third!]);
      expect(error.failure!.eventId).to.equal(later.id);
      expect(error.failure!.reason).to.match(/it needs event .* which cannot be read/);
    });
  });
});

describe('Upcasters (pure)', () => {
  const contactState = contactDecider.evolve(contactDecider.initialState, {
    type: 'ContactCreated',
    data: { contactId: 'c-1', companyId: CO, name: 'Ada', phoneNumber: '+441000', tags: [], createdAt: '2026-01-01T10:00:00.000Z' },
  });
  const v1 = (data: Record<string, unknown>) => decoded<ContactUpdatedV1>(ContactUpdatedV1, { type: 'ContactUpdated', data });

  it('ContactUpdated v1 → v2 adds the contact after the change; Left without a contact before it', () => {
    const event = v1({ contactId: 'c-1', companyId: CO, changes: { city: 'London' }, previous: { city: null }, updatedAt: '2026-01-02T00:00:00.000Z' });
    const upcast = right(upcastContactUpdatedV1(event, contactState));
    expect(upcast.data).to.deep.include({ changes: { city: 'London' }, previous: { city: null } });
    expect(upcast.data.contact).to.include({ id: 'c-1', name: 'Ada', city: 'London', updatedAt: '2026-01-02T00:00:00.000Z', createdAt: '2026-01-01T10:00:00.000Z' });
    expect(ContactUpdated.is(upcast)).to.equal(true);
    expect(E.isLeft(upcastContactUpdatedV1(event, contactDecider.initialState))).to.equal(true);
    expect(E.isLeft(upcastContactUpdatedV1({ ...event, data: { ...event.data, contactId: 'other' } }, contactState))).to.equal(true);
  });

  const summary = { id: 'c-1', name: 'Ada', email: null, phoneNumber: '+441000', currentCompany: null };
  const dealState = dealDecider.evolve(dealDecider.initialState, {
    type: 'DealCreated',
    data: {
      dealId: 'd-1',
      companyId: CO,
      title: 'Engine',
      description: null,
      value: 100,
      currency: 'EUR',
      stage: 'lead',
      priority: 'high',
      probability: 20,
      expectedCloseDate: null,
      source: null,
      contact: summary,
      assignedTo: null,
      createdAt: '2026-01-01T11:00:00.000Z',
    },
  });
  const moved = decoded<DealStatusChangedV1>(DealStatusChangedV1, {
    type: 'DealStatusChanged',
    data: {
      dealId: 'd-1',
      companyId: CO,
      status: { from: 'open', to: 'lost' },
      stage: { from: 'lead', to: null },
      actualCloseDate: '2026-01-05T00:00:00.000Z',
      updatedAt: '2026-01-05T00:00:00.000Z',
    },
  });

  it('DealStatusChanged v1 → v2 adds the deal after the moves, embedding the contact as it was then', () => {
    const then = { ...summary, name: 'Ada L', email: 'ada@example.com' };
    const upcast = right(upcastDealStatusChangedV1(moved, dealState, then));
    expect(DealStatusChanged.is(upcast)).to.equal(true);
    expect(upcast.data.status).to.deep.equal({ from: 'open', to: 'lost' });
    expect(upcast.data.deal).to.include({ id: 'd-1', status: 'lost', stage: null, priority: 'high', probability: 20, actualCloseDate: '2026-01-05T00:00:00.000Z', updatedAt: '2026-01-05T00:00:00.000Z', createdAt: '2026-01-01T11:00:00.000Z' });
    expect(upcast.data.deal.contact).to.deep.equal(then);
  });

  it('DealStatusChanged v1 → v2 keeps the deal\'s own summary when the contact then is unknown or another; Left without a deal', () => {
    expect(right(upcastDealStatusChangedV1(moved, dealState, null)).data.deal.contact).to.deep.equal(summary);
    expect(right(upcastDealStatusChangedV1(moved, dealState, { ...summary, id: 'c-2' })).data.deal.contact).to.deep.equal(summary);
    expect(E.isLeft(upcastDealStatusChangedV1(moved, dealDecider.initialState, null))).to.equal(true);
  });
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../../src/application/commands/CommandDeps.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { updateContact } from '../../../src/features/contacts/application/updateContact.js';
import { deleteContact, restoreContact } from '../../../src/features/contacts/application/deleteAndRestoreContact.js';
import type { ContactWriteError } from '../../../src/features/contacts/application/ContactWriteError.js';
import type { EventStore, EventToAppend, StreamAppend } from '../../../src/application/ports/EventStore.js';
import type { CreateContactFields, UpdateContactFields } from '../../../src/features/contacts/domain/contactInput.js';
import { RESERVATION_GRACE_PERIOD_MS } from '../../../src/features/contacts/domain/phoneReservationDecider.js';
import { phoneReservationStream } from '../../../src/features/contacts/domain/phoneReservationEvents.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';
import { eventually } from '../../support/events.js';
import { StoreUnavailableError } from '../../../src/application/ports/StoreUnavailableError.js';

const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1', keyId: 'key-1' };
const T0 = Date.parse('2024-05-01T10:00:00.000Z');

/**
 * The store as seen by the commands, with appends refused by `refuse` (an error to
 * reject with, or null to let it through): one stream at a time, or several
 * together where the store offers it and `oneStreamAtATime` is false.
 */
const storeSeenAs = (
  store: EventStore,
  options: { oneStreamAtATime: boolean; refuse?: (stream: string, events: readonly EventToAppend[]) => Error | null },
): EventStore => {
  const refusal = (appends: readonly StreamAppend[]): Error | null => {
    for (const { stream, events } of appends) {
      const error = options.refuse?.(stream, events) ?? null;
      if (error) return error;
    }
    return null;
  };
  const together = options.oneStreamAtATime ? undefined : store.appendToStreams?.bind(store);
  return {
    kind: store.kind,
    append: (stream, events, expected) => {
      const error = refusal([{ stream, events, expected }]);
      return error ? Promise.reject(error) : store.append(stream, events, expected);
    },
    ...(together
      ? {
          appendToStreams: (appends: readonly StreamAppend[]) => {
            const error = refusal(appends);
            return error ? Promise.reject(error) : together(appends);
          },
        }
      : {}),
    readStream: (stream, options) => store.readStream(stream, options),
    readAll: (options) => store.readAll(options),
    headPosition: () => store.headPosition(),
    subscribeToAll: (options) => store.subscribeToAll(options),
    close: () => store.close(),
  };
};

/**
 * Run twice: with a contact's event and its number's reservations appended together (SQLite's
 * `appendToStreams`), and one stream at a time, as on EventStoreDB, which has no
 * multi-stream append.
 */
const contactServiceSuite = (mode: 'atomic writes' | 'one stream at a time'): void => {
  describe(`contact service (on the embedded event store, ${mode})`, () => {
    const oneStreamAtATime = mode === 'one stream at a time';
    let dir: ReturnType<typeof tempDir>;
    let store: SqliteEventStore;
    let now: number;
    let deps: CommandDeps;
    const seenAs = (refuse?: (stream: string, events: readonly EventToAppend[]) => Error | null): EventStore =>
      storeSeenAs(store, { oneStreamAtATime, ...(refuse ? { refuse } : {}) });

    beforeEach(() => {
      dir = tempDir('chronicle-contacts-');
      store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      now = T0;
      deps = { eventStore: seenAs(), newId, clock: { now: () => new Date(now) } };
    });
    afterEach(async () => {
      await store.close();
      dir.dispose();
    });

    const create = (fields: CreateContactFields, companyId = 'co-1', on: CommandDeps = deps) =>
      createContact(on, { companyId, fields, metadata: { ...metadata, companyId } });
    const update = (contactId: string, changes: UpdateContactFields, companyId = 'co-1', on: CommandDeps = deps) =>
      updateContact(on, { companyId, contactId, changes, metadata: { ...metadata, companyId } });

    const created = async (fields: CreateContactFields, companyId = 'co-1') => {
      const result = await create(fields, companyId);
      if (E.isLeft(result)) return expect.fail(`expected a contact, got ${JSON.stringify(result.left)}`);
      return result.right;
    };
    const failure = <A>(result: E.Either<ContactWriteError, A>): ContactWriteError => {
      if (E.isRight(result)) return expect.fail(`expected an error, got ${JSON.stringify(result.right)}`);
      return result.left;
    };
    const eventsOfType = async (type: string) => (await store.readAll()).filter((e) => e.type === type);

    describe('given no contacts', () => {
      it('creates a contact and returns its view and the position of its event', async () => {
        const { contact, position } = await created({
          name: 'Ada Lovelace',
          phoneNumber: '+442079460000',
          email: 'ada@example.org',
          firstName: null,
          tags: ['vip'],
        });
        expect(contact).to.deep.equal({
          id: contact.id,
          name: 'Ada Lovelace',
          firstName: null,
          lastName: null,
          phoneNumber: '+442079460000',
          email: 'ada@example.org',
          position: null,
          currentCompany: null,
          industrySector: null,
          city: null,
          country: null,
          tags: ['vip'],
          createdAt: '2024-05-01T10:00:00.000Z',
          updatedAt: '2024-05-01T10:00:00.000Z',
        });
        const [event] = await store.readStream(`contact-${contact.id}`);
        expect(event).to.include({ type: 'ContactCreated', position, revision: 0 });
        expect(event!.metadata).to.deep.equal(metadata);
        const [reservation] = await store.readStream(phoneReservationStream('co-1', '+442079460000'));
        expect(reservation).to.deep.include({
          type: 'PhoneNumberReserved',
          data: { companyId: 'co-1', contactId: contact.id, at: '2024-05-01T10:00:00.000Z' },
        });
      });

      it(
        oneStreamAtATime
          ? 'appends the reservation, then the contact'
          : 'appends the reservation and the contact together, at consecutive positions',
        async () => {
          const { contact, position } = await created({ name: 'Ada', phoneNumber: '+49151000' });
          const [reservation] = await store.readStream(phoneReservationStream('co-1', '+49151000'));
          expect(BigInt(reservation!.position) < BigInt(position)).to.equal(true);
          if (!oneStreamAtATime) expect(BigInt(position) - BigInt(reservation!.position)).to.equal(1n);
          expect(reservation!.data).to.include({ contactId: contact.id });
        },
      );

      it('stores the phone number normalised', async () => {
        const { contact } = await created({ name: 'A', phoneNumber: '0049 151-000' });
        expect(contact.phoneNumber).to.equal('+49151000');
      });

      if (!oneStreamAtATime) {
        it('reads no stream for a number never reserved, and the number’s stream once a create finds it reserved', async () => {
          const read: string[] = [];
          const counting: EventStore = { ...seenAs(), readStream: (stream, options) => (read.push(stream), store.readStream(stream, options)) };
          const on: CommandDeps = { ...deps, eventStore: counting };
          const first = await create({ name: 'Ada', phoneNumber: '+49151000' }, 'co-1', on);
          expect(E.isRight(first)).to.equal(true);
          expect(read).to.deep.equal([]);
          expect(failure(await create({ name: 'Bob', phoneNumber: '+49 151 000' }, 'co-1', on))).to.deep.equal({
            kind: 'DuplicatePhoneNumber',
            existingContactId: E.isRight(first) ? first.right.contact.id : '',
          });
          expect(read).to.deep.equal([phoneReservationStream('co-1', '+49151000')]);
          expect(await eventsOfType('PhoneNumberReserved')).to.have.length(1);
        });
      }

      it('lets exactly one of 20 concurrent creates with one number win; the others name the winner', async () => {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) => create({ name: `Contact ${i}`, phoneNumber: i % 2 ? '+49 151 000' : '0049151000' })),
        );
        const winners = results.filter(E.isRight);
        expect(winners).to.have.length(1);
        const winnerId = winners[0]!.right.contact.id;
        for (const result of results.filter(E.isLeft)) {
          expect(result.left).to.deep.equal({ kind: 'DuplicatePhoneNumber', existingContactId: winnerId });
        }
        expect(await eventsOfType('ContactCreated')).to.have.length(1);
        expect(await eventsOfType('PhoneNumberReserved')).to.have.length(1);
      });
    });

    describe('given a contact with a number', () => {
      let ada: string;
      beforeEach(async () => {
        ada = (await created({ name: 'Ada', phoneNumber: '+49 151 000', city: 'London' })).contact.id;
      });

      describe('deleted', () => {
        const remove = (contactId: string, on: CommandDeps = deps) =>
          deleteContact(on, { companyId: 'co-1', contactId, retentionMs: 86_400_000, metadata });
        const restore = (contactId: string, on: CommandDeps = deps) => restoreContact(on, { companyId: 'co-1', contactId, metadata });
        const reservationEvents = async () => (await store.readStream(phoneReservationStream('co-1', '+49151000'))).map((event) => event.type);

        it('records the delete and releases the number with it, so another contact may take it', async () => {
          const deleted = await remove(ada);
          if (E.isLeft(deleted)) return expect.fail(JSON.stringify(deleted.left));
          expect(deleted.right.deleted).to.deep.equal({
            id: ada,
            deletedAt: '2024-05-01T10:00:00.000Z',
            restorableUntil: '2024-05-02T10:00:00.000Z',
          });
          expect(await reservationEvents()).to.deep.equal(['PhoneNumberReserved', 'PhoneNumberReleased']);
          expect((await created({ name: 'Bob', phoneNumber: '+49151000' })).contact.phoneNumber).to.equal('+49151000');
        });

        it('restores it, reserving its number again', async () => {
          await remove(ada);
          now += 60_000;
          const restored = await restore(ada);
          if (E.isLeft(restored)) return expect.fail(JSON.stringify(restored.left));
          expect(restored.right.contact).to.include({ id: ada, name: 'Ada', city: 'London', updatedAt: '2024-05-01T10:00:00.000Z' });
          expect(await reservationEvents()).to.deep.equal(['PhoneNumberReserved', 'PhoneNumberReleased', 'PhoneNumberReserved']);
          expect(failure(await create({ name: 'Bob', phoneNumber: '+49151000' }))).to.deep.equal({ kind: 'DuplicatePhoneNumber', existingContactId: ada });
        });

        it('refuses the restore while another contact holds the number, naming it, and writes nothing', async () => {
          await remove(ada);
          const bob = (await created({ name: 'Bob', phoneNumber: '+49151000' })).contact.id;
          const before = (await store.readAll()).length;
          expect(failure(await restore(ada))).to.deep.equal({ kind: 'DuplicatePhoneNumber', existingContactId: bob });
          expect((await store.readAll()).length).to.equal(before);
        });

        it('refuses a second delete, and a restore after restorableUntil: not found', async () => {
          await remove(ada);
          expect(failure(await remove(ada))).to.deep.equal({ kind: 'ContactNotFound' });
          now += 86_400_000;
          expect(failure(await restore(ada))).to.deep.equal({ kind: 'ContactNotFound' });
        });

        it('gives the number back when the restore\'s contact event is refused (storage full)', async () => {
          await remove(ada);
          const full = { ...deps, eventStore: seenAs((stream) => (stream.startsWith('contact-') ? new StoreUnavailableError('storage_full', 30) : null)) };
          let refused: unknown = null;
          await restore(ada, full).catch((error: unknown) => (refused = error));
          expect(refused).to.be.instanceOf(StoreUnavailableError);
          // Nothing of the refused restore holds the number: another contact takes it at once.
          expect((await created({ name: 'Bob', phoneNumber: '+49151000' })).contact.phoneNumber).to.equal('+49151000');
        });
      });

      it('refuses the same number written another way: duplicate, naming the contact', async () => {
        expect(failure(await create({ name: 'Bob', phoneNumber: '0049-151-000' }))).to.deep.equal({
          kind: 'DuplicatePhoneNumber',
          existingContactId: ada,
        });
        expect(await eventsOfType('ContactCreated')).to.have.length(1);
      });

      it('still refuses it long after the grace period (the holder has the number)', async () => {
        now += 10 * RESERVATION_GRACE_PERIOD_MS;
        expect(failure(await create({ name: 'Bob', phoneNumber: '+49151000' }))).to.deep.equal({
          kind: 'DuplicatePhoneNumber',
          existingContactId: ada,
        });
      });

      it('accepts the same number in another company', async () => {
        const { contact } = await created({ name: 'Bob', phoneNumber: '+49151000' }, 'co-2');
        expect(contact.phoneNumber).to.equal('+49151000');
      });

      it('updates fields, keeps createdAt and moves updatedAt', async () => {
        now += 60_000;
        const result = await update(ada, { name: 'Ada King', city: null, tags: ['a'] });
        if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
        expect(result.right.contact).to.include({
          name: 'Ada King',
          city: null,
          createdAt: '2024-05-01T10:00:00.000Z',
          updatedAt: '2024-05-01T10:01:00.000Z',
        });
        expect(result.right.contact.tags).to.deep.equal(['a']);
        const [, event] = await store.readStream(`contact-${ada}`);
        expect(event).to.deep.include({
          type: 'ContactUpdated',
          position: result.right.position,
          data: {
            contactId: ada,
            companyId: 'co-1',
            changes: { name: 'Ada King', city: null, tags: ['a'] },
            previous: { name: 'Ada', city: 'London', tags: [] },
            updatedAt: '2024-05-01T10:01:00.000Z',
            contact: result.right.contact,
          },
        });
      });

      it('appends nothing for an update that changes nothing, and keeps updatedAt', async () => {
        const before = (await store.readAll()).length;
        now += 60_000;
        const result = await update(ada, { name: 'Ada', phoneNumber: '0049 151 000', city: 'London' });
        if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
        expect(result.right.position).to.equal(null);
        expect(result.right.contact.updatedAt).to.equal('2024-05-01T10:00:00.000Z');
        expect(await store.readAll()).to.have.length(before);
      });

      it('moves the contact to a new number: the new one is taken, the old one free for another contact', async () => {
        const result = await update(ada, { phoneNumber: '+33 1 23 45' });
        if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
        expect(result.right.contact.phoneNumber).to.equal('+3312345');
        const [released] = await eventsOfType('PhoneNumberReleased');
        expect(released).to.deep.include({ stream: phoneReservationStream('co-1', '+49151000'), data: { contactId: ada, at: '2024-05-01T10:00:00.000Z' } });
        expect(result.right.position).to.equal(released!.position);
        if (!oneStreamAtATime) {
          // One append, one commit: the reservation, the contact's event and the release, in that order.
          const [, , reserved, updated, release] = await store.readAll();
          expect([reserved, updated, release].map((e) => e!.type)).to.deep.equal(['PhoneNumberReserved', 'ContactUpdated', 'PhoneNumberReleased']);
          expect([updated, release].map((e) => Number(e!.position) - Number(reserved!.position))).to.deep.equal([1, 2]);
          expect(new Set([reserved, updated, release].map((e) => e!.recordedAt)).size).to.equal(1);
        }

        expect(failure(await create({ name: 'Bob', phoneNumber: '+3312345' }))).to.deep.equal({
          kind: 'DuplicatePhoneNumber',
          existingContactId: ada,
        });
        const bob = await created({ name: 'Bob', phoneNumber: '+49151000' });
        expect(bob.contact.phoneNumber).to.equal('+49151000');
      });

      it('refuses another company: not found, and appends nothing', async () => {
        const before = (await store.readAll()).length;
        expect(failure(await update(ada, { name: 'Mallory' }, 'co-2'))).to.deep.equal({ kind: 'ContactNotFound' });
        expect(failure(await update(ada, { phoneNumber: '+999999' }, 'co-2'))).to.deep.equal({ kind: 'ContactNotFound' });
        expect(await store.readAll()).to.have.length(before);
      });

      it('refuses an unknown id: not found', async () => {
        expect(failure(await update(newId(), { name: 'Nobody' }))).to.deep.equal({ kind: 'ContactNotFound' });
      });

      describe('and another contact with another number', () => {
        let bob: string;
        beforeEach(async () => {
          bob = (await created({ name: 'Bob', phoneNumber: '+44 1234' })).contact.id;
        });

        it('refuses to move it to the number of the first: duplicate, and changes nothing', async () => {
          expect(failure(await update(bob, { phoneNumber: '0049151000', name: 'Robert' }))).to.deep.equal({
            kind: 'DuplicatePhoneNumber',
            existingContactId: ada,
          });
          expect(await store.readStream(`contact-${bob}`)).to.have.length(1);
        });

        it('lets exactly one of concurrent updates moving two contacts to one free number win', async () => {
          const results = await Promise.all([update(ada, { phoneNumber: '+7000' }), update(bob, { phoneNumber: '+7000' })]);
          const winners = results.filter(E.isRight);
          expect(winners).to.have.length(1);
          const winner = winners[0]!.right.contact.id;
          expect(results.filter(E.isLeft).map((r) => r.left)).to.deep.equal([{ kind: 'DuplicatePhoneNumber', existingContactId: winner }]);
          const reservations = (await store.readStream(phoneReservationStream('co-1', '+7000'))).filter((e) => e.type === 'PhoneNumberReserved');
          expect(reservations.map((e) => (e.data as { contactId: string }).contactId)).to.deep.equal([winner]);
        });

        it('lets them swap numbers one after the other', async () => {
          const toSpare = await update(ada, { phoneNumber: '+1000' });
          const bobToAda = await update(bob, { phoneNumber: '+49151000' });
          const adaToBob = await update(ada, { phoneNumber: '+441234' });
          expect([toSpare, bobToAda, adaToBob].every(E.isRight)).to.equal(true);
          expect(failure(await create({ name: 'Eve', phoneNumber: '+441234' }))).to.deep.equal({
            kind: 'DuplicatePhoneNumber',
            existingContactId: ada,
          });
          expect(E.isRight(await create({ name: 'Eve', phoneNumber: '+1000' }))).to.equal(true);
        });
      });
    });

    describe('given a contact whose person was erased (its events read with their personal fields null)', () => {
      const erasedId = 'c-erased';
      beforeEach(async () => {
        const data = { contactId: erasedId, companyId: 'co-1', name: null, phoneNumber: null, email: null, tags: null, createdAt: '2024-05-01T09:00:00.000Z' };
        await store.append(`contact-${erasedId}`, [{ id: newId(), type: 'ContactCreated', data, metadata }], 'no_stream');
      });
      const writesNothing = async (write: () => Promise<E.Either<ContactWriteError, unknown>>) => {
        const before = (await store.readAll()).length;
        expect(failure(await write())).to.deep.equal({ kind: 'ContactNotFound' });
        expect(await store.readAll()).to.have.length(before);
      };

      it('refuses an update, a delete and a restore: not found (the API shows no such contact), and writes nothing', async () => {
        await writesNothing(() => update(erasedId, { name: 'Someone', phoneNumber: '+49151777' }));
        await writesNothing(() => deleteContact(deps, { companyId: 'co-1', contactId: erasedId, retentionMs: 86_400_000, metadata }));
        const deleted = { contactId: erasedId, companyId: 'co-1', deletedAt: '2024-05-01T09:30:00.000Z', restorableUntil: '2024-05-02T09:30:00.000Z' };
        await store.append(`contact-${erasedId}`, [{ id: newId(), type: 'ContactDeleted', data: deleted, metadata }], 0);
        await writesNothing(() => restoreContact(deps, { companyId: 'co-1', contactId: erasedId, metadata }));
      });
    });

    describe('given a reservation left by a create that crashed before its contact event', () => {
      const ghost = '0190a4b2-7c1e-7000-8000-00000000dead';
      beforeEach(async () => {
        await store.append(
          phoneReservationStream('co-1', '+49151000'),
          [
            {
              id: newId(),
              type: 'PhoneNumberReserved',
              data: { companyId: 'co-1', contactId: ghost, at: new Date(T0).toISOString() },
              metadata,
            },
          ],
          'no_stream',
        );
      });

      it('counts it within the grace period (the create may still be in flight)', async () => {
        now += RESERVATION_GRACE_PERIOD_MS - 1;
        expect(failure(await create({ name: 'Ada', phoneNumber: '+49151000' }))).to.deep.equal({
          kind: 'DuplicatePhoneNumber',
          existingContactId: ghost,
        });
      });

      it('takes it over once the grace period has passed', async () => {
        now += RESERVATION_GRACE_PERIOD_MS + 1;
        const { contact } = await created({ name: 'Ada', phoneNumber: '+49 151 000' });
        const stream = await store.readStream(phoneReservationStream('co-1', '+49151000'));
        expect(stream.map((e) => e.data)).to.deep.equal([
          { companyId: 'co-1', contactId: ghost, at: new Date(T0).toISOString() },
          {
            companyId: 'co-1',
            contactId: contact.id,
            at: new Date(now).toISOString(),
            takenOverFrom: ghost,
          },
        ]);
      });

      it('lets exactly one of concurrent creates take it over', async () => {
        now += RESERVATION_GRACE_PERIOD_MS + 1;
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => create({ name: `C${i}`, phoneNumber: '+49151000' })));
        const winners = results.filter(E.isRight);
        expect(winners).to.have.length(1);
        for (const result of results.filter(E.isLeft)) {
          expect(result.left).to.deep.equal({ kind: 'DuplicatePhoneNumber', existingContactId: winners[0]!.right.contact.id });
        }
      });

      it('lets an update take it over too', async () => {
        const bob = (await created({ name: 'Bob', phoneNumber: '+441234' })).contact.id;
        now += RESERVATION_GRACE_PERIOD_MS;
        const result = await update(bob, { phoneNumber: '+49151000' });
        expect(E.isRight(result) && result.right.contact.phoneNumber).to.equal('+49151000');
      });
    });

    describe('given a release that fails after the contact moved to a new number', () => {
      /** The store refuses to append any PhoneNumberReleased, as if the process died before it. */
      const noReleases = (): EventStore =>
        seenAs((_stream, events) => (events.some((e) => e.type === 'PhoneNumberReleased') ? new Error('crash') : null));

      if (!oneStreamAtATime) {
        it('stores none of the move: the release is in the same append as the reservation and the contact', async () => {
          const ada = (await created({ name: 'Ada', phoneNumber: '+49151000' })).contact.id;
          const before = (await store.readAll()).length;
          const failed = await update(ada, { phoneNumber: '+3312345' }, 'co-1', { ...deps, eventStore: noReleases() }).then(
            () => null,
            (error: unknown) => error,
          );
          expect(failed).to.be.instanceOf(Error).with.property('message', 'crash');
          expect(await store.readAll()).to.have.length(before);
          const bob = await created({ name: 'Bob', phoneNumber: '+3312345' });
          expect(bob.contact.phoneNumber).to.equal('+3312345');
        });
        return;
      }

      it('still answers with the updated contact, and the old number is free after the grace period', async () => {
        const ada = (await created({ name: 'Ada', phoneNumber: '+49151000' })).contact.id;
        const result = await update(ada, { phoneNumber: '+3312345' }, 'co-1', { ...deps, eventStore: noReleases() });
        if (E.isLeft(result)) return expect.fail(JSON.stringify(result.left));
        const [, contactEvent] = await store.readStream(`contact-${ada}`);
        expect(result.right.position).to.equal(contactEvent!.position);
        expect(await eventsOfType('PhoneNumberReleased')).to.have.length(0);

        now += RESERVATION_GRACE_PERIOD_MS;
        const bob = await created({ name: 'Bob', phoneNumber: '+49151000' });
        expect(bob.contact.phoneNumber).to.equal('+49151000');
      });
    });

    describe('given a store that refuses the contact event (storage full)', () => {
      /** Refuses appends to contact streams while `full`, and PhoneNumberReleased while `releasesFull`. */
      let full = true;
      let releasesFull = false;
      const fullStore = (): EventStore =>
        seenAs((stream, events) =>
          (full && stream.startsWith('contact-')) || (releasesFull && events.some((e) => e.type === 'PhoneNumberReleased'))
            ? new StoreUnavailableError('storage_full', 30)
            : null,
        );
      beforeEach(() => {
        full = true;
        releasesFull = false;
      });

      if (oneStreamAtATime) {
        it('gives the number back, so the same create succeeds as soon as the store takes writes again', async () => {
          const failed = await create({ name: 'Ada', phoneNumber: '+49151000' }, 'co-1', { ...deps, eventStore: fullStore() }).then(
            () => null,
            (error: unknown) => error,
          );
          expect(failed).to.be.instanceOf(StoreUnavailableError);
          expect((await eventsOfType('PhoneNumberReserved')).length).to.equal(1);
          expect((await eventsOfType('PhoneNumberReleased')).length).to.equal(1);
          full = false;
          const ada = await created({ name: 'Ada', phoneNumber: '+49151000' });
          expect(ada.contact.phoneNumber).to.equal('+49151000');
        });

        it('keeps offering the number back while the release is refused too, and succeeds once the store takes writes', async () => {
          releasesFull = true;
          const on = { ...deps, eventStore: fullStore() };
          await create({ name: 'Ada', phoneNumber: '+49151000' }, 'co-1', on).catch(() => undefined);
          expect(await eventsOfType('PhoneNumberReleased')).to.have.length(0);
          full = false;
          releasesFull = false;
          await eventually(async () => (await eventsOfType('PhoneNumberReleased')).length === 1, 5000, 20);
          const ada = await created({ name: 'Ada', phoneNumber: '+49151000' });
          expect(ada.contact.phoneNumber).to.equal('+49151000');
        });
      } else {
        it('stores neither the reservation nor the contact, so the same create succeeds as soon as the store takes writes again', async () => {
          const failed = await create({ name: 'Ada', phoneNumber: '+49151000' }, 'co-1', { ...deps, eventStore: fullStore() }).then(
            () => null,
            (error: unknown) => error,
          );
          expect(failed).to.be.instanceOf(StoreUnavailableError);
          expect(await store.readAll()).to.deep.equal([]);
          full = false;
          const ada = await created({ name: 'Ada', phoneNumber: '+49151000' });
          expect(ada.contact.phoneNumber).to.equal('+49151000');
        });
      }

      it('gives back the new number of an update whose contact event is refused', async () => {
        const ada = (await created({ name: 'Ada', phoneNumber: '+49151000' })).contact.id;
        const failed = await update(ada, { phoneNumber: '+3312345' }, 'co-1', { ...deps, eventStore: fullStore() }).then(
          () => null,
          (error: unknown) => error,
        );
        expect(failed).to.be.instanceOf(StoreUnavailableError);
        full = false;
        const bob = await created({ name: 'Bob', phoneNumber: '+3312345' });
        expect(bob.contact.phoneNumber).to.equal('+3312345');
      });
    });
  });
};

contactServiceSuite('atomic writes');
contactServiceSuite('one stream at a time');

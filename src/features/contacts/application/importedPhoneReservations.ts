import * as E from 'fp-ts/lib/Either.js';
import type { CommandDeps } from '../../../application/commands/CommandDeps.js';
import type { WriteMetadata } from '../../../application/commands/WriteMetadata.js';
import { PHONE_RESERVATION_STREAM_PREFIX } from '../domain/phoneReservationEvents.js';
import { reservePhoneNumber } from './phoneNumberReservations.js';

/** The export's part of the contacts' records (`exportedRecords('contacts', …)`). */
const CONTACTS_PART = 'records/contacts.ndjson';

/**
 * The phone numbers' reservations of an imported company. The export holds the
 * reservation streams under the names the source store gave them (the number
 * hashed under the source's key), which reserve nothing here: the import leaves
 * them out and reserves again, under this store's names, the number of every
 * contact of the records (live contacts: a deleted one's number was freed).
 */
export const importedPhoneReservations = (deps: CommandDeps, metadata: () => WriteMetadata) => ({
  matches: (stream: string): boolean => stream.startsWith(PHONE_RESERVATION_STREAM_PREFIX),
  part: CONTACTS_PART,
  async reclaim(record: unknown, companyId: string, at: Date): Promise<void> {
    const { id, phoneNumber } = (record ?? {}) as { id?: unknown; phoneNumber?: unknown };
    if (typeof id !== 'string' || typeof phoneNumber !== 'string') return;
    const reserved = await reservePhoneNumber(deps, { companyId, phoneNumber, contactId: id, at, metadata: { ...metadata(), companyId } });
    // Two records of one export never share a number (the source reserved each); named without it: a message may reach a log.
    if (E.isLeft(reserved) && reserved.left.holder !== id) throw new Error(`contact ${id}'s phone number is held by contact ${reserved.left.holder} in this store`);
  },
});

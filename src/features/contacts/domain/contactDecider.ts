import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { ContactCommand, CreateContact, DeleteContact, EraseContact, RestoreContact, UpdateContact } from './contactCommands.js';
import type { ContactError } from './contactErrors.js';
import { OPTIONAL_TEXT_FIELDS, type ContactChanges, type ContactEvent } from './contactEvents.js';
import { applyContactUpdated, contactFromCreated, toContactSnapshot, type ContactRecord } from './contactRecord.js';

/**
 * No contact yet; the full contact (including createdAt and updatedAt); a
 * deleted one, kept as it was when deleted so that it can be restored until
 * `restorableUntil`; or an erased one, of which only its company and the time are
 * left. The contact's personal fields are null where its events read as null
 * (its person erased), and stay so.
 */
export type ContactState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly contact: ContactRecord }
  | { readonly status: 'deleted'; readonly contact: ContactRecord; readonly deletedAt: string; readonly restorableUntil: string }
  | { readonly status: 'erased'; readonly contactId: string; readonly companyId: string; readonly erasedAt: string };

/** The company a contact's stream belongs to, or null when it holds no contact. */
export const companyOfContact = (state: ContactState): string | null =>
  state.status === 'none' ? null : state.status === 'erased' ? state.companyId : state.contact.companyId;

const none: ContactState = { status: 'none' };

const sameTags = (a: readonly string[], b: readonly string[] | null): boolean =>
  b !== null && a.length === b.length && a.every((tag, i) => tag === b[i]);

const create = (command: CreateContact, state: ContactState): E.Either<ContactError, readonly ContactEvent[]> => {
  if (state.status !== 'none') return E.left({ kind: 'ContactAlreadyExists', contactId: command.contactId });
  const { fields } = command;
  const optional: { [K in (typeof OPTIONAL_TEXT_FIELDS)[number]]?: string } = {};
  for (const field of OPTIONAL_TEXT_FIELDS) {
    const value = fields[field];
    if (value !== undefined && value !== null) optional[field] = value;
  }
  return E.right([
    {
      type: 'ContactCreated',
      data: {
        contactId: command.contactId,
        companyId: command.companyId,
        name: fields.name,
        phoneNumber: fields.phoneNumber,
        ...optional,
        tags: fields.tags ?? [],
        createdAt: toIsoTimestamp(command.at),
      },
    },
  ]);
};

const update = (command: UpdateContact, state: ContactState): E.Either<ContactError, readonly ContactEvent[]> => {
  if (state.status !== 'active' || state.contact.companyId !== command.companyId) {
    return E.left({ kind: 'ContactNotFound', contactId: command.contactId });
  }
  const current = state.contact;
  const { changes: requested } = command;
  const changes: { -readonly [K in keyof ContactChanges]: ContactChanges[K] } = {};
  const previous: { -readonly [K in keyof ContactChanges]: ContactChanges[K] } = {};
  if (requested.name !== undefined && requested.name !== current.name) {
    changes.name = requested.name;
    previous.name = current.name;
  }
  if (requested.phoneNumber !== undefined && requested.phoneNumber !== current.phoneNumber) {
    changes.phoneNumber = requested.phoneNumber;
    previous.phoneNumber = current.phoneNumber;
  }
  for (const field of OPTIONAL_TEXT_FIELDS) {
    const value = requested[field];
    if (value !== undefined && value !== current[field]) {
      changes[field] = value;
      previous[field] = current[field];
    }
  }
  if (requested.tags !== undefined && !sameTags(requested.tags, current.tags)) {
    changes.tags = requested.tags;
    previous.tags = current.tags && [...current.tags];
  }
  // Values equal to the current ones change nothing: no event, updatedAt stays.
  if (Object.keys(changes).length === 0) return E.right([]);
  const data = { contactId: current.id, companyId: current.companyId, changes, previous, updatedAt: toIsoTimestamp(command.at) };
  // Event-carried state: the whole contact after the change, in the API's shape (a field its state holds null, null).
  const contact = toContactSnapshot(applyContactUpdated(current, { data }));
  return E.right([{ type: 'ContactUpdated', data: { ...data, contact } }]);
};

const remove = (command: DeleteContact, state: ContactState): E.Either<ContactError, readonly ContactEvent[]> => {
  // Deleted already (or never there): not found, as for any other write.
  if (state.status !== 'active' || state.contact.companyId !== command.companyId) {
    return E.left({ kind: 'ContactNotFound', contactId: command.contactId });
  }
  const data = {
    contactId: state.contact.id,
    companyId: state.contact.companyId,
    deletedAt: toIsoTimestamp(command.at),
    restorableUntil: toIsoTimestamp(command.restorableUntil),
  };
  return E.right([{ type: 'ContactDeleted', data }]);
};

/**
 * A deleted contact comes back as it was, while `at` is before its
 * `restorableUntil`; after that it is gone for good (not found). Restoring one
 * that is not deleted changes nothing, so a restore sent twice answers the same.
 */
const restore = (command: RestoreContact, state: ContactState): E.Either<ContactError, readonly ContactEvent[]> => {
  // Erased: gone for good, as an expired one.
  if (state.status === 'none' || state.status === 'erased' || state.contact.companyId !== command.companyId) {
    return E.left({ kind: 'ContactNotFound', contactId: command.contactId });
  }
  if (state.status === 'active') return E.right([]);
  if (!(command.at.getTime() < Date.parse(state.restorableUntil))) return E.left({ kind: 'ContactNotFound', contactId: command.contactId });
  const { contact } = state;
  return E.right([
    {
      type: 'ContactRestored',
      data: { contactId: contact.id, companyId: contact.companyId, restoredAt: toIsoTimestamp(command.at), contact: toContactSnapshot(contact) },
    },
  ]);
};

/**
 * A contact, deleted or not, is erased; one erased already stays as it is (an
 * erase sent again answers the same). Another company's, or none: not found.
 */
const erase = (command: EraseContact, state: ContactState): E.Either<ContactError, readonly ContactEvent[]> => {
  if (companyOfContact(state) !== command.companyId) return E.left({ kind: 'ContactNotFound', contactId: command.contactId });
  if (state.status === 'erased') return E.right([]);
  const data = { contactId: command.contactId, companyId: command.companyId, erasedAt: toIsoTimestamp(command.at), reason: command.reason };
  return E.right([{ type: 'ContactErased', data }]);
};

/** The contact aggregate (stream `contact-<id>`). */
export const contactDecider: Decider<ContactCommand, ContactEvent, ContactState, ContactError> = {
  initialState: none,
  decide(command, state) {
    switch (command.type) {
      case 'CreateContact':
        return create(command, state);
      case 'UpdateContact':
        return update(command, state);
      case 'DeleteContact':
        return remove(command, state);
      case 'RestoreContact':
        return restore(command, state);
      case 'EraseContact':
        return erase(command, state);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'ContactCreated':
        return { status: 'active', contact: contactFromCreated(event) };
      case 'ContactUpdated':
        return state.status === 'active' ? { status: 'active', contact: applyContactUpdated(state.contact, event) } : state;
      case 'ContactDeleted':
        return state.status === 'active'
          ? { status: 'deleted', contact: state.contact, deletedAt: event.data.deletedAt, restorableUntil: event.data.restorableUntil }
          : state;
      case 'ContactRestored':
        return state.status === 'deleted' ? { status: 'active', contact: state.contact } : state;
      case 'ContactErased':
        return { status: 'erased', contactId: event.data.contactId, companyId: event.data.companyId, erasedAt: event.data.erasedAt };
      default:
        return assertNever(event);
    }
  },
};

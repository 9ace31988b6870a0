import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import { DEFAULT_CURRENCY } from './currencyCode.js';
import type { ChangeDealStatus, CreateDeal, DealCommand, DeleteDeal, RefreshDealContact, RestoreDeal } from './dealCommands.js';
import type { DealError } from './dealErrors.js';
import type { DealContactView, DealEvent, DealStatusChanged } from './dealEvents.js';
import { DEFAULT_PRIORITY } from './dealInput.js';
import { applyDealStatusChanged, dealFromCreated, type DealRecord } from './dealRecord.js';
import { toDealSnapshot } from './dealView.js';

/**
 * No deal yet; the full deal (including createdAt and updatedAt); or a deleted
 * one, kept as it was when deleted so that it can be restored until
 * `restorableUntil`. Its contact's and user's personal fields are null where its
 * events read as null (the person erased), and the events it decides carry them so.
 */
export type DealState =
  | { readonly status: 'none' }
  | { readonly status: 'active'; readonly deal: DealRecord }
  | { readonly status: 'deleted'; readonly deal: DealRecord; readonly deletedAt: string; readonly restorableUntil: string };

const none: DealState = { status: 'none' };

const create = (command: CreateDeal, state: DealState): E.Either<DealError, readonly DealEvent[]> => {
  if (state.status !== 'none') return E.left({ kind: 'DealAlreadyExists', dealId: command.dealId });
  const { fields } = command;
  return E.right([
    {
      type: 'DealCreated',
      data: {
        dealId: command.dealId,
        companyId: command.companyId,
        title: fields.title,
        description: fields.description ?? null,
        value: fields.value,
        currency: fields.currency ?? DEFAULT_CURRENCY,
        stage: fields.stage ?? null,
        priority: fields.priority ?? DEFAULT_PRIORITY,
        probability: fields.probability ?? null,
        expectedCloseDate: fields.expectedCloseDate ?? null,
        source: fields.source ?? null,
        contact: command.contact,
        assignedTo: command.assignedTo,
        createdAt: toIsoTimestamp(command.at),
      },
    },
  ]);
};

/**
 * Status moves: `open → won | lost`, `won | lost → open` (reopen: the close date
 * is cleared) and `won ↔ lost` (a correction of the outcome, which keeps the date
 * the deal closed). An open deal that becomes won or lost without an
 * `actualCloseDate` in the request closes at the command's time; an
 * `actualCloseDate` alone moves the close date of a won or lost deal; one on a
 * change that leaves the deal open is an error. The stage moves only when sent,
 * the status only when sent. A change that moves nothing emits nothing.
 *
 * The event carries the deal after the change (`deal`), embedding the contact
 * summary the command brings (the contact as it is now) and the assigned user's.
 */
const changeStatus = (command: ChangeDealStatus, state: DealState): E.Either<DealError, readonly DealEvent[]> => {
  if (state.status !== 'active' || state.deal.companyId !== command.companyId) {
    return E.left({ kind: 'DealNotFound', dealId: command.dealId });
  }
  const current = state.deal;
  const { change } = command;
  const to = change.status ?? current.status;
  if (to === 'open' && change.actualCloseDate !== undefined) {
    return E.left({ kind: 'CloseDateOnOpenDeal', dealId: command.dealId });
  }
  const statusMoves = to !== current.status;
  const stageMoves = change.stage !== undefined && change.stage !== current.stage;
  const actualCloseDate =
    to === 'open' ? null : (change.actualCloseDate ?? (current.status === 'open' ? toIsoTimestamp(command.at) : current.actualCloseDate));
  if (!statusMoves && !stageMoves && actualCloseDate === current.actualCloseDate) return E.right([]);

  const moves: { -readonly [K in keyof Moves]: Moves[K] } = {
    dealId: current.id,
    companyId: current.companyId,
    actualCloseDate,
    updatedAt: toIsoTimestamp(command.at),
  };
  if (statusMoves) moves.status = { from: current.status, to };
  if (stageMoves) moves.stage = { from: current.stage, to: change.stage ?? null };
  // Event-carried state: the whole deal after the change, with its contact as of now.
  const after = applyDealStatusChanged(current, { data: moves });
  return E.right([{ type: 'DealStatusChanged', data: { ...moves, deal: toDealSnapshot({ ...after, contact: contactNow(current, command.contact) }) } }]);
};

/** The deal's contact as the command brings it (the contact as it is now), or the one it holds when the command brings another or none. */
const contactNow = (deal: DealRecord, brought: DealContactView | null): DealContactView | null =>
  deal.contact !== null && brought?.id === deal.contact.id ? brought : deal.contact;

const sameSummary = (a: DealContactView, b: DealContactView): boolean =>
  (Object.keys(a) as (keyof DealContactView)[]).every((key) => a[key] === b[key]) &&
  Object.keys(a).length === Object.keys(b).length;

/** A newer summary of the contact the deal embeds: one `DealContactRefreshed`, or nothing when it is the same. */
const refreshContact = (command: RefreshDealContact, state: DealState): E.Either<DealError, readonly DealEvent[]> => {
  if (state.status !== 'active' || state.deal.companyId !== command.companyId) {
    return E.left({ kind: 'DealNotFound', dealId: command.dealId });
  }
  const embedded = state.deal.contact;
  if (embedded === null || embedded.id !== command.contact.id || sameSummary(embedded, command.contact)) return E.right([]);
  return E.right([
    { type: 'DealContactRefreshed', data: { dealId: command.dealId, companyId: command.companyId, contact: command.contact } },
  ]);
};

const remove = (command: DeleteDeal, state: DealState): E.Either<DealError, readonly DealEvent[]> => {
  // Deleted already (or never there): not found, as for any other write.
  if (state.status !== 'active' || state.deal.companyId !== command.companyId) {
    return E.left({ kind: 'DealNotFound', dealId: command.dealId });
  }
  const data = {
    dealId: state.deal.id,
    companyId: state.deal.companyId,
    deletedAt: toIsoTimestamp(command.at),
    restorableUntil: toIsoTimestamp(command.restorableUntil),
  };
  return E.right([{ type: 'DealDeleted', data }]);
};

/**
 * A deleted deal comes back as it was, while `at` is before its
 * `restorableUntil`; after that it is gone for good (not found). The event
 * carries the deal with its contact as the command brings it (the contact as it
 * is now). Restoring one that is not deleted changes nothing, so a restore sent
 * twice answers the same.
 */
const restore = (command: RestoreDeal, state: DealState): E.Either<DealError, readonly DealEvent[]> => {
  if (state.status === 'none' || state.deal.companyId !== command.companyId) {
    return E.left({ kind: 'DealNotFound', dealId: command.dealId });
  }
  if (state.status === 'active') return E.right([]);
  if (!(command.at.getTime() < Date.parse(state.restorableUntil))) return E.left({ kind: 'DealNotFound', dealId: command.dealId });
  const { deal } = state;
  return E.right([
    {
      type: 'DealRestored',
      data: {
        dealId: deal.id,
        companyId: deal.companyId,
        restoredAt: toIsoTimestamp(command.at),
        deal: toDealSnapshot({ ...deal, contact: contactNow(deal, command.contact) }),
      },
    },
  ]);
};

/** What a `DealStatusChanged` records besides its `deal` snapshot. */
type Moves = Omit<DealStatusChanged['data'], 'deal'>;

/** The deal aggregate (stream `deal-<id>`). */
export const dealDecider: Decider<DealCommand, DealEvent, DealState, DealError> = {
  initialState: none,
  decide(command, state) {
    switch (command.type) {
      case 'CreateDeal':
        return create(command, state);
      case 'ChangeDealStatus':
        return changeStatus(command, state);
      case 'RefreshDealContact':
        return refreshContact(command, state);
      case 'DeleteDeal':
        return remove(command, state);
      case 'RestoreDeal':
        return restore(command, state);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'DealCreated':
        return { status: 'active', deal: dealFromCreated(event) };
      case 'DealStatusChanged':
        return state.status === 'active' ? { status: 'active', deal: applyDealStatusChanged(state.deal, event) } : state;
      case 'DealContactRefreshed':
        return state.status === 'active' ? { status: 'active', deal: { ...state.deal, contact: event.data.contact } } : state;
      case 'DealDeleted':
        return state.status === 'active'
          ? { status: 'deleted', deal: state.deal, deletedAt: event.data.deletedAt, restorableUntil: event.data.restorableUntil }
          : state;
      // Back as it was, with the contact summary it was restored with (what a later refresh compares with).
      case 'DealRestored':
        return state.status === 'deleted' ? { status: 'active', deal: { ...state.deal, contact: event.data.deal.contact } } : state;
      default:
        return assertNever(event);
    }
  },
};

import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { CompanyCommand } from './companyCommands.js';
import type { CompanyError } from './companyErrors.js';
import type { CompanyActor, CompanyEvent } from './companyEvents.js';

/** A suspension in force: since when, and why (null once the company's key is destroyed). */
export interface Suspension {
  readonly suspendedAt: string;
  readonly reason: string | null;
}

/** A deletion asked for and waiting: the company is erased once `eraseAfter` has passed. */
export interface WaitingDeletion {
  readonly requestedAt: string;
  readonly eraseAfter: string;
}

/** A deletion in the decider's state: waiting, or its erasure under way since `erasingSince`. */
export interface Deletion extends WaitingDeletion {
  readonly erasingSince: string | null;
}

export type CompanyState =
  | { readonly status: 'none' }
  | {
      readonly status: 'created';
      readonly companyId: string;
      readonly name: string;
      readonly createdAt: string;
      readonly suspension: Suspension | null;
      readonly deletion: Deletion | null;
    }
  | { readonly status: 'erased'; readonly companyId: string; readonly erasedAt: string };

/** The reason a deletion's suspension records (it holds nothing personal, but is sealed as every reason is). */
export const DELETION_SUSPENSION_REASON = 'Deletion requested';

const suspended = (companyId: string, reason: string, at: Date, by: CompanyActor): CompanyEvent => ({
  type: 'CompanySuspended',
  data: { companyId, reason, suspendedAt: toIsoTimestamp(at), by },
});

/**
 * A company: created once; suspended and resumed by the platform; deleted after a
 * waiting period, then erased (final). Suspending a suspended company, or resuming
 * an active one, decides nothing (no event): the caller answers with the state as
 * it is. A deletion suspends the company at once (when it is not suspended
 * already); a resume during the waiting period cancels it; once the erasure has
 * begun, neither can be undone.
 */
export const companyDecider: Decider<CompanyCommand, CompanyEvent, CompanyState, CompanyError> = {
  initialState: { status: 'none' },
  decide(command, state) {
    switch (command.type) {
      case 'CreateCompany':
        if (state.status !== 'none') return E.left({ kind: 'CompanyAlreadyExists', companyId: command.companyId });
        return E.right([
          {
            type: 'CompanyCreated',
            data: { companyId: command.companyId, name: command.name, createdAt: toIsoTimestamp(command.at) },
          },
        ]);
      case 'SuspendCompany':
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.suspension !== null) return E.right([]);
        return E.right([suspended(state.companyId, command.reason, command.at, command.by)]);
      case 'ResumeCompany': {
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        // What an erasure under way forgot cannot come back: the company stays suspended until it is erased.
        if (state.deletion !== null && state.deletion.erasingSince !== null) {
          return E.left({ kind: 'CompanyErasureUnderWay', companyId: command.companyId });
        }
        const at = toIsoTimestamp(command.at);
        const events: CompanyEvent[] = [];
        if (state.suspension !== null) events.push({ type: 'CompanyResumed', data: { companyId: state.companyId, resumedAt: at, by: command.by } });
        // A resume during a deletion's waiting period cancels the deletion.
        if (state.deletion !== null) events.push({ type: 'CompanyDeletionCancelled', data: { companyId: state.companyId, cancelledAt: at } });
        return E.right(events);
      }
      case 'RequestCompanyDeletion':
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.deletion) return E.right([]);
        return E.right([
          // Suspended at once: its keys, console and deliveries stop while the deletion waits.
          ...(state.suspension === null ? [suspended(state.companyId, DELETION_SUSPENSION_REASON, command.at, command.by)] : []),
          {
            type: 'CompanyDeletionRequested',
            data: {
              companyId: command.companyId,
              requestedAt: toIsoTimestamp(command.at),
              eraseAfter: toIsoTimestamp(command.eraseAfter),
              by: command.by,
            },
          },
        ]);
      case 'CancelCompanyDeletion':
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (!state.deletion) return E.right([]);
        // What an erasure under way forgot cannot come back: it is finished, not cancelled.
        if (state.deletion.erasingSince !== null) return E.left({ kind: 'CompanyErasureUnderWay', companyId: command.companyId });
        return E.right([{ type: 'CompanyDeletionCancelled', data: { companyId: command.companyId, cancelledAt: toIsoTimestamp(command.at) } }]);
      case 'StartCompanyErasure':
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (!state.deletion) return E.left({ kind: 'CompanyDeletionNotRequested', companyId: command.companyId });
        // Started already (an erasure cut short): it goes on.
        if (state.deletion.erasingSince !== null) return E.right([]);
        return E.right([{ type: 'CompanyErasureStarted', data: { companyId: command.companyId, startedAt: toIsoTimestamp(command.at) } }]);
      case 'EraseCompany':
        // Erased is final: erasing again records nothing.
        if (state.status === 'erased') return E.right([]);
        if (state.status === 'none') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.deletion?.erasingSince == null) return E.left({ kind: 'CompanyErasureNotStarted', companyId: command.companyId });
        return E.right([{ type: 'CompanyErased', data: { companyId: command.companyId, erasedAt: toIsoTimestamp(command.at), ...command.counts } }]);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CompanyCreated':
        return {
          status: 'created',
          companyId: event.data.companyId,
          name: event.data.name,
          createdAt: event.data.createdAt,
          suspension: null,
          deletion: null,
        };
      case 'CompanySuspended':
        return state.status === 'created' ? { ...state, suspension: { suspendedAt: event.data.suspendedAt, reason: event.data.reason } } : state;
      case 'CompanyResumed':
        return state.status === 'created' ? { ...state, suspension: null } : state;
      case 'CompanyDeletionRequested':
        return state.status === 'created'
          ? { ...state, deletion: { requestedAt: event.data.requestedAt, eraseAfter: event.data.eraseAfter, erasingSince: null } }
          : state;
      case 'CompanyDeletionCancelled':
        return state.status === 'created' ? { ...state, deletion: null } : state;
      case 'CompanyErasureStarted':
        return state.status === 'created' && state.deletion ? { ...state, deletion: { ...state.deletion, erasingSince: event.data.startedAt } } : state;
      case 'CompanyErased':
        return { status: 'erased', companyId: event.data.companyId, erasedAt: event.data.erasedAt };
      default:
        return assertNever(event);
    }
  },
};

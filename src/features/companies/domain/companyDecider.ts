import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { CompanyCommand } from './companyCommands.js';
import type { CompanyError } from './companyErrors.js';
import type { CompanyEvent } from './companyEvents.js';

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
  | { readonly status: 'created'; readonly companyId: string; readonly name: string; readonly deletion: Deletion | null }
  | { readonly status: 'erased'; readonly companyId: string; readonly erasedAt: string };

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
      case 'RequestCompanyDeletion':
        if (state.status !== 'created') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.deletion) return E.right([]);
        return E.right([
          {
            type: 'CompanyDeletionRequested',
            data: {
              companyId: command.companyId,
              requestedAt: toIsoTimestamp(command.at),
              eraseAfter: toIsoTimestamp(command.eraseAfter),
              requestedBy: command.requestedBy,
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
        return { status: 'created', companyId: event.data.companyId, name: event.data.name, deletion: null };
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

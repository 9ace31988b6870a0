import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { CompanyCommand } from './companyCommands.js';
import type { CompanyError } from './companyErrors.js';
import type { CompanyEvent } from './companyEvents.js';

/** A suspension in force: since when, and why (null once the company's key is destroyed). */
export interface Suspension {
  readonly suspendedAt: string;
  readonly reason: string | null;
}

export type CompanyState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly companyId: string; readonly name: string; readonly createdAt: string; readonly suspension: Suspension | null };

/**
 * A company: created once; suspended and resumed by the platform. Suspending a
 * suspended company, or resuming an active one, decides nothing (no event): the
 * caller answers with the state as it is.
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
        if (state.status === 'none') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.suspension !== null) return E.right([]);
        return E.right([
          {
            type: 'CompanySuspended',
            data: { companyId: state.companyId, reason: command.reason, suspendedAt: toIsoTimestamp(command.at), by: command.by },
          },
        ]);
      case 'ResumeCompany':
        if (state.status === 'none') return E.left({ kind: 'CompanyNotFound', companyId: command.companyId });
        if (state.suspension === null) return E.right([]);
        return E.right([{ type: 'CompanyResumed', data: { companyId: state.companyId, resumedAt: toIsoTimestamp(command.at), by: command.by } }]);
      default:
        return assertNever(command);
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'CompanyCreated':
        return { status: 'created', companyId: event.data.companyId, name: event.data.name, createdAt: event.data.createdAt, suspension: null };
      case 'CompanySuspended':
        return state.status === 'created' ? { ...state, suspension: { suspendedAt: event.data.suspendedAt, reason: event.data.reason } } : state;
      case 'CompanyResumed':
        return state.status === 'created' ? { ...state, suspension: null } : state;
      default:
        return assertNever(event);
    }
  },
};

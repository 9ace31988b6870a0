import * as E from 'fp-ts/lib/Either.js';
import { toIsoTimestamp } from '../../../shared/Clock.js';
import { assertNever, type Decider } from '../../../shared/Decider.js';
import type { CompanyCommand } from './companyCommands.js';
import type { CompanyError } from './companyErrors.js';
import type { CompanyEvent } from './companyEvents.js';

export type CompanyState =
  | { readonly status: 'none' }
  | { readonly status: 'created'; readonly companyId: string; readonly name: string };

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
      default:
        return assertNever(command.type);
    }
  },
  evolve(_state, event) {
    switch (event.type) {
      case 'CompanyCreated':
        return { status: 'created', companyId: event.data.companyId, name: event.data.name };
      default:
        return assertNever(event.type);
    }
  },
};

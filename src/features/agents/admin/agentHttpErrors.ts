import { HttpError } from '../../../http/HttpError.js';
import type { KernelFailure } from '../../../http/errorTable.js';
import { companyHttpError } from '../../companies/index.js';
import type { CompanyNotFound } from '../../companies/index.js';
import type { AgentError } from '../domain/agentErrors.js';

/** The spec's error bodies of the agents' refusals on the admin API. */
export const agentHttpError = (failure: CompanyNotFound | Extract<AgentError, { kind: 'AgentNotFound' }> | KernelFailure): HttpError =>
  failure.kind === 'AgentNotFound' ? new HttpError(404, 'Agent not found', 'No agent with this id exists in this company.') : companyHttpError(failure);

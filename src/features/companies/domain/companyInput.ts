import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { validateCreateBody } from '../../../shared/bodyInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { CompanyName } from './CompanyName.js';
import { SuspensionReason } from './SuspensionReason.js';

/** POST /admin/companies: `{name}` (unknown fields ignored). */
export const CreateCompanyBody = t.exact(t.type({ name: CompanyName }));
export type CreateCompanyFields = t.TypeOf<typeof CreateCompanyBody>;

export const validateCreateCompany = (body: unknown): E.Either<InputProblem, CreateCompanyFields> =>
  validateCreateBody(CreateCompanyBody, ['name'], body);

/** POST /admin/companies/:id/suspend: `{reason}` (unknown fields ignored). */
export const SuspendCompanyBody = t.exact(t.type({ reason: SuspensionReason }));
export type SuspendCompanyFields = t.TypeOf<typeof SuspendCompanyBody>;

export const validateSuspendCompany = (body: unknown): E.Either<InputProblem, SuspendCompanyFields> =>
  validateCreateBody(SuspendCompanyBody, ['reason'], body);

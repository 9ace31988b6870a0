import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { validateCreateBody } from '../../../shared/bodyInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { CompanyName } from './CompanyName.js';

/** POST /admin/companies: `{name}` (unknown fields ignored). */
export const CreateCompanyBody = t.exact(t.type({ name: CompanyName }));
export type CreateCompanyFields = t.TypeOf<typeof CreateCompanyBody>;

export const validateCreateCompany = (body: unknown): E.Either<InputProblem, CreateCompanyFields> =>
  validateCreateBody(CreateCompanyBody, ['name'], body);

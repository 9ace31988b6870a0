import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { validateCreateBody } from '../../../shared/bodyInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { Email } from './Email.js';
import { UserName } from './UserName.js';

/** POST /admin/companies/:id/users: `{name, email}` (unknown fields ignored). */
export const CreateUserBody = t.exact(t.type({ name: UserName, email: Email }));
export type CreateUserFields = t.TypeOf<typeof CreateUserBody>;

export const validateCreateUser = (body: unknown): E.Either<InputProblem, CreateUserFields> =>
  validateCreateBody(CreateUserBody, ['name', 'email'], body);

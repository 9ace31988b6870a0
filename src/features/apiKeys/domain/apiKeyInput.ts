import type * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { validateCreateBody } from '../../../shared/bodyInput.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { parseInstant } from '../../../shared/instant.js';
import { EVERY_PERMISSION, ApiKeyType, Permission } from '../../../shared/permissions.js';
import { ApiKeyName } from './ApiKeyName.js';

const KEY_TYPES = Object.keys(ApiKeyType.keys);

const ApiKeyTypeInput = new t.Type<ApiKeyType, string, unknown>(
  'ApiKeyTypeInput',
  ApiKeyType.is,
  (u, c) => (ApiKeyType.is(u) ? t.success(u) : t.failure(u, c, `must be one of ${KEY_TYPES.join(', ')}`)),
  t.identity,
);

/**
 * A non-empty array of permission names, any a key can hold, `contacts:erase`
 * alone or with others (duplicates allowed: the key holds each once).
 */
const PermissionsInput = new t.Type<Permission[], string[], unknown>(
  'PermissionsInput',
  (u): u is Permission[] => Array.isArray(u) && u.every(Permission.is),
  (u, c) =>
    Array.isArray(u) && u.length > 0 && u.every(Permission.is)
      ? t.success([...u])
      : t.failure(u, c, `must be a non-empty array of ${EVERY_PERMISSION.join(', ')}`),
  t.identity,
);

/** When the key stops working: an ISO 8601 date (midnight UTC) or date-time with a zone, canonical; null: never. */
const ExpiresAtInput = new t.Type<string | null, string | null, unknown>(
  'ExpiresAtInput',
  (u): u is string | null => u === null || typeof u === 'string',
  (u, c) => {
    if (u === null) return t.success(null);
    const instant = typeof u === 'string' ? parseInstant(u) : null;
    return instant === null ? t.failure(u, c, 'must be an ISO 8601 date, or a date-time with a zone, or null') : t.success(instant);
  },
  t.identity,
);

/** POST /admin/companies/:id/keys: `{name, type, permissions, expiresAt?}` (unknown fields ignored). */
export const IssueApiKeyBody = t.exact(
  t.intersection([t.type({ name: ApiKeyName, type: ApiKeyTypeInput, permissions: PermissionsInput }), t.partial({ expiresAt: ExpiresAtInput })]),
);
export type IssueApiKeyFields = t.TypeOf<typeof IssueApiKeyBody>;

export const validateIssueApiKey = (body: unknown): E.Either<InputProblem, IssueApiKeyFields> =>
  validateCreateBody(IssueApiKeyBody, ['name', 'type', 'permissions'], body);

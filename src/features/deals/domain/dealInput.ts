import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { optionalText, requiredName } from '../../../shared/textCodecs.js';
import { formatValidationErrors } from '../../../shared/validationReporter.js';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { DEFAULT_CURRENCY, parseCurrencyCode } from './currencyCode.js';
import { DEAL_PRIORITIES, DEAL_STATUSES, type DealPriority, type DealStatus } from './dealEvents.js';
import { parseInstant } from '../../../shared/instant.js';


/**
 * Deal request bodies (POST /deals and PUT /deals/:id/status): io-ts codecs that
 * trim, check the limits and normalise, with one short message per field for
 * the shared reporter.
 *
 * - Strings are trimmed. An optional string that is empty after trimming, or
 *   `null`, means "no value".
 * - `title` is a name: no bidirectional override or isolate, and a visible
 *   character (see nameCharacters).
 * - `value` and `probability` must be JSON numbers: `"100"` is refused, not coerced.
 * - `currency` is upper-cased and must be an ISO 4217 code; `priority` one of
 *   `low`, `medium`, `high`. Absent or null: `EUR` and `medium`.
 * - Dates: an ISO 8601 date (midnight UTC) or a date-time with a zone, stored as
 *   UTC with milliseconds (see `parseInstant`).
 * - Create ignores unknown fields, including `id`, `status`, `actualCloseDate`,
 *   `createdAt` and `updatedAt`: a new deal is the server's, `open`, with no close
 *   date. The status endpoint refuses every field but its three, so that a client
 *   never believes it changed a field that was ignored.
 */

export const MAX_TITLE_LENGTH = 255;
export const MAX_DESCRIPTION_LENGTH = 5000;
export const MAX_STAGE_LENGTH = 100;
export const MAX_SOURCE_LENGTH = 100;
const MAX_ID_LENGTH = 255;
/** Larger values lose cents in a double (2^53 ≈ 9e15); no sale is that big. */
export const MAX_VALUE = 1e15;
export const DEFAULT_PRIORITY: DealPriority = 'medium';

const isString = (u: unknown): u is string => typeof u === 'string';
const isNumber = (u: unknown): u is number => typeof u === 'number' && Number.isFinite(u);

const VALUE_MESSAGE = 'value must be a positive number or zero';

/** A JSON number from 0 to `MAX_VALUE`. */
const ValueInput = new t.Type<number, number, unknown>(
  'value',
  isNumber,
  (u, c) => {
    if (!isNumber(u) || u < 0) return t.failure(u, c, VALUE_MESSAGE);
    if (u > MAX_VALUE) return t.failure(u, c, `${VALUE_MESSAGE}, at most ${MAX_VALUE}`);
    return t.success(u + 0); // -0 → 0
  },
  t.identity,
);

/** A JSON number from 0 to 100 (percent); null → null (none). */
const ProbabilityInput = new t.Type<number | null, number | null, unknown>(
  'probability',
  (u): u is number | null => u === null || isNumber(u),
  (u, c) => {
    if (u === null) return t.success(null);
    return isNumber(u) && u >= 0 && u <= 100 ? t.success(u + 0) : t.failure(u, c, 'probability must be a number from 0 to 100');
  },
  t.identity,
);

const CurrencyInput = new t.Type<string, string, unknown>(
  'currency',
  isString,
  (u, c) => {
    if (u === null || (isString(u) && u.trim() === '')) return t.success(DEFAULT_CURRENCY);
    const code = isString(u) ? parseCurrencyCode(u) : null;
    return code === null ? t.failure(u, c, 'currency must be an ISO 4217 currency code such as EUR or USD') : t.success(code);
  },
  t.identity,
);

/** One of `values`; with `fallback`, null means the fallback. */
const oneOf = <V extends string>(field: string, values: readonly V[], fallback?: V) =>
  new t.Type<V, V, unknown>(
    field,
    (u): u is V => values.includes(u as V),
    (u, c) => {
      if (u === null && fallback !== undefined) return t.success(fallback);
      return values.includes(u as V) ? t.success(u as V) : t.failure(u, c, `${field} must be one of ${values.join(', ')}`);
    },
    t.identity,
  );

const INSTANT_MESSAGE = 'must be an ISO 8601 date (YYYY-MM-DD) or date-time with a zone (Z or ±hh:mm)';

/** An ISO 8601 date or date-time with a zone, decoded to UTC with milliseconds. */
const instantInput = (field: string) =>
  new t.Type<string, string, unknown>(
    field,
    isString,
    (u, c) => {
      const instant = isString(u) ? parseInstant(u) : null;
      return instant === null ? t.failure(u, c, `${field} ${INSTANT_MESSAGE}`) : t.success(instant);
    },
    t.identity,
  );

/** The same, optional: null or empty → null (no value). */
const optionalInstantInput = (field: string) => {
  const instant = instantInput(field);
  return new t.Type<string | null, string | null, unknown>(
    field,
    (u): u is string | null => u === null || isString(u),
    (u, c) => (u === null || (isString(u) && u.trim() === '') ? t.success(null) : instant.validate(u, c)),
    t.identity,
  );
};

/** POST /deals body (unknown fields stripped). */
export const CreateDealBody = t.exact(
  t.intersection([
    t.type({
      title: requiredName('title', MAX_TITLE_LENGTH),
      value: ValueInput,
    }),
    t.partial({
      description: optionalText('description', MAX_DESCRIPTION_LENGTH),
      currency: CurrencyInput,
      stage: optionalText('stage', MAX_STAGE_LENGTH),
      priority: oneOf('priority', DEAL_PRIORITIES, DEFAULT_PRIORITY),
      probability: ProbabilityInput,
      expectedCloseDate: optionalInstantInput('expectedCloseDate'),
      source: optionalText('source', MAX_SOURCE_LENGTH),
      contactId: optionalText('contactId', MAX_ID_LENGTH),
      assignedToId: optionalText('assignedToId', MAX_ID_LENGTH),
    }),
  ]),
);
export type CreateDealFields = t.TypeOf<typeof CreateDealBody>;

/**
 * PUT /deals/:id/status body: `status`, `stage` (null or empty clears it) and
 * `actualCloseDate` (never null: a won or lost deal always has a close date;
 * reopening clears it).
 */
export const DealStatusChangeBody = t.exact(
  t.partial({
    status: oneOf<DealStatus>('status', DEAL_STATUSES),
    stage: optionalText('stage', MAX_STAGE_LENGTH),
    actualCloseDate: instantInput('actualCloseDate'),
  }),
);
export type DealStatusChangeFields = t.TypeOf<typeof DealStatusChangeBody>;

/** The only fields the status endpoint takes. */
export const STATUS_CHANGE_FIELDS = Object.keys(DealStatusChangeBody.type.props) as readonly (keyof DealStatusChangeFields)[];

const isObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

const notAnObject: InputProblem = { kind: 'Invalid', details: { '(body)': 'must be a JSON object' } };

/**
 * Validates a POST /deals body. Missing (absent or null) `title` and `value` are
 * reported first and alone; then every other problem, one message per field.
 */
export const validateCreateDeal = (body: unknown): E.Either<InputProblem, CreateDealFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  const missing = (['title', 'value'] as const).filter((field) => body[field] === undefined || body[field] === null);
  if (missing.length > 0) return E.left({ kind: 'MissingFields', fields: missing });
  const decoded = CreateDealBody.decode(body);
  return E.isLeft(decoded)
    ? E.left({ kind: 'Invalid', details: formatValidationErrors(decoded.left) })
    : E.right(decoded.right);
};

/**
 * Validates a PUT /deals/:id/status body: at least one of `status`, `stage`,
 * `actualCloseDate`, and nothing else (each other field is named as refused).
 */
export const validateDealStatusChange = (body: unknown): E.Either<InputProblem, DealStatusChangeFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  const accepted = new Set<string>(STATUS_CHANGE_FIELDS);
  const refused: Record<string, string> = {};
  for (const field of Object.keys(body)) {
    if (!accepted.has(field)) refused[field] = 'cannot be changed by this endpoint';
  }
  if (!STATUS_CHANGE_FIELDS.some((field) => body[field] !== undefined)) {
    return E.left({
      kind: 'Invalid',
      details: Object.keys(refused).length > 0 ? refused : { '(body)': 'send at least one of status, stage, actualCloseDate' },
    });
  }
  const decoded = DealStatusChangeBody.decode(body);
  if (E.isLeft(decoded)) return E.left({ kind: 'Invalid', details: { ...formatValidationErrors(decoded.left), ...refused } });
  if (Object.keys(refused).length > 0) return E.left({ kind: 'Invalid', details: refused });
  return E.right(decoded.right);
};

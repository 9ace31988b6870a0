import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { InputProblem } from '../../../shared/InputProblem.js';
import { optionalName, optionalText, requiredName } from '../../../shared/textCodecs.js';
import { formatValidationErrors } from '../../../shared/validationReporter.js';
import { MAX_PHONE_DIGITS, MIN_PHONE_DIGITS, parsePhoneNumber } from './phoneNumber.js';

/**
 * Contact request bodies (POST and PUT /contacts): io-ts codecs that trim,
 * check the limits of the specification and normalise, with one short message
 * per field for the shared reporter.
 *
 * - Strings are trimmed. An optional string that is empty after trimming, or
 *   `null`, means "no value" (create: unset; update: clear it).
 * - `name`, `firstName` and `lastName` are names: no bidirectional override or
 *   isolate, and a visible character (see nameCharacters).
 * - `tags`: an array of strings, each trimmed to 1–50 characters, duplicates
 *   dropped (first occurrence kept), at most 50 distinct tags; `null` means none.
 * - `phoneNumber` comes out normalised (see `normalizePhoneNumber`).
 * - Unknown fields are ignored, including `id`, `createdAt` and `updatedAt`:
 *   those are the server's.
 */

const MAX_TAGS = 50;
const MAX_TAG_LENGTH = 50;
const MAX_EMAIL_LENGTH = 254;

/**
 * A pragmatic e-mail check: the WHATWG `input type=email` rule, with at least one
 * dot in the domain (so `someone@localhost` is refused, as an API client expects).
 */
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

const isString = (u: unknown): u is string => typeof u === 'string';

const EmailInput = new t.Type<string | null, string | null, unknown>(
  'email address',
  (u): u is string | null => u === null || isString(u),
  (u, c) => {
    if (u === null) return t.success(null);
    if (typeof u !== 'string') return t.failure(u, c, 'email must be a valid e-mail address');
    const value = u.trim();
    if (value === '') return t.success(null);
    return value.length <= MAX_EMAIL_LENGTH && EMAIL.test(value)
      ? t.success(value)
      : t.failure(u, c, 'email must be a valid e-mail address');
  },
  t.identity,
);

const PHONE_MESSAGE =
  `phoneNumber must have ${MIN_PHONE_DIGITS} to ${MAX_PHONE_DIGITS} digits, ` +
  'with an optional leading + and spaces, dots, dashes or parentheses';

/** A phone number as sent; decodes to its normalised form. */
const PhoneNumberInput = new t.Type<string, string, unknown>(
  'phone number',
  isString,
  (u, c) => {
    if (u === null) return t.failure(u, c, 'phoneNumber cannot be null');
    if (typeof u !== 'string') return t.failure(u, c, 'phoneNumber must be a string');
    const normalised = parsePhoneNumber(u);
    return normalised === null ? t.failure(u, c, PHONE_MESSAGE) : t.success(normalised);
  },
  t.identity,
);

/** Tags: trimmed, 1–50 characters each, de-duplicated in order, at most 50; null → []. */
const TagsInput = new t.Type<string[], string[], unknown>(
  'tags',
  (u): u is string[] => Array.isArray(u) && u.every(isString),
  (u, c) => {
    if (u === null) return t.success([]);
    if (!Array.isArray(u) || !u.every(isString)) return t.failure(u, c, 'tags must be an array of strings');
    const tags: string[] = [];
    const seen = new Set<string>();
    for (const raw of u) {
      const tag = raw.trim();
      if (tag.length < 1 || tag.length > MAX_TAG_LENGTH) {
        return t.failure(u, c, `each tag must be 1 to ${MAX_TAG_LENGTH} characters`);
      }
      if (!seen.has(tag)) {
        seen.add(tag);
        tags.push(tag);
      }
    }
    return tags.length <= MAX_TAGS ? t.success(tags) : t.failure(u, c, `tags must hold at most ${MAX_TAGS} tags`);
  },
  t.identity,
);

/** Fields every contact may have besides `name` and `phoneNumber`. */
const optionalFields = {
  firstName: optionalName('firstName', 100),
  lastName: optionalName('lastName', 100),
  email: EmailInput,
  position: optionalText('position', 100),
  currentCompany: optionalText('currentCompany', 255),
  industrySector: optionalText('industrySector', 100),
  city: optionalText('city', 100),
  country: optionalText('country', 100),
  tags: TagsInput,
};

const requiredFields = {
  name: requiredName('name', 255),
  phoneNumber: PhoneNumberInput,
};

/** POST /contacts body (unknown fields stripped). */
export const CreateContactBody = t.exact(t.intersection([t.type(requiredFields), t.partial(optionalFields)]));
export type CreateContactFields = t.TypeOf<typeof CreateContactBody>;

/** PUT /contacts/:id body: any subset of the fields (unknown fields stripped). */
export const UpdateContactBody = t.exact(t.partial({ ...requiredFields, ...optionalFields }));
export type UpdateContactFields = t.TypeOf<typeof UpdateContactBody>;

/** Every field a client may send, in the order problems are listed. */
export const CONTACT_FIELDS = Object.keys(UpdateContactBody.type.props) as readonly (keyof UpdateContactFields)[];


const isObject = (body: unknown): body is Record<string, unknown> =>
  typeof body === 'object' && body !== null && !Array.isArray(body);

const notAnObject: InputProblem = { kind: 'Invalid', details: { '(body)': 'must be a JSON object' } };

const decodeWith = <A>(codec: t.Decoder<unknown, A>, body: unknown): E.Either<InputProblem, A> => {
  const decoded = codec.decode(body);
  return E.isLeft(decoded)
    ? E.left({ kind: 'Invalid', details: formatValidationErrors(decoded.left) })
    : E.right(decoded.right);
};

/**
 * Validates a POST /contacts body. Missing (absent or null) `name` and
 * `phoneNumber` are reported first and alone; then every other problem, one
 * message per field.
 */
export const validateCreateContact = (body: unknown): E.Either<InputProblem, CreateContactFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  const missing = (['name', 'phoneNumber'] as const).filter((field) => body[field] === undefined || body[field] === null);
  if (missing.length > 0) return E.left({ kind: 'MissingFields', fields: missing });
  return decodeWith(CreateContactBody, body);
};

/**
 * Validates a PUT /contacts/:id body: at least one known field; optional fields
 * may be null to clear them, `name` and `phoneNumber` may not.
 */
export const validateUpdateContact = (body: unknown): E.Either<InputProblem, UpdateContactFields> => {
  if (!isObject(body)) return E.left(notAnObject);
  if (!CONTACT_FIELDS.some((field) => body[field] !== undefined)) {
    return E.left({ kind: 'Invalid', details: { '(body)': 'send at least one field to change' } });
  }
  return decodeWith(UpdateContactBody, body);
};

/** What `POST /contacts/erase` matches contacts by: an e-mail address or a phone number, normalised. */
export type ContactMatch = { readonly email: string } | { readonly phoneNumber: string };

const MATCH_FIELDS = ['email', 'phoneNumber'] as const;

/**
 * Validates a `POST /contacts/erase` body: exactly one of `email` and
 * `phoneNumber`, as a contact takes it (a number comes out normalised, an e-mail
 * trimmed); any other field is refused.
 */
export const validateContactMatch = (body: unknown): E.Either<InputProblem, ContactMatch> => {
  if (!isObject(body)) return E.left(notAnObject);
  const unknown = Object.keys(body).filter((field) => !(MATCH_FIELDS as readonly string[]).includes(field));
  if (unknown.length > 0) {
    return E.left({ kind: 'Invalid', details: Object.fromEntries(unknown.map((field) => [field, 'is not a field of this request; send email or phoneNumber'])) });
  }
  const sent = MATCH_FIELDS.filter((field) => body[field] !== undefined);
  if (sent.length !== 1) return E.left({ kind: 'Invalid', details: { '(body)': 'send exactly one of email and phoneNumber' } });
  if (sent[0] === 'phoneNumber') return decodeWith(t.type({ phoneNumber: PhoneNumberInput }), { phoneNumber: body.phoneNumber });
  const decoded = decodeWith(t.type({ email: EmailInput }), { email: body.email });
  if (E.isLeft(decoded)) return decoded;
  const { email } = decoded.right;
  return email === null ? E.left({ kind: 'Invalid', details: { email: 'email must be a valid e-mail address' } }) : E.right({ email });
};

/** An e-mail address as contacts are matched by it: trimmed and lower-cased (a contact keeps it as sent). */
export const emailMatchKey = (email: string): string => email.trim().toLowerCase();

import * as t from 'io-ts';

/**
 * A phone number of a company was reserved for a contact: the number is the
 * stream's (see `phoneReservationStream`), never in the event, which holds
 * nothing personal. `takenOverFrom` names the holder of a stale reservation this
 * one replaced. Version 2; version 1 (`PhoneNumberReservedV1`) also held the
 * number.
 */
export const PhoneNumberReserved = t.type({
  type: t.literal('PhoneNumberReserved'),
  data: t.intersection([t.type({ companyId: t.string, contactId: t.string, at: t.string }), t.partial({ takenOverFrom: t.string })]),
});
export type PhoneNumberReserved = t.TypeOf<typeof PhoneNumberReserved>;

/** `PhoneNumberReserved` version 1 (releases up to 283063c): the normalised number in `phoneNumber` too. */
export const PhoneNumberReservedV1 = t.type({
  type: t.literal('PhoneNumberReserved'),
  data: t.intersection([
    t.type({ companyId: t.string, phoneNumber: t.string, contactId: t.string, at: t.string }),
    t.partial({ takenOverFrom: t.string }),
  ]),
});
export type PhoneNumberReservedV1 = t.TypeOf<typeof PhoneNumberReservedV1>;

/** `PhoneNumberReserved` v1 → v2: the number left out (its stream's name holds it). */
export const upcastPhoneNumberReservedV1 = (event: PhoneNumberReservedV1): PhoneNumberReserved => {
  const { phoneNumber: _number, ...data } = event.data;
  return { type: 'PhoneNumberReserved', data };
};

/** The contact that held the number let it go (it changed its number). */
export const PhoneNumberReleased = t.type({
  type: t.literal('PhoneNumberReleased'),
  data: t.type({ contactId: t.string, at: t.string }),
});
export type PhoneNumberReleased = t.TypeOf<typeof PhoneNumberReleased>;

export const PhoneReservationEvent = t.union([PhoneNumberReserved, PhoneNumberReleased]);
export type PhoneReservationEvent = t.TypeOf<typeof PhoneReservationEvent>;

/**
 * Escapes every character outside `A-Z a-z 0-9 _` as the `%HH` of each of its
 * UTF-8 bytes (a lone surrogate as U+FFFD's), so ids cannot collide or inject.
 * Stream names are stored: the result must never change.
 */
const utf8 = new TextEncoder();
const escapedByte = (byte: number): string => `%${byte < 16 ? '0' : ''}${byte.toString(16).toUpperCase()}`;
const escapeStreamPart = (part: string): string =>
  part.replace(/[^A-Za-z0-9_]/gu, (char) => {
    const code = char.codePointAt(0)!;
    // ASCII is its own UTF-8 byte (the encoder costs more than the rest of a name together).
    if (code < 0x80) return escapedByte(code);
    let escaped = '';
    for (const byte of utf8.encode(char)) escaped += escapedByte(byte);
    return escaped;
  });

/** Every reservation stream, and no other, starts with it (both parts of the name are escaped). */
export const PHONE_RESERVATION_STREAM_PREFIX = 'phone-';

/**
 * The reservation stream of one (company, normalised number):
 * `phone-<companyId>-<number>`, both parts escaped (`+` → `%2B`, `-` → `%2D`), so the
 * only dashes are the two separators and the stream's category is `phone`.
 */
export const phoneReservationStream = (companyId: string, normalisedNumber: string): string =>
  `${PHONE_RESERVATION_STREAM_PREFIX}${escapeStreamPart(companyId)}-${escapeStreamPart(normalisedNumber)}`;

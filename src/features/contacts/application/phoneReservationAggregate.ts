import * as E from 'fp-ts/lib/Either.js';
import { phoneReservationDecider } from '../domain/phoneReservationDecider.js';
import {
  PhoneNumberReleased,
  PhoneNumberReserved,
  PhoneNumberReservedV1,
  upcastPhoneNumberReservedV1,
  PhoneReservationEvent,
  PHONE_RESERVATION_STREAM_PREFIX,
} from '../domain/phoneReservationEvents.js';
import { storedAs, storedEventType, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** The version of a `PhoneNumberReserved` stored without one: 1 when it holds the number, else 2 (by its shape, as for `ContactUpdated`). */
const unmarkedPhoneNumberReservedVersion = (data: unknown): number =>
  typeof data === 'object' && data !== null && 'phoneNumber' in data ? 1 : 2;

const phoneNumberReservedV1toV2: UpcastStep = async (event) => E.right(upcastPhoneNumberReservedV1(storedAs(PhoneNumberReservedV1, event)).data);

/** The reservation of one phone number in one company (a contact's number is unique): `phone-<company>-<number>`. */
export const phoneReservationAggregate = describeAggregate({
  name: 'phone reservation',
  streamPrefix: PHONE_RESERVATION_STREAM_PREFIX,
  eventCodec: PhoneReservationEvent,
  decider: phoneReservationDecider,
  storedEvents: [
    storedEventType('PhoneNumberReserved', [PhoneNumberReservedV1, PhoneNumberReserved], [phoneNumberReservedV1toV2], unmarkedPhoneNumberReservedVersion),
    storedEventType('PhoneNumberReleased', [PhoneNumberReleased]),
  ],
});

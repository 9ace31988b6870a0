import { phoneReservationDecider } from '../domain/phoneReservationDecider.js';
import {
  PhoneNumberReleased,
  PhoneNumberReserved,
  PhoneReservationEvent,
  PHONE_RESERVATION_STREAM_PREFIX,
} from '../domain/phoneReservationEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** The reservation of one phone number in one company (a contact's number is unique): `phone-<company>-<number>`. */
export const phoneReservationAggregate = describeAggregate({
  name: 'phone reservation',
  streamPrefix: PHONE_RESERVATION_STREAM_PREFIX,
  eventCodec: PhoneReservationEvent,
  decider: phoneReservationDecider,
  storedEvents: [storedEventType('PhoneNumberReserved', [PhoneNumberReserved]), storedEventType('PhoneNumberReleased', [PhoneNumberReleased])],
});

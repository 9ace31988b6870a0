import * as E from 'fp-ts/lib/Either.js';
import { contactDecider, type ContactState } from '../domain/contactDecider.js';
import { ContactCreated, ContactDeleted, ContactErased, ContactEvent, ContactRestored, ContactUpdated, contactStream } from '../domain/contactEvents.js';
import {
  ContactCreatedV1,
  ContactRestoredV1,
  ContactUpdatedV1,
  ContactUpdatedV2,
  unmarkedContactUpdatedVersion,
  upcastContactCreatedV1,
  upcastContactRestoredV1,
  upcastContactUpdatedV1,
  upcastContactUpdatedV2,
} from '../domain/contactEventVersions.js';
import { storedEventType, storedAs, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { companyInData, describeAggregate, type AggregateDescriptor } from '../../../application/aggregates/AggregateDescriptor.js';

/** ContactCreated v1 → v2: the event alone decides (version 1's data fits version 2 as it is). */
const contactCreatedV1toV2: UpcastStep = async (event) => E.right(upcastContactCreatedV1(storedAs(ContactCreatedV1, event)).data);

/** ContactUpdated v1 → v2: the contact after the change, from the contact's stream before the event. */
const contactUpdatedV1toV2: UpcastStep = async (event, log) => {
  const before = await log.stateBefore(event, contactAggregate);
  return E.map((upcast: ContactUpdatedV2 | ContactUpdated) => upcast.data)(upcastContactUpdatedV1(storedAs(ContactUpdatedV1, event), before));
};

/** ContactUpdated v2 → v3: the event alone decides (version 2's data fits version 3 as it is). */
const contactUpdatedV2toV3: UpcastStep = async (event) => E.right(upcastContactUpdatedV2(storedAs(ContactUpdatedV2, event)).data);

/** ContactRestored v1 → v2: the event alone decides (version 1's data fits version 2 as it is). */
const contactRestoredV1toV2: UpcastStep = async (event) => E.right(upcastContactRestoredV1(storedAs(ContactRestoredV1, event)).data);

/** A contact of a company: `contact-<id>`. Its phone number is held by a reservation stream (phoneReservationAggregate). */
export const contactAggregate: AggregateDescriptor<ContactEvent, ContactState> = describeAggregate({
  name: 'contact',
  streamPrefix: contactStream(''),
  eventCodec: ContactEvent,
  decider: contactDecider,
  storedEvents: [
    storedEventType('ContactCreated', [ContactCreatedV1, ContactCreated], [contactCreatedV1toV2]),
    storedEventType(
      'ContactUpdated',
      [ContactUpdatedV1, ContactUpdatedV2, ContactUpdated],
      [contactUpdatedV1toV2, contactUpdatedV2toV3],
      unmarkedContactUpdatedVersion,
    ),
    storedEventType('ContactDeleted', [ContactDeleted]),
    storedEventType('ContactRestored', [ContactRestoredV1, ContactRestored], [contactRestoredV1toV2]),
    storedEventType('ContactErased', [ContactErased]),
  ],
  history: { streamOf: contactStream, companyOf: companyInData(ContactEvent) },
});

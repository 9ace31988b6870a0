import * as E from 'fp-ts/lib/Either.js';
import { contactDecider, type ContactState } from '../domain/contactDecider.js';
import { ContactCreated, ContactDeleted, ContactErased, ContactEvent, ContactRestored, ContactUpdated, contactStream } from '../domain/contactEvents.js';
import { ContactUpdatedV1, unmarkedContactUpdatedVersion, upcastContactUpdatedV1 } from '../domain/contactEventVersions.js';
import { storedEventType, storedAs, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { companyInData, describeAggregate, type AggregateDescriptor } from '../../../application/aggregates/AggregateDescriptor.js';

/** ContactUpdated v1 → v2: the contact after the change, from the contact's stream before the event. */
const contactUpdatedV1toV2: UpcastStep = async (event, log) => {
  const before = await log.stateBefore(event, contactAggregate);
  return E.map((upcast: ContactUpdated) => upcast.data)(upcastContactUpdatedV1(storedAs(ContactUpdatedV1, event), before));
};

/** A contact of a company: `contact-<id>`. Its phone number is held by a reservation stream (phoneReservationAggregate). */
export const contactAggregate: AggregateDescriptor<ContactEvent, ContactState> = describeAggregate({
  name: 'contact',
  streamPrefix: contactStream(''),
  eventCodec: ContactEvent,
  decider: contactDecider,
  storedEvents: [
    storedEventType('ContactCreated', [ContactCreated]),
    storedEventType('ContactUpdated', [ContactUpdatedV1, ContactUpdated], [contactUpdatedV1toV2], unmarkedContactUpdatedVersion),
    storedEventType('ContactDeleted', [ContactDeleted]),
    storedEventType('ContactRestored', [ContactRestored]),
    storedEventType('ContactErased', [ContactErased]),
  ],
  history: { streamOf: contactStream, companyOf: companyInData(ContactEvent) },
});

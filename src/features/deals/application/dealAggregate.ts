import * as E from 'fp-ts/lib/Either.js';
import { contactSummaryOf } from '../domain/dealContactSummary.js';
import { contactStream } from '../domain/contactsForDeals.js';
import { dealDecider, type DealState } from '../domain/dealDecider.js';
import { DealContactRefreshed, DealCreated, DealDeleted, DealEvent, DealRestored, DealStatusChanged, dealStream } from '../domain/dealEvents.js';
import {
  DealContactRefreshedV1,
  DealStatusChangedV1,
  DealStatusChangedV2,
  unmarkedDealStatusChangedVersion,
  upcastDealStatusChangedV1,
  upcastDealContactRefreshedV1,
  upcastDealStatusChangedV2,
} from '../domain/dealEventVersions.js';
import { storedEventType, storedAs, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { companyInData, describeAggregate, type AggregateDescriptor } from '../../../application/aggregates/AggregateDescriptor.js';
import { contactAggregate } from './contactsForDeals.js';

/**
 * DealStatusChanged v1 → v2: the deal after the change, from the deal's stream
 * before the event, with its contact as the contact's stream was at the event's
 * log position (what the decider embeds: the contact as it was when the change
 * was decided).
 */
const dealStatusChangedV1toV2: UpcastStep = async (event, log) => {
  const before = await log.stateBefore(event, dealAggregate);
  const contactId = before.status === 'active' ? before.deal.contact?.id : undefined;
  const contact = contactId === undefined ? null : await log.stateAt(contactStream(contactId), event.position, contactAggregate);
  const contactThen = contact?.status === 'active' ? contactSummaryOf(contact.contact) : null;
  return E.map((upcast: DealStatusChangedV2) => upcast.data)(upcastDealStatusChangedV1(storedAs(DealStatusChangedV1, event), before, contactThen));
};

/** DealStatusChanged v2 → v3: the event alone decides (version 2's data fits version 3 as it is). */
/** DealContactRefreshed v1 → v2: the same summary (version 2 may also hold a deleted contact's). */
const dealContactRefreshedV1toV2: UpcastStep = async (event) => E.right(upcastDealContactRefreshedV1(storedAs(DealContactRefreshedV1, event)).data);

const dealStatusChangedV2toV3: UpcastStep = async (event) => E.right(upcastDealStatusChangedV2(storedAs(DealStatusChangedV2, event)).data);

/** A deal of a company's pipeline: `deal-<id>`. */
export const dealAggregate: AggregateDescriptor<DealEvent, DealState> = describeAggregate({
  name: 'deal',
  streamPrefix: dealStream(''),
  eventCodec: DealEvent,
  decider: dealDecider,
  storedEvents: [
    storedEventType('DealCreated', [DealCreated]),
    storedEventType(
      'DealStatusChanged',
      [DealStatusChangedV1, DealStatusChangedV2, DealStatusChanged],
      [dealStatusChangedV1toV2, dealStatusChangedV2toV3],
      unmarkedDealStatusChangedVersion,
    ),
    storedEventType('DealContactRefreshed', [DealContactRefreshedV1, DealContactRefreshed], [dealContactRefreshedV1toV2]),
    storedEventType('DealDeleted', [DealDeleted]),
    storedEventType('DealRestored', [DealRestored]),
  ],
  history: { streamOf: dealStream, companyOf: companyInData(DealEvent) },
});

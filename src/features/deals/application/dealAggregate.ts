import * as E from 'fp-ts/lib/Either.js';
import { contactSummaryOf } from '../domain/dealContactSummary.js';
import { contactStream } from '../domain/contactsForDeals.js';
import { dealDecider, type DealState } from '../domain/dealDecider.js';
import { DealContactRefreshed, DealCreated, DealDeleted, DealEvent, DealRestored, DealStatusChanged, dealStream } from '../domain/dealEvents.js';
import {
  DealContactRefreshedV1,
  DealContactRefreshedV2,
  DealCreatedV1,
  DealRestoredV1,
  DealStatusChangedV1,
  DealStatusChangedV2,
  DealStatusChangedV3,
  unmarkedDealStatusChangedVersion,
  upcastDealContactRefreshedV1,
  upcastDealContactRefreshedV2,
  upcastDealCreatedV1,
  upcastDealRestoredV1,
  upcastDealStatusChangedV1,
  upcastDealStatusChangedV2,
  upcastDealStatusChangedV3,
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
  return E.map((upcast: { readonly data: unknown }) => upcast.data)(upcastDealStatusChangedV1(storedAs(DealStatusChangedV1, event), before, contactThen));
};

/** DealStatusChanged v2 → v3: the event alone decides (version 2's data fits version 3 as it is). */
const dealStatusChangedV2toV3: UpcastStep = async (event) => E.right(upcastDealStatusChangedV2(storedAs(DealStatusChangedV2, event)).data);

/** DealStatusChanged v3 → v4: the event alone decides (version 3's data fits version 4 as it is). */
const dealStatusChangedV3toV4: UpcastStep = async (event) => E.right(upcastDealStatusChangedV3(storedAs(DealStatusChangedV3, event)).data);

/** DealContactRefreshed v1 → v2: the same summary (version 2 may also hold a deleted contact's). */
const dealContactRefreshedV1toV2: UpcastStep = async (event) => E.right(upcastDealContactRefreshedV1(storedAs(DealContactRefreshedV1, event)).data);

/** DealContactRefreshed v2 → v3: the same summary (version 3's nulls may also be erased fields). */
const dealContactRefreshedV2toV3: UpcastStep = async (event) => E.right(upcastDealContactRefreshedV2(storedAs(DealContactRefreshedV2, event)).data);

/** DealCreated v1 → v2: the event alone decides (version 1's data fits version 2 as it is). */
const dealCreatedV1toV2: UpcastStep = async (event) => E.right(upcastDealCreatedV1(storedAs(DealCreatedV1, event)).data);

/** DealRestored v1 → v2: the event alone decides (version 1's data fits version 2 as it is). */
const dealRestoredV1toV2: UpcastStep = async (event) => E.right(upcastDealRestoredV1(storedAs(DealRestoredV1, event)).data);

/** A deal of a company's pipeline: `deal-<id>`. */
export const dealAggregate: AggregateDescriptor<DealEvent, DealState> = describeAggregate({
  name: 'deal',
  streamPrefix: dealStream(''),
  eventCodec: DealEvent,
  decider: dealDecider,
  storedEvents: [
    storedEventType('DealCreated', [DealCreatedV1, DealCreated], [dealCreatedV1toV2]),
    storedEventType(
      'DealStatusChanged',
      [DealStatusChangedV1, DealStatusChangedV2, DealStatusChangedV3, DealStatusChanged],
      [dealStatusChangedV1toV2, dealStatusChangedV2toV3, dealStatusChangedV3toV4],
      unmarkedDealStatusChangedVersion,
    ),
    storedEventType(
      'DealContactRefreshed',
      [DealContactRefreshedV1, DealContactRefreshedV2, DealContactRefreshed],
      [dealContactRefreshedV1toV2, dealContactRefreshedV2toV3],
    ),
    storedEventType('DealDeleted', [DealDeleted]),
    storedEventType('DealRestored', [DealRestoredV1, DealRestored], [dealRestoredV1toV2]),
  ],
  history: { streamOf: dealStream, companyOf: companyInData(DealEvent) },
});

import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { DealState } from './dealDecider.js';
import {
  DealContactSummary,
  DealContactView,
  DealPriority,
  DealStatus,
  DealUserSummary,
  DealView,
  type DealContactRefreshed,
  type DealCreated,
  type DealRestored,
  type DealStatusChanged,
} from './dealEvents.js';
import { applyDealStatusChanged } from './dealRecord.js';
import { toDealSnapshot } from './dealView.js';

/*
 * Earlier versions of the deal's stored events, and the upcasters that read them
 * as the current version. A released version's codec never changes: a new shape
 * is a new version (see docs/contributors/changing-an-event.md).
 *
 *   DealCreated           v1: a live contact's and user's summaries (releases up to bf089fc)
 *                         v2 (current): v1, but each personal field of `contact` and
 *                           `assignedTo` may be null (erased)
 *   DealStatusChanged     v1: the moves, actualCloseDate, updatedAt (releases up to 92d4d5c)
 *                         v2: v1 + `deal`, the whole deal after the change (releases up to 283063c)
 *                         v3: v2, but the contact in `deal` may be a deleted one's
 *                           (`id`, every other field null) (releases up to bf089fc)
 *                         v4 (current): v3, but each personal field of `deal`'s contact and
 *                           assigned user may be null (erased)
 *   DealContactRefreshed  v1: a live contact's summary (releases up to 283063c)
 *                         v2: v1, but the contact may be a deleted one's (releases up to bf089fc)
 *                         v3 (current): v2's shape, but a null may also be a field erased
 *   DealDeleted           v1 (current)
 *   DealRestored          v1: the deal as it came back (releases up to bf089fc)
 *                         v2 (current): v1, but each personal field of `deal`'s contact and
 *                           assigned user may be null (erased)
 */

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** `DealStatusChanged` version 1: the moves only, no snapshot of the deal. */
export const DealStatusChangedV1 = t.type({
  type: t.literal('DealStatusChanged'),
  data: t.intersection([
    t.type({
      dealId: t.string,
      companyId: t.string,
      actualCloseDate: nullable(t.string),
      updatedAt: t.string,
    }),
    t.partial({
      status: t.type({ from: DealStatus, to: DealStatus }),
      stage: t.type({ from: nullable(t.string), to: nullable(t.string) }),
    }),
  ]),
});
export type DealStatusChangedV1 = t.TypeOf<typeof DealStatusChangedV1>;

const hasField = (data: unknown, field: string): boolean => typeof data === 'object' && data !== null && field in data;

/**
 * The version of a `DealStatusChanged` stored without a schema version (written
 * before versions were recorded): releases up to 92d4d5c wrote version 1, without
 * `deal`; later ones wrote version 2, with it, still unmarked. So: version 2 when
 * `data.deal` is there, else version 1. (Version 3 came after versions were
 * recorded: no release wrote it unmarked.)
 */
export const unmarkedDealStatusChangedVersion = (data: unknown): number => (hasField(data, 'deal') ? 2 : 1);

/**
 * `DealStatusChanged` v1 → v2: adds `deal`, the whole deal after the change,
 * computed as the decider computes it for a new event: the moves applied to the
 * deal as its stream had it just before this event (`before`), embedding its
 * contact as the contact's own stream had it at this event's log position
 * (`contactThen`; null when unknown, and then the summary the deal holds is kept)
 * and its assigned user. Left (with the reason) when the stream holds no deal.
 */
export const upcastDealStatusChangedV1 = (
  event: DealStatusChangedV1,
  before: DealState,
  contactThen: DealContactView | null,
): E.Either<string, DealStatusChangedV2 | DealStatusChanged> => {
  if (before.status !== 'active') return E.left('no DealCreated before it in its stream: the deal it changed is unknown');
  if (before.deal.id !== event.data.dealId) {
    return E.left(`it names deal ${event.data.dealId}, but its stream holds deal ${before.deal.id}`);
  }
  const after = applyDealStatusChanged(before.deal, event);
  const embedded = before.deal.contact;
  const contact = embedded !== null && contactThen?.id === embedded.id ? contactThen : embedded;
  const deal = toDealSnapshot({ ...after, contact });
  // The releases that wrote version 1 knew no deleted or erased contact: what the deal embeds is live, unless
  // its person was erased since (sealed in place, then the key destroyed); version 2 could not hold that, and
  // the current version judges such a result alone (see EventUpcaster).
  return E.right({ type: 'DealStatusChanged', data: { ...event.data, deal } } as DealStatusChangedV2 | DealStatusChanged);
};

/**
 * The Deal shape `DealStatusChanged` version 2 carries: its contact, when it has
 * one, a live contact's summary (every field but `email` and `currentCompany` a string).
 */
export const DealViewV2 = t.type({
  id: t.string,
  title: t.string,
  description: nullable(t.string),
  value: t.number,
  currency: t.string,
  stage: nullable(t.string),
  priority: DealPriority,
  probability: nullable(t.number),
  status: DealStatus,
  expectedCloseDate: nullable(t.string),
  actualCloseDate: nullable(t.string),
  source: nullable(t.string),
  contact: nullable(DealContactSummary),
  assignedTo: nullable(DealUserSummary),
  createdAt: t.string,
  updatedAt: t.string,
});

/** `DealStatusChanged` version 2: the moves and `deal`, the whole deal after the change, with a live contact. */
export const DealStatusChangedV2 = t.type({
  type: t.literal('DealStatusChanged'),
  data: t.intersection([
    t.type({
      dealId: t.string,
      companyId: t.string,
      actualCloseDate: nullable(t.string),
      updatedAt: t.string,
      deal: DealViewV2,
    }),
    t.partial({
      status: t.type({ from: DealStatus, to: DealStatus }),
      stage: t.type({ from: nullable(t.string), to: nullable(t.string) }),
    }),
  ]),
});
export type DealStatusChangedV2 = t.TypeOf<typeof DealStatusChangedV2>;

/**
 * `DealStatusChanged` v2 → v3: the identity. Version 3 only lets the contact in
 * `deal` be a deleted one's (its fields but `id` null); a live contact's summary,
 * all version 2 holds, fits it as it is.
 */
export const upcastDealStatusChangedV2 = (event: DealStatusChangedV2): DealStatusChangedV3 => event;

/** `DealStatusChanged` version 3: the moves and `deal`, its contact a live or a deleted one's, its user a live one's. */
export const DealStatusChangedV3 = t.type({
  type: t.literal('DealStatusChanged'),
  data: t.intersection([
    t.type({
      dealId: t.string,
      companyId: t.string,
      actualCloseDate: nullable(t.string),
      updatedAt: t.string,
      deal: DealView,
    }),
    t.partial({
      status: t.type({ from: DealStatus, to: DealStatus }),
      stage: t.type({ from: nullable(t.string), to: nullable(t.string) }),
    }),
  ]),
});
export type DealStatusChangedV3 = t.TypeOf<typeof DealStatusChangedV3>;

/**
 * `DealStatusChanged` v3 → v4: the identity. Version 4 only lets the personal
 * fields of `deal`'s contact and assigned user be null (erased); version 3's
 * values fit it as they are (its nulls, a deleted contact's, stay what they were).
 */
export const upcastDealStatusChangedV3 = (event: DealStatusChangedV3): DealStatusChanged => event;

/** `DealContactRefreshed` version 1: always a live contact's summary. */
export const DealContactRefreshedV1 = t.type({
  type: t.literal('DealContactRefreshed'),
  data: t.type({
    dealId: t.string,
    companyId: t.string,
    contact: t.type({
      id: t.string,
      name: t.string,
      email: nullable(t.string),
      phoneNumber: t.string,
      currentCompany: nullable(t.string),
    }),
  }),
});
export type DealContactRefreshedV1 = t.TypeOf<typeof DealContactRefreshedV1>;

/** `DealContactRefreshed` v1 → v2: a live contact's summary is one version 2 holds as it is. */
export const upcastDealContactRefreshedV1 = (event: DealContactRefreshedV1): DealContactRefreshedV2 => event;

/** `DealContactRefreshed` version 2: a live contact's summary, or a deleted one's (its id, every other field null). */
export const DealContactRefreshedV2 = t.type({
  type: t.literal('DealContactRefreshed'),
  data: t.type({ dealId: t.string, companyId: t.string, contact: DealContactView }),
});
export type DealContactRefreshedV2 = t.TypeOf<typeof DealContactRefreshedV2>;

/**
 * `DealContactRefreshed` v2 → v3: the identity. Version 3 has version 2's shape;
 * only its nulls may also be a field erased with its person.
 */
export const upcastDealContactRefreshedV2 = (event: DealContactRefreshedV2): DealContactRefreshed => event;

/** `DealCreated` version 1: the contact's and the assigned user's summaries are live ones (every field a value but email and currentCompany). */
export const DealCreatedV1 = t.type({
  type: t.literal('DealCreated'),
  data: t.type({
    dealId: t.string,
    companyId: t.string,
    title: t.string,
    description: nullable(t.string),
    value: t.number,
    currency: t.string,
    stage: nullable(t.string),
    priority: DealPriority,
    probability: nullable(t.number),
    expectedCloseDate: nullable(t.string),
    source: nullable(t.string),
    contact: nullable(DealContactSummary),
    assignedTo: nullable(DealUserSummary),
    createdAt: t.string,
  }),
});
export type DealCreatedV1 = t.TypeOf<typeof DealCreatedV1>;

/** `DealCreated` v1 → v2: the identity (version 2 only lets the summaries' personal fields be null). */
export const upcastDealCreatedV1 = (event: DealCreatedV1): DealCreated => event;

/** `DealRestored` version 1: the deal as it came back, its contact a live or a deleted one's, its user a live one's. */
export const DealRestoredV1 = t.type({
  type: t.literal('DealRestored'),
  data: t.type({ dealId: t.string, companyId: t.string, restoredAt: t.string, deal: DealView }),
});
export type DealRestoredV1 = t.TypeOf<typeof DealRestoredV1>;

/** `DealRestored` v1 → v2: the identity (version 2 only lets the personal fields of `deal`'s contact and user be null). */
export const upcastDealRestoredV1 = (event: DealRestoredV1): DealRestored => event;

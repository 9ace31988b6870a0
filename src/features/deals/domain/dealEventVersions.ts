import * as E from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import type { DealState } from './dealDecider.js';
import { DealStatus, type DealContactSummary, type DealStatusChanged } from './dealEvents.js';
import { applyDealStatusChanged } from './dealRecord.js';
import { toDealView } from './dealView.js';

/*
 * Earlier versions of the deal's stored events, and the upcasters that read them
 * as the current version. A released version's codec never changes: a new shape
 * is a new version (see docs/contributors/changing-an-event.md).
 *
 *   DealCreated           v1 (current)
 *   DealStatusChanged     v1: the moves, actualCloseDate, updatedAt (releases up to 92d4d5c)
 *                         v2 (current): v1 + `deal`, the whole deal after the change
 *   DealContactRefreshed  v1 (current)
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
 * `data.deal` is there, else version 1.
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
  contactThen: DealContactSummary | null,
): E.Either<string, DealStatusChanged> => {
  if (before.status !== 'active') return E.left('no DealCreated before it in its stream: the deal it changed is unknown');
  if (before.deal.id !== event.data.dealId) {
    return E.left(`it names deal ${event.data.dealId}, but its stream holds deal ${before.deal.id}`);
  }
  const after = applyDealStatusChanged(before.deal, event);
  const embedded = before.deal.contact;
  const contact = embedded !== null && contactThen?.id === embedded.id ? contactThen : embedded;
  return E.right({ type: 'DealStatusChanged', data: { ...event.data, deal: toDealView({ ...after, contact }) } });
};

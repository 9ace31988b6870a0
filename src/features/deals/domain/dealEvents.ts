import * as t from 'io-ts';

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** A deal's state: `open` when created; `won` and `lost` close it (and may be reopened or corrected). */
export const DealStatus = t.keyof({ open: null, won: null, lost: null });
export type DealStatus = t.TypeOf<typeof DealStatus>;
export const DEAL_STATUSES = Object.keys(DealStatus.keys) as readonly DealStatus[];

export const DealPriority = t.keyof({ low: null, medium: null, high: null });
export type DealPriority = t.TypeOf<typeof DealPriority>;
export const DEAL_PRIORITIES = Object.keys(DealPriority.keys) as readonly DealPriority[];

/*
 * Every personal field of a deal's events (the embedded contact's and assigned
 * user's summaries, see `dealPersonalData`) may be null: a person's fields read as
 * null once the person is erased (their key is gone, see
 * docs/contributors/personal-data.md). The versions before that
 * (`dealEventVersions.ts`) held no such null, but a deleted contact's.
 */

/**
 * The contact a deal embeds: a snapshot taken at creation from the contact's
 * stream; the read model follows the contact's later `ContactUpdated` events.
 * A live contact's, as the commands bring it (`DealCreated` and
 * `DealContactRefreshed` record it as a `DealContactView`: read back, its fields
 * may be null).
 */
export const DealContactSummary = t.type({
  id: t.string,
  name: t.string,
  email: nullable(t.string),
  phoneNumber: t.string,
  currentCompany: nullable(t.string),
});
export type DealContactSummary = t.TypeOf<typeof DealContactSummary>;

/**
 * The contact as a deal shows it: a live contact's summary, or a deleted
 * contact's, which keeps the link (`id`) and shows every other field as null,
 * until the contact is restored; or, read from an event, an erased contact's,
 * shown the same way.
 */
export const DealContactView = t.type({
  id: t.string,
  name: nullable(t.string),
  email: nullable(t.string),
  phoneNumber: nullable(t.string),
  currentCompany: nullable(t.string),
});
export type DealContactView = t.TypeOf<typeof DealContactView>;

/** The user a deal is assigned to: a snapshot taken at creation from the user's stream. */
export const DealUserSummary = t.type({ id: t.string, name: t.string, email: t.string });
export type DealUserSummary = t.TypeOf<typeof DealUserSummary>;

/** The assigned user as a deal's events carry it: `name` and `email` null when they read as null (the user erased). */
export const DealUserSnapshot = t.type({ id: t.string, name: nullable(t.string), email: nullable(t.string) });
export type DealUserSnapshot = t.TypeOf<typeof DealUserSnapshot>;

/** A deal's own fields, in the API's order up to its contact (the shapes below add their contact and user). */
const dealOwnFields = {
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
};

/**
 * A deal as the API returns it (responses and the `deals` read model): every
 * field present, null when unset; date-times ISO 8601 UTC with milliseconds.
 * Defined here, beside the summaries it embeds, because `DealStatusChanged`
 * version 3 carried one (and `dealView.ts`, which re-exports it, imports this module).
 */
export const DealView = t.type({
  ...dealOwnFields,
  contact: nullable(DealContactView),
  assignedTo: nullable(DealUserSummary),
  createdAt: t.string,
  updatedAt: t.string,
});

/**
 * A deal as its events carry it (`DealStatusChanged`, `DealRestored`) and webhook
 * payloads keep it: the Deal, its assigned user's `name` and `email` null when
 * they read as null (the user erased).
 */
export const DealSnapshot = t.type({
  ...dealOwnFields,
  contact: nullable(DealContactView),
  assignedTo: nullable(DealUserSnapshot),
  createdAt: t.string,
  updatedAt: t.string,
});
export type DealSnapshot = t.TypeOf<typeof DealSnapshot>;

/**
 * A deal came into being, `open` and without a close date. Every field is
 * present (null: no value); dates are ISO 8601 UTC with milliseconds;
 * `createdAt` is also the first `updatedAt`. Version 2: the personal fields of
 * `contact` and `assignedTo` may be null (erased).
 */
export const DealCreated = t.type({
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
    contact: nullable(DealContactView),
    assignedTo: nullable(DealUserSnapshot),
    createdAt: t.string,
  }),
});
export type DealCreated = t.TypeOf<typeof DealCreated>;

/**
 * A deal's status, stage or close date changed. `status` and `stage` are present
 * only when they moved (from → to); `actualCloseDate` is the close date after the
 * change (null for an open deal), so the event alone tells the outcome.
 *
 * `deal` is the whole deal after the change, in the API's Deal shape (event-carried
 * state), with the contact summary as the contact's stream had it when the change
 * was decided (nulls but `id` for a deleted contact) and the assigned user's
 * summary: `deal.*` webhooks and triggers are built from this one event, never
 * from a fold at delivery or replay time. (The `deals` read model keeps folding
 * moves and follows the contact's events for the embedded contact, so a contact
 * change racing a status change cannot roll the read model's summary back.)
 * Version 4 (see `dealEventVersions.ts`): the personal fields of `deal`'s contact
 * and assigned user may be null (erased).
 */
export const DealStatusChanged = t.type({
  type: t.literal('DealStatusChanged'),
  data: t.intersection([
    t.type({
      dealId: t.string,
      companyId: t.string,
      actualCloseDate: nullable(t.string),
      updatedAt: t.string,
      deal: DealSnapshot,
    }),
    t.partial({
      status: t.type({ from: DealStatus, to: DealStatus }),
      stage: t.type({ from: nullable(t.string), to: nullable(t.string) }),
    }),
  ]),
});
export type DealStatusChanged = t.TypeOf<typeof DealStatusChanged>;

/**
 * The deal's embedded contact summary, brought up to date. Appended only when
 * the contact changed between the deal's creation (or restore) reading it and the
 * `DealCreated` (or `DealRestored`) append: that contact event is in the log
 * before the deal's, so nothing that follows contact changes would ever apply it
 * to this deal. Not a change of the deal itself: `updatedAt` stays and no webhook
 * event derives from it. Version 2: the contact may be a deleted one's (its id,
 * every other field null), when it was deleted in between. Version 3: the same
 * shape, but a null may also be a field erased with its person (a release that
 * knows only version 2 would read an erased contact as a deleted one).
 */
export const DealContactRefreshed = t.type({
  type: t.literal('DealContactRefreshed'),
  data: t.type({
    dealId: t.string,
    companyId: t.string,
    contact: DealContactView,
  }),
});
export type DealContactRefreshed = t.TypeOf<typeof DealContactRefreshed>;

/**
 * The deal was deleted: it answers 404 and leaves every list and total until it
 * is restored, which it may be until `restorableUntil` (ISO 8601 UTC with
 * milliseconds, `deletedAt` plus the retention period the server had then).
 */
export const DealDeleted = t.type({
  type: t.literal('DealDeleted'),
  data: t.type({ dealId: t.string, companyId: t.string, deletedAt: t.string, restorableUntil: t.string }),
});
export type DealDeleted = t.TypeOf<typeof DealDeleted>;

/**
 * A deleted deal came back as it was when it was deleted (its `updatedAt`
 * unchanged: nothing of it changed), with its contact summary as the contact's
 * stream had it when the restore was decided (nulls but `id` for a deleted
 * contact). `deal` is event-carried state, as in `DealStatusChanged`: the read
 * models rebuild the deal from this one event. Version 2: the personal fields of
 * `deal`'s contact and assigned user may be null (erased).
 */
export const DealRestored = t.type({
  type: t.literal('DealRestored'),
  data: t.type({ dealId: t.string, companyId: t.string, restoredAt: t.string, deal: DealSnapshot }),
});
export type DealRestored = t.TypeOf<typeof DealRestored>;

export const DealEvent = t.union([DealCreated, DealStatusChanged, DealContactRefreshed, DealDeleted, DealRestored]);
export type DealEvent = t.TypeOf<typeof DealEvent>;

export const DEAL_EVENT_TYPES: ReadonlySet<DealEvent['type']> = new Set([
  'DealCreated',
  'DealStatusChanged',
  'DealContactRefreshed',
  'DealDeleted',
  'DealRestored',
]);

/** The stream of one deal. */
export const dealStream = (dealId: string): string => `deal-${dealId}`;

import * as t from 'io-ts';
import type { DealSnapshot } from './dealEvents.js';

const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/**
 * The `data` of a `deal.won` webhook, exactly the specification's fields: the
 * deal's `id`, `title`, `value`, `currency`, `stage`, `status` (always `won`), the
 * won timestamp `wonAt` (the deal's `actualCloseDate`) and its contact as
 * `{id, name, email}` (null when the deal has none; `name` and `email` null when
 * the contact is deleted, or read as null: erased).
 */
export const DealWonData = t.type({
  id: t.string,
  title: t.string,
  value: t.number,
  currency: t.string,
  stage: nullable(t.string),
  status: t.literal('won'),
  wonAt: t.string,
  contact: nullable(t.type({ id: t.string, name: nullable(t.string), email: nullable(t.string) })),
});
export type DealWonData = t.TypeOf<typeof DealWonData>;

/** `deal.won` data: the specification's fields; `wonAt` is the close date (a won deal always has one). */
export const dealWonData = (deal: DealSnapshot, changedAt: string): DealWonData => ({
  id: deal.id,
  title: deal.title,
  value: deal.value,
  currency: deal.currency,
  stage: deal.stage,
  status: 'won',
  wonAt: deal.actualCloseDate ?? changedAt,
  contact: deal.contact && { id: deal.contact.id, name: deal.contact.name, email: deal.contact.email },
});

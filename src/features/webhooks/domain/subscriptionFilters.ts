import type { DerivedWebhookEvent, WebhookEventCatalogue } from '../../webhookEvents/index.js';

/** A subscription's filters as stored (`null`: none): only contact tags exist. */
export type SubscriptionFilters = { readonly tags?: readonly string[] } | null;

/**
 * Whether a subscription with these filters receives this webhook event.
 *
 * - No filters, or no (or an empty list of) tags: every event of the subscribed type.
 * - `tags` apply to contact events only and mean **any**: the contact carries at
 *   least one of them after the change, or carried it until this change removed
 *   it (so a receiver learns that a contact left its set). Integrations subscribe to
 *   "VIP or partner"; with "all", that would need one subscription per tag and
 *   deliver a contact tagged with both twice, while an "all" need can still be met
 *   by checking the delivered contact's `tags`.
 * - Tags compare exactly (case-sensitive, as contacts store them: `VIP` and `vip`
 *   are two tags of a contact too); both sides are trimmed on input.
 * - Deal events ignore tag filters: a deal has no tags (its contact summary
 *   carries none), and dropping every deal event of a subscription that happens to
 *   have a tag filter would silently deliver nothing.
 */
export const matchesFilters = (
  filters: SubscriptionFilters,
  derived: Pick<DerivedWebhookEvent, 'type' | 'tags'>,
  types: Pick<WebhookEventCatalogue, 'isTagged'>,
): boolean => {
  const wanted = filters?.tags;
  if (wanted === undefined || wanted.length === 0) return true;
  if (!types.isTagged(derived.type)) return true;
  return wanted.some((tag) => derived.tags.includes(tag));
};

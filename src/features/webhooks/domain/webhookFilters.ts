import * as t from 'io-ts';

export const MAX_FILTER_TAGS = 50;
export const MAX_FILTER_TAG_LENGTH = 50;

/**
 * A subscription's filters as stored: only contact `tags` for now (the one shape
 * the specification names). `null`: no filter, every event of the type is delivered.
 */
export const WebhookFilters = t.union([t.partial({ tags: t.array(t.string) }), t.null], 'WebhookFilters');
export type WebhookFilters = t.TypeOf<typeof WebhookFilters>;

const isPlainObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u);

const FILTERS_SHAPE = `filters must be an object {"tags": [...]} with 1 to ${MAX_FILTER_TAGS} tags`;

/**
 * `filters` of a subscribe request. Absent or `null`: no filter. Otherwise exactly
 * `{tags}`: 1–50 strings, each trimmed to 1–50 characters (as contact tags are),
 * duplicates dropped in order. Any other key is refused rather than ignored, so a
 * client never believes a filter applies that does not.
 */
export const WebhookFiltersInput = new t.Type<WebhookFilters, WebhookFilters, unknown>(
  'WebhookFiltersInput',
  WebhookFilters.is,
  (u, c) => {
    if (u === undefined || u === null) return t.success(null);
    if (!isPlainObject(u)) return t.failure(u, c, FILTERS_SHAPE);
    const unknown = Object.keys(u).filter((key) => key !== 'tags');
    if (unknown.length > 0) {
      return t.failure(u, c, `filters may only hold tags (unknown: ${unknown.map((key) => JSON.stringify(key)).join(', ')})`);
    }
    const raw = u.tags;
    if (!Array.isArray(raw) || raw.length === 0 || !raw.every((tag): tag is string => typeof tag === 'string')) {
      return t.failure(u, c, FILTERS_SHAPE);
    }
    const tags: string[] = [];
    for (const value of raw) {
      const tag = value.trim();
      if (tag.length < 1 || tag.length > MAX_FILTER_TAG_LENGTH) {
        return t.failure(u, c, `each filter tag must be 1 to ${MAX_FILTER_TAG_LENGTH} characters`);
      }
      if (!tags.includes(tag)) tags.push(tag);
    }
    return tags.length <= MAX_FILTER_TAGS ? t.success({ tags }) : t.failure(u, c, FILTERS_SHAPE);
  },
  t.identity,
);

import type { Context } from 'koa';
import type { RevisionPrecondition } from '../application/commands/PreconditionFailedError.js';
import type { DocumentView, ReadModelDocument } from '../application/ports/ReadModelStore.js';

/** A read model's document with the stream revision its ETag carries. */
interface EntityDocument extends ReadModelDocument {
  readonly revision?: number;
}

/**
 * Conditional requests (RFC 9110, section 13) on contacts and deals, with ETags
 * built from the read-model document: `"<revision>-<position>"`, the revision of
 * the entity's own stream and the log position of the last event the document
 * applied. The position makes the tag change whenever the representation does
 * (a deal's embedded contact moves it without the deal's revision); the revision
 * is what `If-Match` carries to the append as its expected revision.
 */

export const ETAG_HEADER = 'ETag';
export const IF_MATCH_HEADER = 'If-Match';

/** The strong ETag of a document, or null for a document without a revision (projected before it was kept). */
export const entityTagOf = (doc: { readonly revision?: number; readonly position: string }): string | null =>
  doc.revision === undefined ? null : `"${doc.revision}-${doc.position}"`;

/** An entity-tag of a header (`W/"…"` or `"…"`), or the header's `*`. */
type EntityTags = '*' | readonly { readonly weak: boolean; readonly opaque: string }[];

const TAG = /\s*(W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(?:,|$)/y;

/**
 * `*`, or the comma-separated entity-tags of an `If-Match` / `If-None-Match`
 * value. Anything that is not an entity-tag ends the list (it can match nothing).
 */
export const parseEntityTags = (value: string): EntityTags => {
  if (value.trim() === '*') return '*';
  const tags: { weak: boolean; opaque: string }[] = [];
  TAG.lastIndex = 0;
  for (let match = TAG.exec(value); match !== null && match[0] !== ''; match = TAG.exec(value)) {
    tags.push({ weak: match[1] !== undefined, opaque: match[2]! });
  }
  return tags;
};

/** Our opaque tag: revision, then position. */
const OURS = /^(0|[1-9][0-9]*)-(0|[1-9][0-9]*)$/;

/**
 * The precondition of an `If-Match` header, for the write's append: `*` accepts any
 * revision (the entity must exist); a list accepts the revisions of its strong tags
 * of our form (strong comparison: a weak tag never matches; a foreign tag matches
 * nothing). Undefined without the header: the write is unconditional.
 */
export const ifMatchPrecondition = (ctx: Pick<Context, 'get'>): RevisionPrecondition | undefined => {
  const raw = ctx.get(IF_MATCH_HEADER);
  if (raw === '') return undefined;
  const tags = parseEntityTags(raw);
  if (tags === '*') return () => true;
  const revisions = new Set(
    tags.flatMap((tag) => {
      const ours = tag.weak ? null : OURS.exec(tag.opaque);
      return ours ? [Number(ours[1])] : [];
    }),
  );
  return (revision) => revisions.has(revision);
};

/**
 * Whether an `If-None-Match` value names the current tag: `*` (the document
 * exists), or any listed tag by weak comparison (RFC 9110, 13.1.2). Evaluated as
 * an origin server does: a request's `Cache-Control: no-cache` (which fetch adds to
 * every conditional request) is for caches and does not turn it off, hence not
 * Koa's `fresh`.
 */
export const ifNoneMatchNames = (value: string, currentTag: string): boolean => {
  const tags = parseEntityTags(value);
  if (tags === '*') return true;
  const current = currentTag.replace(/^W\//, '').slice(1, -1);
  return tags.some((tag) => tag.opaque === current);
};

/**
 * Answers a GET of one document with its view (see `DocumentCollection.getView`):
 * `{"success":true,"data":<view>}` around the view's JSON text as it is, the ETag,
 * and 304 without a body when `If-None-Match` names it.
 */
export const answerWithEntityTag = (ctx: Context, { doc, json }: DocumentView<EntityDocument>): void => {
  ctx.type = 'application/json';
  ctx.body = `{"success":true,"data":${json}}`;
  const tag = entityTagOf(doc);
  if (tag === null) return;
  ctx.set(ETAG_HEADER, tag);
  const ifNoneMatch = ctx.get('If-None-Match');
  if (ifNoneMatch !== '' && ifNoneMatchNames(ifNoneMatch, tag)) ctx.status = 304;
};

/** After a write: the ETag of the document it produced, when the read model holds exactly that revision. */
export const setEntityTagAfterWrite = (
  ctx: Pick<Context, 'set'>,
  doc: { readonly revision?: number; readonly position: string } | null,
  revision: number,
): void => {
  const tag = doc && doc.revision === revision ? entityTagOf(doc) : null;
  if (tag !== null) ctx.set(ETAG_HEADER, tag);
};

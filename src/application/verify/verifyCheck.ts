import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import type { Expected, Observed, ReadModelCheck } from './ReadModelCheck.js';
import type { AggregateFold, LogFolds } from './logFolds.js';

/**
 * How `chronicle verify` checks one read model against the streams it is built
 * from: what the aggregates' folded state says a document holds (`expected`) and
 * what the document holds (`observed`), on the same fields. Each read model's
 * check sits beside its projection and is registered with it (src/features).
 */
export const check = <D extends ReadModelDocument>(definition: {
  readonly projection: Projection<D>;
  readonly folds: readonly AggregateFold<unknown>[];
  expected(folds: LogFolds): Iterable<Expected>;
  observed(doc: D): Observed;
}): ReadModelCheck => definition as unknown as ReadModelCheck;

const companyScoped = (companyId: string, id: string): string => `${companyId}/${id}`;

/** Each stream of `aggregate` whose state describes a document, as `describe` maps it. */
export function* expectedFrom<State>(
  folds: LogFolds,
  aggregate: AggregateFold<State>,
  describe: (state: State) => { readonly companyId: string; readonly id: string; readonly fields: Record<string, unknown> } | null,
): Iterable<Expected> {
  for (const [stream, state] of folds.streamsOf(aggregate)) {
    const described = describe(state);
    if (described === null) continue;
    const key = companyScoped(described.companyId, described.id);
    yield { key, label: key, stream, fields: described.fields };
  }
}

/** A document keyed and named as `<companyId>/<id>`, with the fields compared. */
export const observedAt = (doc: ReadModelDocument, fields: Record<string, unknown>): Observed => {
  const key = companyScoped(doc.companyId, doc.id);
  return { key, label: key, position: doc.position, fields };
};

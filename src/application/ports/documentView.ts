import type { DocumentView, Projection, ReadModelDocument } from './ReadModelStore.js';

/** The field a projection's GET answers (`Projection.view`); throws when it names none. */
export const viewFieldOf = <D extends ReadModelDocument>(projection: Projection<D>): string => {
  if (projection.view === undefined) throw new Error(`Read model ${projection.name} names no view`);
  return projection.view;
};

/** A document's view, serialized from the document: for adapters that keep documents as objects. */
export const serializedView = <D extends ReadModelDocument>(projection: Projection<D>, doc: D | null): DocumentView<D> | null =>
  doc === null ? null : { doc, json: JSON.stringify((doc as Record<string, unknown>)[viewFieldOf(projection)] ?? null) };

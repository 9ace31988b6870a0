import type { RecordedEvent } from '../ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';

/** One field a change set, cleared or changed: its value before and after (undefined: not set, null included). */
export interface FieldChange {
  readonly field: string;
  readonly before: unknown;
  readonly after: unknown;
}

/** One stored event of an entity, with what it changed in the entity as the read model shows it. */
export interface EntityChange {
  readonly event: RecordedEvent;
  /** Field by field; none for a deletion, a restore or an erasure (`lifecycle`), which change no field. */
  readonly changes: readonly FieldChange[];
  /** The entity left the read model (`deleted`), came back to it as it was (`restored`), or was erased for good (`erased`). */
  readonly lifecycle?: 'deleted' | 'restored' | 'erased';
}

/** Fields that every change moves (`updatedAt`): shown with the event's time, not as a change of their own. */
const ALWAYS_MOVING = new Set(['updatedAt']);

/** A field the view shows as null is as unset as one it leaves out: a record created without a city did not "change" it. */
const valueOf = (view: Record<string, unknown>, field: string): unknown => view[field] ?? undefined;

const differs = (a: unknown, b: unknown): boolean => JSON.stringify(a) !== JSON.stringify(b);

/**
 * An entity's stored events (in log order), each with the fields it changed,
 * field by field: the read model's own `evolve` folds them one by one, and the
 * view (`viewOf`) before and after each is compared. So a change reads exactly
 * as the API would have shown the record before and after it, whatever shape the
 * event was stored in (events come upcast to their current shape). An event that
 * takes the record out of the read model is its deletion, and one that brings it
 * back after that its restore: neither lists fields (`lifecycle`); nor does an
 * event of `erasures`.
 */
export const entityChanges = <D extends ReadModelDocument>(
  events: readonly RecordedEvent[],
  projection: Projection<D>,
  viewOf: (doc: D) => object,
  /** The stored event types that erase the entity (`ContactErased`): an erasure, whatever the read model did before it. */
  erasures: ReadonlySet<string> = new Set(),
): EntityChange[] => {
  let doc: D | null = null;
  let deleted = false;
  return events.map((event): EntityChange => {
    if (erasures.has(event.type)) {
      doc = projection.eventTypes.has(event.type) ? projection.evolve(doc, event) : doc;
      return { event, changes: [], lifecycle: 'erased' };
    }
    if (!projection.eventTypes.has(event.type)) return { event, changes: [] };
    const was = doc;
    const before: Record<string, unknown> = doc ? { ...viewOf(doc) } : {};
    doc = projection.evolve(doc, event);
    // A record gone from the read model, or back in it as it was: no field of it changed.
    if (was !== null && doc === null) {
      deleted = true;
      return { event, changes: [], lifecycle: 'deleted' };
    }
    if (was === null && doc !== null && deleted) {
      deleted = false;
      return { event, changes: [], lifecycle: 'restored' };
    }
    const after: Record<string, unknown> = doc ? { ...viewOf(doc) } : {};
    const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((field) => !ALWAYS_MOVING.has(field));
    const changes = fields
      .map((field) => ({ field, before: valueOf(before, field), after: valueOf(after, field) }))
      .filter((change) => differs(change.before, change.after));
    return { event, changes };
  });
};

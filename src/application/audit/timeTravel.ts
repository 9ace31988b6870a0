import type { RecordedEvent } from '../ports/EventStore.js';
import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import { comparePositions } from '../../shared/Position.js';

/**
 * The events (of one or several streams) that make up the state at `asOf` (an
 * ISO 8601 instant): in log order, up to the first one recorded after it. A
 * prefix of the log, so the state folded from it is one that really existed,
 * even if a clock stepped back between two appends.
 */
export const eventsAsOf = (events: readonly RecordedEvent[], asOf: string): RecordedEvent[] => {
  const instant = Date.parse(asOf);
  const inLogOrder = [...events].sort((a, b) => comparePositions(a.position, b.position));
  const end = inLogOrder.findIndex((event) => Date.parse(event.recordedAt) > instant);
  return end < 0 ? inLogOrder : inLogOrder.slice(0, end);
};

/**
 * Folds events with a read model's own `evolve` (skipping the types it does not
 * handle), so a past state has exactly the shape the read model serves now.
 */
export const foldDocument = <D extends ReadModelDocument>(projection: Projection<D>, events: readonly RecordedEvent[]): D | null =>
  events.reduce<D | null>((doc, event) => (projection.eventTypes.has(event.type) ? projection.evolve(doc, event) : doc), null);

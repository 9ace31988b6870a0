import type { RecordedEvent } from '../../application/ports/EventStore.js';
import type { Projection, ProjectionTarget, ReadModelDocument } from '../../application/ports/ReadModelStore.js';
import { comparePositions, type Position } from '../../shared/Position.js';
import { valueAt } from './readModelLayout.js';

/**
 * The fold of a batch of events over the documents it touches, shared by the
 * read-model stores that write a batch as a whole (SQLite, PostgreSQL): each
 * document is loaded once, folded in memory event after event, and written once
 * by its store. A store keeps what it needs to write a document in its slot
 * (its row, what it was stored and counted under), beside the fields here.
 */
export interface FoldSlot<D extends ReadModelDocument, C> {
  readonly companyId: string;
  readonly id: string;
  doc: D | null;
  /** What orders the document by creation (the store's form of the position that created it). */
  created: C | null;
  /** Order of creation within the batch (documents created in it are inserted in this order). */
  createdOrder: number;
  changed: boolean;
}

/** An event with the documents it is for (`projection.targets`). */
export interface PlannedEvent {
  readonly event: RecordedEvent;
  readonly targets: readonly ProjectionTarget[];
}

/** The events of the batch the projection folds, each with its targets (events with none left out). */
export const plannedEvents = <D extends ReadModelDocument>(projection: Projection<D>, events: readonly RecordedEvent[]): PlannedEvent[] =>
  events
    .filter((event) => projection.eventTypes.has(event.type))
    .map((event) => ({ event, targets: projection.targets(event) }))
    .filter(({ targets }) => targets.length > 0);

const slotKey = (companyId: string, id: string): string => `${companyId}\u0000${id}`;

/** The documents one batch touches, each once (by company and id), and the fold of the batch into them. */
export class BatchFold<D extends ReadModelDocument, C, S extends FoldSlot<D, C>> {
  private readonly slots = new Map<string, S>();
  private readonly touchedByCompany = new Map<string, S[]>();
  private creations = 0;

  constructor(
    private readonly projection: Projection<D>,
    /** The slot's `created` for a document that an event at this position creates. */
    private readonly createdBy: (position: Position) => C,
  ) {}

  /** The slot of a document, if the batch has one for it. */
  get(companyId: string, id: string): S | undefined {
    return this.slots.get(slotKey(companyId, id));
  }

  has(companyId: string, id: string): boolean {
    return this.slots.has(slotKey(companyId, id));
  }

  /** Takes a document into the batch (a stored one, or one not stored yet). */
  remember(slot: S): S {
    this.slots.set(slotKey(slot.companyId, slot.id), slot);
    let touched = this.touchedByCompany.get(slot.companyId);
    if (!touched) this.touchedByCompany.set(slot.companyId, (touched = []));
    touched.push(slot);
    return slot;
  }

  /**
   * The documents of a where-target: those of its company in the batch whose field
   * holds its value at this point of the batch (the store has taken in those stored
   * with the value before).
   */
  holding(target: Extract<ProjectionTarget, { kind: 'where' }>): S[] {
    return (this.touchedByCompany.get(target.companyId) ?? []).filter((slot) => slot.doc !== null && valueAt(slot.doc, target.field) === target.value);
  }

  /**
   * Folds the events, in log order, into the documents their targets match
   * (`match`: the store's slots for a target), each event at most once into a
   * document whatever number of its targets match it, and never into a document
   * that already holds it.
   */
  foldAll(planned: Iterable<PlannedEvent>, match: (target: ProjectionTarget) => S[]): void {
    for (const { event, targets } of planned) {
      const applied = new Set<S>();
      for (const target of targets) {
        for (const slot of match(target)) {
          if (applied.has(slot)) continue;
          applied.add(slot);
          this.fold(slot, event);
        }
      }
    }
  }

  /** The documents the batch changed, to write. */
  changed(): S[] {
    return [...this.slots.values()].filter((slot) => slot.changed);
  }

  private fold(slot: S, event: RecordedEvent): void {
    const { projection } = this;
    const doc = slot.doc;
    if (doc !== null && comparePositions(doc.position, event.position) >= 0) return;
    const next = projection.evolve(doc, event);
    if (next === doc) return;
    if (next !== null && (next.id !== slot.id || next.companyId !== slot.companyId)) {
      throw new Error(`Projection ${projection.name} moved document ${slot.companyId}/${slot.id} to ${next.companyId}/${next.id}`);
    }
    if (doc === null && next !== null) {
      slot.created = this.createdBy(event.position);
      slot.createdOrder = this.creations++;
    }
    slot.doc = next;
    slot.changed = true;
  }
}

import type { Projection, ReadModelDocument } from '../ports/ReadModelStore.js';
import type { Position } from '../../shared/Position.js';
import type { AggregateFold, LogFolds } from './logFolds.js';

/** What the log says one document should hold. */
export interface Expected {
  /** Matches the `key` of the document it describes. */
  readonly key: string;
  /** How a difference names the document, e.g. `<companyId>/<id>`. */
  readonly label: string;
  readonly stream: string;
  /** The fields the aggregate's state and the document both carry, as the log has them. */
  readonly fields: Record<string, unknown>;
}

/** What one document holds, on the same fields. */
export interface Observed {
  readonly key: string;
  readonly label: string;
  /** The position of the last event the document applied. */
  readonly position: Position;
  readonly fields: Record<string, unknown>;
}

/** How one read model is checked against the streams it is built from. */
export interface ReadModelCheck {
  readonly projection: Projection<ReadModelDocument>;
  /** The aggregates whose folded streams `expected` reads (their descriptors' `fold`). */
  readonly folds: readonly AggregateFold<unknown>[];
  expected(folds: LogFolds): Iterable<Expected>;
  observed(doc: ReadModelDocument): Observed;
}

import { comparePositions, type Position } from '../../shared/Position.js';

/** What a read of a company must wait for before it answers (see `AnsweredWrites.before`). */
export type ReadWait =
  /** Nothing: the read models hold every write this instance answered for the company. */
  | { readonly kind: 'none' }
  /** The read models must reach `position` first. */
  | { readonly kind: 'wait'; readonly position: Position }
  /** A wait for `position` already ran out: answer now, saying so (`X-Read-Your-Writes: timeout`). */
  | { readonly kind: 'gave-up'; readonly position: Position };

interface Answered {
  position: Position;
  /** True once a read's wait for `position` ran out: later reads do not wait for it again. */
  gaveUp: boolean;
}

const NONE: ReadWait = { kind: 'none' };

/** How many writes between two sweeps of the companies whose writes are all applied. */
const SWEEP_EVERY = 1024;

/**
 * Read-your-writes for the writes that answer before their read models applied
 * them (the creates): per company, the last log position this instance answered a
 * write at. A read of the company waits until the read models hold it, so a client
 * reads what it (or anyone of its company) wrote through this instance, as when
 * the write itself waited; a read of another company never waits for it.
 *
 * When a read's wait runs out (the read models stopped: a stalled projector), the
 * company's later reads answer at once, saying so, until the read models reach that
 * position or a newer write asks for another: one slow read per write, not one per
 * read.
 */
export class AnsweredWrites {
  private readonly companies = new Map<string, Answered>();
  private sinceSweep = 0;

  constructor(private readonly applied: () => Position | null) {}

  /** A write of `companyId` answered at `position`. */
  answered(companyId: string, position: Position): void {
    const known = this.companies.get(companyId);
    if (known === undefined) this.companies.set(companyId, { position, gaveUp: false });
    else if (comparePositions(position, known.position) > 0) {
      known.position = position;
      known.gaveUp = false;
    }
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep();
  }

  /** What a read of `companyId` must wait for now. */
  before(companyId: string): ReadWait {
    const known = this.companies.get(companyId);
    if (known === undefined) return NONE;
    if (this.reached(known.position)) {
      this.companies.delete(companyId);
      return NONE;
    }
    return { kind: known.gaveUp ? 'gave-up' : 'wait', position: known.position };
  }

  /** A read's wait for `position` ran out: the company's reads stop waiting for it. */
  gaveUp(companyId: string, position: Position): void {
    const known = this.companies.get(companyId);
    if (known !== undefined && known.position === position) known.gaveUp = true;
  }

  /** Companies with a write not yet applied (what the tests read of the map). */
  get pending(): number {
    return this.companies.size;
  }

  private reached(position: Position): boolean {
    const applied = this.applied();
    return applied !== null && comparePositions(position, applied) <= 0;
  }

  /** Forgets the companies whose writes are all applied (those that wrote and never read again). */
  private sweep(): void {
    this.sinceSweep = 0;
    for (const [companyId, known] of this.companies) if (this.reached(known.position)) this.companies.delete(companyId);
  }
}

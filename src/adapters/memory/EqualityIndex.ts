/** A value an equality filter compares with. */
export type Scalar = string | number | boolean | null;

/** What `valueAt` answers for a deleted document, or a value no equality filter can match (an object). */
export const UNINDEXED = Symbol('unindexed');

/** The indexed form of a field value: missing counts as null, as the filter's `== null` does. */
export const indexedValue = (raw: unknown): Scalar | typeof UNINDEXED => {
  if (raw === undefined || raw === null) return null;
  return typeof raw === 'string' || typeof raw === 'number' || typeof raw === 'boolean' ? raw : UNINDEXED;
};

/**
 * Equality lookups over one field of one company's documents, for the memory
 * adapter: for each value, the indexes (in the bucket's creation order) of the
 * documents holding it.
 *
 * Built lazily on the first list that filters on the field. Changes never edit
 * the posting lists: a changed or deleted document is noted as dirty and always
 * offered as a candidate; the caller checks every candidate against the filter
 * itself, so stale postings cost a check, never a wrong answer. Once the dirty
 * set is large the index is rebuilt on next use.
 */
export class EqualityIndex {
  private postings = new Map<Scalar, number[]>();
  private indexed = 0;
  private dirty = new Set<number>();

  constructor(
    /** The field's indexed value in document `i` (UNINDEXED when deleted). */
    private readonly valueAt: (i: number) => Scalar | typeof UNINDEXED,
    private readonly size: () => number,
  ) {}

  /** Document `i` changed or was deleted. */
  invalidate(i: number): void {
    if (i < this.indexed) this.dirty.add(i);
  }

  private catchUp(): void {
    const size = this.size();
    if (this.dirty.size > 1024 && this.dirty.size * 20 > size) {
      this.postings = new Map();
      this.indexed = 0;
      this.dirty = new Set();
    }
    for (let i = this.indexed; i < size; i++) {
      const value = this.valueAt(i);
      if (value === UNINDEXED) continue;
      const list = this.postings.get(value);
      if (list) list.push(i);
      else this.postings.set(value, [i]);
    }
    this.indexed = size;
  }

  /**
   * Candidate document indexes for `field == value`, ascending, without repeats:
   * the posting list merged with the dirty documents. A superset of the matches.
   */
  candidates(value: Scalar): number[] {
    this.catchUp();
    const postings = this.postings.get(value) ?? [];
    if (this.dirty.size === 0) return postings;
    const merged = new Set<number>(postings);
    for (const i of this.dirty) merged.add(i);
    return [...merged].sort((a, b) => a - b);
  }
}

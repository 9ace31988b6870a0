/**
 * Case-insensitive literal substring search over one company's documents, for the
 * memory adapter: every document's lower-cased text (aligned with the bucket's
 * creation order) and a trigram index over those texts.
 *
 * A search for a text of 3 or more characters only looks at the documents whose
 * text holds the text's rarest trigram (a posting list, ascending in creation
 * order), plus the documents changed since the index was built; each candidate is
 * then checked with `includes` on its current text, so the answer is exactly that
 * of a full scan. Shorter texts are answered by a scan of the texts.
 *
 * Changes never edit the posting lists: a changed document's text is dropped and
 * its index noted as dirty (always checked directly); once the dirty set is large
 * the index is rebuilt on the next search. Everything is built lazily, on the
 * first search that needs it.
 */
export class SubstringIndex {
  /** Lower-cased text per document index; undefined until needed or after a change. */
  private readonly texts: (string | undefined)[] = [];
  private postings = new Map<string, number[]>();
  /** Documents [0, indexed) have their trigrams in `postings`. */
  private indexed = 0;
  /** Documents changed after they were indexed. */
  private dirty = new Set<number>();

  constructor(
    /** The text of document `i` (lower-cased), or null when it was deleted. */
    private readonly textAt: (i: number) => string | null,
    /** How many documents there are now. */
    private readonly size: () => number,
  ) {}

  /** Document `i` changed or was deleted. */
  invalidate(i: number): void {
    this.texts[i] = undefined;
    if (i < this.indexed) this.dirty.add(i);
  }

  private text(i: number): string | null {
    let text = this.texts[i];
    if (text === undefined) {
      const current = this.textAt(i);
      if (current === null) return null;
      this.texts[i] = text = current;
    }
    return text;
  }

  private catchUp(): void {
    const size = this.size();
    if (this.dirty.size > 1024 && this.dirty.size * 20 > size) {
      this.postings = new Map();
      this.indexed = 0;
      this.dirty = new Set();
    }
    for (let i = this.indexed; i < size; i++) {
      const text = this.text(i);
      if (text === null) continue;
      const seen = new Set<string>();
      for (let c = 0; c + 3 <= text.length; c++) {
        const trigram = text.slice(c, c + 3);
        if (seen.has(trigram)) continue;
        seen.add(trigram);
        const list = this.postings.get(trigram);
        if (list) list.push(i);
        else this.postings.set(trigram, [i]);
      }
    }
    this.indexed = size;
  }

  /** Whether document `i`'s current text contains `needle` (lower-cased). */
  contains(i: number, needle: string): boolean {
    return this.text(i)?.includes(needle) ?? false;
  }

  /**
   * Indexes of the documents whose text contains `needle` (already lower-cased,
   * not empty), in creation order (or reversed).
   */
  *matches(needle: string, ascending: boolean): Generator<number> {
    const size = this.size();
    if (needle.length < 3) {
      for (let n = 0; n < size; n++) {
        const i = ascending ? n : size - 1 - n;
        if (this.text(i)?.includes(needle)) yield i;
      }
      return;
    }
    this.catchUp();
    let rarest: number[] = [];
    for (let c = 0; c + 3 <= needle.length; c++) {
      const list = this.postings.get(needle.slice(c, c + 3)) ?? [];
      if (c === 0 || list.length < rarest.length) rarest = list;
      if (rarest.length === 0) break;
    }
    // Candidates: the rarest posting list merged with the dirty documents, in order, without repeats.
    const dirty = [...this.dirty].sort((a, b) => a - b);
    let p = ascending ? 0 : rarest.length - 1;
    let d = ascending ? 0 : dirty.length - 1;
    const step = ascending ? 1 : -1;
    const inRange = (k: number, length: number) => k >= 0 && k < length;
    let last = -1;
    while (inRange(p, rarest.length) || inRange(d, dirty.length)) {
      let i: number;
      const fromPostings = inRange(p, rarest.length) ? rarest[p]! : undefined;
      const fromDirty = inRange(d, dirty.length) ? dirty[d]! : undefined;
      if (fromDirty === undefined || (fromPostings !== undefined && (ascending ? fromPostings <= fromDirty : fromPostings >= fromDirty))) {
        i = fromPostings!;
        p += step;
      } else {
        i = fromDirty;
        d += step;
      }
      if (i === last) continue;
      last = i;
      if (this.text(i)?.includes(needle)) yield i;
    }
  }
}

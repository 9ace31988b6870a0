import type { ErasedSubject, SubjectKeyStore } from '../../application/ports/SubjectKeyStore.js';

/** What is kept of a subject: its key, or (erased) the time it was erased. */
type Kept = { readonly key: string } | { readonly erasedAt: Date };

/**
 * Subject keys of one process, in memory (tests): nobody else sees them and they
 * go with the process. Each call runs whole before the next, so concurrent calls
 * for one subject agree as the port says.
 */
export class MemorySubjectKeyStore implements SubjectKeyStore {
  private readonly subjects = new Map<string, Kept>();

  async get(subjects: readonly string[]): Promise<ReadonlyMap<string, string>> {
    const keys = new Map<string, string>();
    for (const subject of subjects) {
      const kept = this.subjects.get(subject);
      if (kept !== undefined && 'key' in kept) keys.set(subject, kept.key);
    }
    return keys;
  }

  async putIfAbsent(candidates: ReadonlyMap<string, string>): Promise<ReadonlyMap<string, string>> {
    for (const [subject, key] of candidates) if (!this.subjects.has(subject)) this.subjects.set(subject, { key });
    return this.get([...candidates.keys()]);
  }

  async erase(subject: string, at: Date): Promise<void> {
    const kept = this.subjects.get(subject);
    if (kept === undefined || 'key' in kept) this.subjects.set(subject, { erasedAt: new Date(at.getTime()) });
  }

  async erasedAt(subject: string): Promise<Date | null> {
    const kept = this.subjects.get(subject);
    return kept !== undefined && 'erasedAt' in kept ? new Date(kept.erasedAt.getTime()) : null;
  }

  async erased(): Promise<readonly ErasedSubject[]> {
    const erased: ErasedSubject[] = [];
    for (const [subject, kept] of this.subjects) if ('erasedAt' in kept) erased.push({ subject, erasedAt: new Date(kept.erasedAt.getTime()) });
    return erased.sort((a, b) => a.erasedAt.getTime() - b.erasedAt.getTime() || (a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0));
  }

  async close(): Promise<void> {}
}

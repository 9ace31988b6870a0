/** A subject whose key was destroyed, and when. */
export interface ErasedSubject {
  readonly subject: string;
  readonly erasedAt: Date;
}

/**
 * The data keys of the people whose personal fields Chronicle keeps encrypted
 * (crypto-shredding): one key per subject, `contact:<id>` or `user:<id>` (ids,
 * never a personal value), kept apart from the event log, so that destroying a
 * subject's key makes every copy of its fields unreadable, in every event and
 * every backup of the log.
 *
 * Adapters keep an opaque text per subject (the key, or the key encrypted under
 * SECRETS_KEY: `SubjectKeys` does that, in the application). A subject that was
 * erased keeps a row without a key and the time it was erased, and never gets a
 * key again: a write racing with its erasure cannot make a new one.
 */
export interface SubjectKeyStore {
  /** The key texts of those subjects that have one (absent: none yet, or erased). */
  get(subjects: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /**
   * Keeps the candidate text of each subject that has no key yet and was never
   * erased; keeps the existing key of the others. Answers the key text each subject
   * has now, leaving out the erased ones. Concurrent calls for one subject agree:
   * exactly one candidate is kept.
   */
  putIfAbsent(candidates: ReadonlyMap<string, string>): Promise<ReadonlyMap<string, string>>;
  /**
   * Destroys the subject's key for good and records that it was erased at `at`
   * (kept: the first time). Where the engine can, the key's bytes are overwritten in
   * the store's files at once (SQLite's `secure_delete`); elsewhere they go with
   * the engine's compaction (`chronicle erasures compact`). Erasing a subject never
   * seen, or erased already, is not an error.
   */
  erase(subject: string, at: Date): Promise<void>;
  /** When the subject was erased, or null. */
  erasedAt(subject: string): Promise<Date | null>;
  /**
   * Every subject erased so far, each with when it was (first) erased, in the order
   * of those times (then of the subjects): what `chronicle erasures export` writes.
   */
  erased(): Promise<readonly ErasedSubject[]>;
  /** Releases what the store itself opened (a shared connection stays open). */
  close(): Promise<void>;
}

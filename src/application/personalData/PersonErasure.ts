import type { IdempotencyStore, StoredResponse } from '../ports/IdempotencyStore.js';
import type { ReadModelStore } from '../ports/ReadModelStore.js';
import type { Logger } from '../ports/Logger.js';
import type { SubjectKind } from '../../shared/PersonalData.js';
import { erasePersonFrom, type ErasedPerson } from './erasePerson.js';
import { subjectOf } from './SubjectKeys.js';
import type { ErasableKeys } from '../ports/Stores.js';
import type { ErasureJournal } from '../ports/ErasureJournal.js';
import type { CompanyExportStore } from '../ports/CompanyExportStore.js';

export interface PersonErasureDeps {
  /** The people's keys; absent where the log seals nothing (a test's bare stores): nothing to destroy. */
  readonly keys?: ErasableKeys;
  readonly idempotency: Pick<IdempotencyStore, 'eraseMentions'>;
  readonly readModels: Pick<ReadModelStore, 'compact'>;
  /** The names of each kind's fields in an object with their id (`PERSON_FIELDS`). */
  readonly personFields: ReadonlyMap<SubjectKind, ReadonlySet<string>>;
  /** Told what each erasure did and how long it took (ids and counts only). */
  readonly logger?: Logger;
  /** Where each erasure is written down before its key is destroyed (ERASURE_JOURNAL); absent: nowhere. */
  readonly journal?: ErasureJournal;
  /** The companies' exports: every export of the company is deleted (its archive holds the person's values). */
  readonly exports?: Pick<CompanyExportStore, 'deleteCompany'>;
}

/**
 * What erasing a person does besides recording it in their stream (`ContactErased`):
 *
 * - `forget`: the erasure is written down in the erasure journal, when there is
 *   one (so that restoring a backup taken before it cannot bring the person
 *   back: `reapplyErasures`); the responses kept for `Idempotency-Key` replays lose the person's
 *   values (the one that answered with the person's own record answers `gone`
 *   instead, whatever is sent with its key), then the person's key is destroyed,
 *   so that every value sealed with it, in any stream, reads as null; and every
 *   export of the company is deleted, since its archive holds the person's values
 *   as they were (a new export shows them as null). Each step is
 *   done again, to no effect, by an erase sent again: a crash between them is
 *   finished by the retry.
 * - `compactNow`: once the read models have applied the erasure, what the engine
 *   needs at once so that no byte of its files keeps the values (SQLite: full-text
 *   indexes merged, write-ahead logs emptied).
 *
 * The read models (their projections follow the erasure event) and the webhook
 * outbox (the fan-out rewrites it as it passes the event) erase their copies
 * themselves.
 */
export class PersonErasure {
  constructor(private readonly deps: PersonErasureDeps) {}

  async forget(companyId: string, person: ErasedPerson, at: Date, gone: StoredResponse): Promise<{ readonly keptResponses: number }> {
    await this.deps.journal?.append({ kind: person.kind, id: person.id, companyId, erasedAt: at.toISOString() });
    const fields = this.deps.personFields.get(person.kind) ?? new Set<string>();
    const keptResponses = await this.deps.idempotency.eraseMentions(companyId, person.id, (response) => {
      const data = (response.body as { data?: { id?: unknown } } | null)?.data;
      if (data?.id === person.id) return gone;
      return { ...response, body: erasePersonFrom(response.body, person, fields).value };
    });
    await this.deps.keys?.erase(subjectOf(person.kind, person.id), at);
    const deletedExports = (await this.deps.exports?.deleteCompany(companyId)) ?? 0;
    this.deps.logger?.info({ kind: person.kind, id: person.id, keptResponses, deletedExports }, 'erasure: key destroyed, kept responses rewritten, exports deleted');
    return { keptResponses };
  }

  /**
   * A person of a company being erased whole: the erasure written down in the
   * journal, then their key destroyed. Their kept responses go with the
   * company's (`IdempotencyStore.forgetCompany`); a user's, which the admin API
   * keeps too, are rewritten by `forget` instead.
   */
  async forgetKey(companyId: string, person: ErasedPerson, at: Date): Promise<void> {
    await this.deps.journal?.append({ kind: person.kind, id: person.id, companyId, erasedAt: at.toISOString() });
    await this.deps.keys?.erase(subjectOf(person.kind, person.id), at);
  }

  /**
   * The key of the company's own subject (`company:<id>`), whatever the key store
   * holds for it: anything sealed with it is unreadable. The company's exports go
   * with it (their archives hold every person's values as they were).
   */
  async forgetCompanyKey(companyId: string, at: Date): Promise<void> {
    // Written down first, as a person's erasure is: after a restore, the company is deleted again (`companyEraser`).
    await this.deps.journal?.append({ kind: 'company', id: companyId, companyId, erasedAt: at.toISOString() });
    await this.deps.keys?.erase(subjectOf('company', companyId), at);
    const deletedExports = (await this.deps.exports?.deleteCompany(companyId)) ?? 0;
    this.deps.logger?.info({ companyId, deletedExports }, 'erasure: the company\'s key destroyed, its exports deleted');
  }

  /** Answers whether every write-ahead log could be emptied (false: a reader kept one; `chronicle erasures compact` finishes it). */
  async compactNow(): Promise<{ readonly walTruncated: boolean }> {
    const started = performance.now();
    const compacted = (await this.deps.readModels.compact?.()) ?? { walTruncated: true };
    const ms = Math.round(performance.now() - started);
    this.deps.logger?.info({ ms, walTruncated: compacted.walTruncated }, 'erasure: read models compacted');
    return compacted;
  }
}

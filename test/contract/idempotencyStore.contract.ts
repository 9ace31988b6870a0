import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ADMIN_SCOPE_PREFIX, ERASED_FINGERPRINT, type IdempotencyStore, type StoredResponse } from '../../src/application/ports/IdempotencyStore.js';

export interface IdempotencyStoreUnderTest {
  readonly store: IdempotencyStore;
  /** Another store on the same storage (another process, another instance, a restart). */
  readonly reopen: () => Promise<IdempotencyStore>;
  readonly dispose: () => Promise<void>;
}

const CLAIM_TTL_MS = 60_000;
const RETENTION_MS = 24 * 3600_000;
const T0 = new Date('2026-03-01T10:00:00.000Z');
const later = (ms: number): Date => new Date(T0.getTime() + ms);

const response: StoredResponse = {
  status: 201,
  body: { success: true, data: { id: 'c1', name: 'Ada', $weird: { 'dotted.key': 1 } } },
  headers: { 'X-Log-Position': '42' },
};

/**
 * The IdempotencyStore contract, run for every adapter. Companies and keys are
 * unique per test, so a shared server is fine.
 */
export const idempotencyStoreContract = (name: string, make: () => Promise<IdempotencyStoreUnderTest>): void => {
  describe(`IdempotencyStore: ${name}`, () => {
    let made: IdempotencyStoreUnderTest;
    let companyId: string;
    beforeEach(async () => {
      made = await make();
      companyId = randomUUID();
    });
    afterEach(() => made.dispose());

    const claim = (store: IdempotencyStore, key: string, now = T0, fingerprint = 'fp-1') =>
      store.claim({ companyId, key, fingerprint, now, claimTtlMs: CLAIM_TTL_MS });

    const claimed = async (store: IdempotencyStore, key: string, now = T0, fingerprint = 'fp-1'): Promise<string> => {
      const outcome = await claim(store, key, now, fingerprint);
      if (outcome.kind !== 'claimed') throw new Error(`expected a claim, got ${outcome.kind}`);
      return outcome.token;
    };

    it('claims a new key, and tells a second claim that the first is in flight (with its fingerprint)', async () => {
      await claimed(made.store, 'k1');
      expect(await claim(made.store, 'k1', later(1000), 'fp-2')).to.deep.equal({ kind: 'in_flight', fingerprint: 'fp-1' });
    });

    it('gives the completed response back, exactly, for the retention time', async () => {
      const token = await claimed(made.store, 'k1');
      expect(await made.store.complete({ companyId, key: 'k1', token, response, now: later(500), retentionMs: RETENTION_MS })).to.equal(true);
      expect(await claim(made.store, 'k1', later(RETENTION_MS))).to.deep.equal({ kind: 'completed', fingerprint: 'fp-1', response });
    });

    it('frees the key once the response is older than the retention time', async () => {
      const token = await claimed(made.store, 'k1');
      await made.store.complete({ companyId, key: 'k1', token, response, now: T0, retentionMs: RETENTION_MS });
      const outcome = await claim(made.store, 'k1', later(RETENTION_MS + 1), 'fp-2');
      expect(outcome.kind).to.equal('claimed');
    });

    it('lets a new request take over a claim older than its ttl (the first presumed crashed); the old token can no longer complete', async () => {
      const first = await claimed(made.store, 'k1');
      const second = await claimed(made.store, 'k1', later(CLAIM_TTL_MS + 1));
      expect(second).to.not.equal(first);
      expect(await made.store.complete({ companyId, key: 'k1', token: first, response, now: later(CLAIM_TTL_MS + 2), retentionMs: RETENTION_MS })).to.equal(false);
      await made.store.release({ companyId, key: 'k1', token: first });
      expect((await claim(made.store, 'k1', later(CLAIM_TTL_MS + 3))).kind).to.equal('in_flight');
      expect(await made.store.complete({ companyId, key: 'k1', token: second, response, now: later(CLAIM_TTL_MS + 4), retentionMs: RETENTION_MS })).to.equal(true);
    });

    it('frees a released key for the next request', async () => {
      const token = await claimed(made.store, 'k1');
      await made.store.release({ companyId, key: 'k1', token });
      expect((await claim(made.store, 'k1', later(1))).kind).to.equal('claimed');
    });

    it('keeps a completed response when a stale token releases', async () => {
      const token = await claimed(made.store, 'k1');
      await made.store.complete({ companyId, key: 'k1', token, response, now: T0, retentionMs: RETENTION_MS });
      await made.store.release({ companyId, key: 'k1', token });
      expect((await claim(made.store, 'k1', later(1))).kind).to.equal('completed');
    });

    it('scopes keys to the company: the same key of another company is another record', async () => {
      await claimed(made.store, 'shared-key');
      const other = await made.store.claim({ companyId: randomUUID(), key: 'shared-key', fingerprint: 'fp-9', now: T0, claimTtlMs: CLAIM_TTL_MS });
      expect(other.kind).to.equal('claimed');
    });

    it('lets exactly one of many concurrent claims of one key win, across two stores on the same storage', async () => {
      const other = await made.reopen();
      try {
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => claim(i % 2 === 0 ? made.store : other, 'race')),
        );
        expect(outcomes.filter((o) => o.kind === 'claimed')).to.have.length(1);
        expect(outcomes.filter((o) => o.kind === 'in_flight')).to.have.length(19);
      } finally {
        await other.close();
      }
    });

    it('keeps responses for another store on the same storage (a restart, another process)', async () => {
      const token = await claimed(made.store, 'k1');
      await made.store.complete({ companyId, key: 'k1', token, response, now: T0, retentionMs: RETENTION_MS });
      const other = await made.reopen();
      try {
        expect(await claim(other, 'k1', later(1000))).to.deep.equal({ kind: 'completed', fingerprint: 'fp-1', response });
      } finally {
        await other.close();
      }
    });

    it('rewrites, on erasure, every completed response of the company that mentions the id, and only those', async () => {
      const personId = randomUUID();
      const mentioning: StoredResponse = { status: 201, body: { success: true, data: { id: personId, name: 'Ada Quill' } }, headers: {} };
      const other: StoredResponse = { status: 201, body: { success: true, data: { id: randomUUID(), name: 'Bo' } }, headers: {} };
      const complete = async (key: string, stored: StoredResponse, company = companyId): Promise<void> => {
        const outcome = await made.store.claim({ companyId: company, key, fingerprint: `fp-${key}`, now: T0, claimTtlMs: CLAIM_TTL_MS });
        if (outcome.kind !== 'claimed') throw new Error('expected a claim');
        await made.store.complete({ companyId: company, key, token: outcome.token, response: stored, now: T0, retentionMs: RETENTION_MS });
      };
      const otherCompany = randomUUID();
      await complete('mentions', mentioning);
      await complete('other', other);
      await complete('mentions', mentioning, otherCompany);
      await claimed(made.store, 'in-flight');
      const erased: StoredResponse = { status: 404, body: { success: false, error: { code: 'NOT_FOUND' } }, headers: {} };
      const seen: StoredResponse[] = [];
      const rewrite = (stored: StoredResponse): StoredResponse => {
        seen.push(stored);
        return erased;
      };

      expect(await made.store.eraseMentions(companyId, personId, rewrite)).to.equal(1);

      expect(seen).to.deep.equal([mentioning]);
      expect(await claim(made.store, 'mentions', later(1000), 'fp-any')).to.deep.equal({ kind: 'completed', fingerprint: ERASED_FINGERPRINT, response: erased });
      expect(await claim(made.store, 'other', later(1000))).to.deep.equal({ kind: 'completed', fingerprint: 'fp-other', response: other });
      const elsewhere = await made.store.claim({ companyId: otherCompany, key: 'mentions', fingerprint: 'x', now: later(1000), claimTtlMs: CLAIM_TTL_MS });
      expect(elsewhere).to.deep.equal({ kind: 'completed', fingerprint: 'fp-mentions', response: mentioning });
      expect(await made.store.eraseMentions(companyId, randomUUID(), rewrite)).to.equal(0);
    });

    it('rewrites, on erasure, the admin API\'s responses that mention the id too, under every admin token', async () => {
      const personId = randomUUID();
      const mentioning: StoredResponse = { status: 201, body: { success: true, data: { id: personId, name: 'Ada Quill' } }, headers: {} };
      const complete = async (scope: string, key: string): Promise<void> => {
        const outcome = await made.store.claim({ companyId: scope, key, fingerprint: `fp-${key}`, now: T0, claimTtlMs: CLAIM_TTL_MS });
        if (outcome.kind !== 'claimed') throw new Error('expected a claim');
        await made.store.complete({ companyId: scope, key, token: outcome.token, response: mentioning, now: T0, retentionMs: RETENTION_MS });
      };
      const [tokenA, tokenB, otherCompany] = [`${ADMIN_SCOPE_PREFIX}${randomUUID()}`, `${ADMIN_SCOPE_PREFIX}${randomUUID()}`, randomUUID()];
      await complete(tokenA, 'k-a');
      await complete(tokenB, 'k-b');
      await complete(otherCompany, 'k-c');
      const erased: StoredResponse = { status: 404, body: { success: false }, headers: {} };

      expect(await made.store.eraseMentions(companyId, personId, () => erased)).to.equal(2);

      const replay = (scope: string, key: string) => made.store.claim({ companyId: scope, key, fingerprint: 'x', now: later(1000), claimTtlMs: CLAIM_TTL_MS });
      expect(await replay(tokenA, 'k-a')).to.deep.equal({ kind: 'completed', fingerprint: ERASED_FINGERPRINT, response: erased });
      expect(await replay(tokenB, 'k-b')).to.deep.equal({ kind: 'completed', fingerprint: ERASED_FINGERPRINT, response: erased });
      expect(await replay(otherCompany, 'k-c')).to.deep.equal({ kind: 'completed', fingerprint: 'fp-k-c', response: mentioning });
    });

    it('forgets, on a company\'s erasure, every record of the company (responses and claims), and nothing of another company or of the admin API', async () => {
      const complete = async (scope: string, key: string): Promise<void> => {
        const outcome = await made.store.claim({ companyId: scope, key, fingerprint: `fp-${key}`, now: T0, claimTtlMs: CLAIM_TTL_MS });
        if (outcome.kind !== 'claimed') throw new Error('expected a claim');
        await made.store.complete({ companyId: scope, key, token: outcome.token, response, now: T0, retentionMs: RETENTION_MS });
      };
      const [otherCompany, adminScope] = [randomUUID(), `${ADMIN_SCOPE_PREFIX}${randomUUID()}`];
      await complete(companyId, 'k-1');
      await complete(companyId, 'k-2');
      await claimed(made.store, 'in-flight');
      await complete(otherCompany, 'k-1');
      await complete(adminScope, 'k-1');

      expect(await made.store.forgetCompany(companyId)).to.equal(3);

      // Each key of the company is free again, on this store and on another one over the same storage.
      const reopened = await made.reopen();
      try {
        for (const key of ['k-1', 'k-2', 'in-flight']) expect((await claim(reopened, key, later(1000), 'fp-new')).kind, key).to.equal('claimed');
      } finally {
        await reopened.close();
      }
      const replay = (scope: string) => made.store.claim({ companyId: scope, key: 'k-1', fingerprint: 'x', now: later(1000), claimTtlMs: CLAIM_TTL_MS });
      expect(await replay(otherCompany)).to.deep.equal({ kind: 'completed', fingerprint: 'fp-k-1', response });
      expect(await replay(adminScope)).to.deep.equal({ kind: 'completed', fingerprint: 'fp-k-1', response });
      expect(await made.store.forgetCompany(randomUUID())).to.equal(0);
    });
  });
};

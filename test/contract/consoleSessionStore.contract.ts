import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../src/application/ports/ConsoleSessionStore.js';

export interface ConsoleSessionStoreUnderTest {
  readonly store: ConsoleSessionStore;
  /** Another store on the same storage (another process, another instance); null for a store no other process can see. */
  readonly reopen: (() => Promise<ConsoleSessionStore>) | null;
  readonly dispose: () => Promise<void>;
}

const T0 = new Date('2026-03-01T10:00:00.000Z');
const at = (ms: number): Date => new Date(T0.getTime() + ms);
const IDLE_MS = 30 * 60_000;
const MAX_MS = 8 * 3600_000;

const sessionOf = (overrides: Partial<ConsoleSessionRecord> = {}): ConsoleSessionRecord => ({
  sessionId: randomUUID(),
  companyId: randomUUID(),
  adminTokenId: null,
  secretHash: 'a'.repeat(64),
  createdAt: T0,
  expiresAt: at(MAX_MS),
  idleExpiresAt: at(IDLE_MS),
  ...overrides,
});

/** The ConsoleSessionStore contract, run for every adapter. Session ids are unique per test, so a shared server is fine. */
export const consoleSessionStoreContract = (
  name: string,
  make: () => Promise<ConsoleSessionStoreUnderTest>,
  /** False for a store no other process can see (memory): the test across processes is left out. */
  { shared = true }: { readonly shared?: boolean } = {},
): void => {
  describe(`ConsoleSessionStore: ${name}`, () => {
    let made: ConsoleSessionStoreUnderTest;
    beforeEach(async () => (made = await make()));
    afterEach(() => made.dispose());

    it('resumes an open session with its secret hash, and moves its idle end forward', async () => {
      const session = sessionOf();
      await made.store.open(session);
      const resumed = await made.store.resume(session.sessionId, session.secretHash, at(60_000), IDLE_MS);
      expect(resumed).to.deep.equal({ ...session, idleExpiresAt: at(60_000 + IDLE_MS) });
      // Still open past the first idle end: the resume moved it.
      expect(await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS + 1000), IDLE_MS)).not.to.equal(null);
    });

    it('resumes nothing for an unknown id or another secret hash, and changes nothing then', async () => {
      const session = sessionOf();
      await made.store.open(session);
      expect(await made.store.resume(randomUUID(), session.secretHash, at(1000), IDLE_MS)).to.equal(null);
      expect(await made.store.resume(session.sessionId, 'b'.repeat(64), at(IDLE_MS - 1000), IDLE_MS)).to.equal(null);
      // The wrong secret did not keep it alive: its idle end is still the first one.
      expect(await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS), IDLE_MS)).to.equal(null);
    });

    it('ends a session idle for too long, for good', async () => {
      const session = sessionOf();
      await made.store.open(session);
      expect(await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS), IDLE_MS)).to.equal(null);
      // The refused resume did not move the idle end: it stays ended.
      expect(await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS + 1), IDLE_MS)).to.equal(null);
    });

    it('ends a session at its absolute end however active, and never moves the idle end past it', async () => {
      const session = sessionOf({ expiresAt: at(IDLE_MS + 60_000) });
      await made.store.open(session);
      const late = await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS - 1000), IDLE_MS);
      expect(late?.idleExpiresAt).to.deep.equal(at(IDLE_MS + 60_000));
      expect(await made.store.resume(session.sessionId, session.secretHash, at(IDLE_MS + 60_000), IDLE_MS)).to.equal(null);
    });

    it('ends a session at logout, with its secret hash only', async () => {
      const session = sessionOf();
      await made.store.open(session);
      expect(await made.store.end(session.sessionId, 'b'.repeat(64))).to.equal(false);
      expect(await made.store.end(session.sessionId, session.secretHash)).to.equal(true);
      expect(await made.store.resume(session.sessionId, session.secretHash, at(1000), IDLE_MS)).to.equal(null);
      expect(await made.store.end(session.sessionId, session.secretHash)).to.equal(false);
    });

    it('prunes ended sessions, at most the limit, and keeps open ones', async () => {
      const open = sessionOf({ idleExpiresAt: at(10 * IDLE_MS), expiresAt: at(MAX_MS) });
      const idle = [sessionOf(), sessionOf(), sessionOf()];
      for (const session of [open, ...idle]) await made.store.open(session);
      const now = at(IDLE_MS + 1);
      expect(await made.store.prune(now, 2)).to.equal(2);
      // Other tests' sessions may share the store: prune until none is left, then check ours.
      while ((await made.store.prune(now, 100)) > 0);
      for (const session of idle) expect(await made.store.end(session.sessionId, session.secretHash)).to.equal(false);
      expect(await made.store.resume(open.sessionId, open.secretHash, now, IDLE_MS)).not.to.equal(null);
    });

    it("ends every session of a company at once, and no other company's", async () => {
      const company = randomUUID();
      const ours = [sessionOf({ companyId: company }), sessionOf({ companyId: company, adminTokenId: randomUUID() })];
      const theirs = sessionOf();
      for (const session of [...ours, theirs]) await made.store.open(session);
      expect(await made.store.endAll({ companyId: company })).to.equal(2);
      for (const session of ours) expect(await made.store.resume(session.sessionId, session.secretHash, at(1000), IDLE_MS)).to.equal(null);
      expect(await made.store.resume(theirs.sessionId, theirs.secretHash, at(1000), IDLE_MS)).not.to.equal(null);
      expect(await made.store.endAll({ companyId: company })).to.equal(0);
    });

    it("ends every session an admin token's links opened, in any company, and keeps the others", async () => {
      const token = randomUUID();
      const opened = [sessionOf({ adminTokenId: token }), sessionOf({ adminTokenId: token })];
      const others = [sessionOf({ adminTokenId: randomUUID() }), sessionOf({ adminTokenId: null, companyId: opened[0]!.companyId })];
      for (const session of [...opened, ...others]) await made.store.open(session);
      expect(await made.store.endAll({ adminTokenId: token })).to.equal(2);
      for (const session of opened) expect(await made.store.resume(session.sessionId, session.secretHash, at(1000), IDLE_MS)).to.equal(null);
      for (const session of others) {
        expect(await made.store.resume(session.sessionId, session.secretHash, at(1000), IDLE_MS)).to.deep.include({ adminTokenId: session.adminTokenId });
      }
    });

    // Stores that other processes see (every adapter but memory's).
    if (shared) it('is one store for every process on the same storage: opened in one, resumed and ended in another', async () => {
      const other = await made.reopen!();
      const session = sessionOf();
      await made.store.open(session);
      expect(await other.resume(session.sessionId, session.secretHash, at(1000), IDLE_MS)).not.to.equal(null);
      expect(await other.end(session.sessionId, session.secretHash)).to.equal(true);
      expect(await made.store.resume(session.sessionId, session.secretHash, at(2000), IDLE_MS)).to.equal(null);
      const company = sessionOf();
      await made.store.open(company);
      expect(await other.endAll({ companyId: company.companyId })).to.equal(1);
      expect(await made.store.resume(company.sessionId, company.secretHash, at(1000), IDLE_MS)).to.equal(null);
      await other.close();
    });
  });
};

import type { ConsoleSessionRecord, ConsoleSessionStore } from '../../application/ports/ConsoleSessionStore.js';

/** Console sessions in this process's memory (tests; the contract's reference): no other process sees them. */
export class MemoryConsoleSessionStore implements ConsoleSessionStore {
  private readonly sessions = new Map<string, ConsoleSessionRecord>();

  async open(session: ConsoleSessionRecord): Promise<void> {
    if (this.sessions.has(session.sessionId)) throw new Error(`Console session ${session.sessionId} exists already`);
    this.sessions.set(session.sessionId, session);
  }

  async resume(sessionId: string, secretHash: string, now: Date, idleMs: number): Promise<ConsoleSessionRecord | null> {
    const session = this.sessions.get(sessionId);
    const at = now.getTime();
    if (!session || session.secretHash !== secretHash || session.expiresAt.getTime() <= at || session.idleExpiresAt.getTime() <= at) return null;
    const resumed = { ...session, idleExpiresAt: new Date(Math.min(at + idleMs, session.expiresAt.getTime())) };
    this.sessions.set(sessionId, resumed);
    return resumed;
  }

  async end(sessionId: string, secretHash: string): Promise<boolean> {
    if (this.sessions.get(sessionId)?.secretHash !== secretHash) return false;
    return this.sessions.delete(sessionId);
  }

  async endAll(which: { readonly companyId: string } | { readonly adminTokenId: string }): Promise<number> {
    let ended = 0;
    for (const [id, session] of this.sessions) {
      const matches = 'companyId' in which ? session.companyId === which.companyId : session.adminTokenId === which.adminTokenId;
      if (matches && this.sessions.delete(id)) ended += 1;
    }
    return ended;
  }

  async prune(now: Date, limit: number): Promise<number> {
    let pruned = 0;
    for (const [id, session] of this.sessions) {
      if (pruned >= limit) break;
      if (Math.min(session.expiresAt.getTime(), session.idleExpiresAt.getTime()) <= now.getTime()) {
        this.sessions.delete(id);
        pruned += 1;
      }
    }
    return pruned;
  }

  async close(): Promise<void> {}
}

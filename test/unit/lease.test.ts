import { expect } from 'chai';
import { MemoryLeaseStore } from '../../src/adapters/memory/MemoryLeaseStore.js';
import { Lease, LeaseHeldError, LeaseLostError, type HolderState, type LeaseDeps } from '../../src/application/subscriptions/Lease.js';
import { LoopHealth } from '../../src/application/subscriptions/LoopHealth.js';
import type { LeaseHolder, LeaseStore } from '../../src/application/ports/LeaseStore.js';
import { silentLogger } from '../../src/application/ports/Logger.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually, sleep } from '../support/events.js';

/** A clock the test moves by hand. */
const handClock = (start = '2026-03-04T10:00:00.000Z') => {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
};

const NAME = 'read-models';

describe('Lease (the read models have one writer)', () => {
  /** The store's clock (a database server's) and this process's, moved apart or together by the tests. */
  let storeClock: ReturnType<typeof handClock>;
  let clock: ReturnType<typeof handClock>;
  let leases: MemoryLeaseStore;
  let held: Lease[];
  /** How this process judges each holder pid (default: it runs on this host). */
  const judged = new Map<number, HolderState>();
  const deps = (pid: number, extra: Partial<LeaseDeps> = {}): LeaseDeps => ({
    leases,
    name: NAME,
    claimant: { role: 'projector', pid, host: 'host-1', scope: null },
    judgeHolder: (holder: LeaseHolder) => judged.get(holder.pid) ?? 'running',
    clock,
    logger: silentLogger,
    renewEveryMs: 10,
    staleAfterMs: 15_000,
    ...extra,
  });
  const acquire = async (pid: number, extra: Partial<LeaseDeps> = {}) => {
    const lease = await Lease.acquire(deps(pid, extra));
    held.push(lease);
    return lease;
  };
  const advanceBoth = (ms: number) => {
    storeClock.advance(ms);
    clock.advance(ms);
  };

  beforeEach(() => {
    storeClock = handClock();
    clock = handClock();
    leases = new MemoryLeaseStore(storeClock);
    held = [];
    judged.clear();
  });
  afterEach(async () => {
    for (const lease of held) await lease.release();
  });

  describe('a free lease', () => {
    it('is taken, naming this process, stamped with the store’s time, and freed by release', async () => {
      clock.advance(60_000); // this process's clock runs a minute ahead: the store's time is what is kept
      const lease = await acquire(100);
      expect(await leases.read(NAME)).to.deep.include({ owner: lease.owner, role: 'projector', pid: 100, host: 'host-1', renewedAt: '2026-03-04T10:00:00.000Z' });
      await lease.release();
      expect(await leases.read(NAME)).to.equal(null);
    });
  });

  describe('a lease held by a process running on this host', () => {
    it('is refused at once, with a message naming the holder and what to do', async () => {
      await acquire(100);
      storeClock.advance(14_000);
      const refused = await Lease.acquire(deps(200)).catch((error: unknown) => error);
      expect(refused).to.be.instanceOf(LeaseHeldError);
      const { message } = refused as LeaseHeldError;
      expect(message).to.contain('another process: a projector, pid 100 on host host-1');
      expect(message).to.contain('renewed 14.0 s ago');
      expect(message).to.contain('stop that one first');
      expect(message).to.contain('15 s after its last renewal');
      expect((await leases.read(NAME))?.pid).to.equal(100);
    });

    it('names a replay as a replay', async () => {
      await acquire(100, { claimant: { role: 'replay', pid: 100, host: 'host-1', scope: null } });
      const refused = await Lease.acquire(deps(200)).catch((error: Error) => error);
      expect((refused as Error).message).to.contain('a replay (chronicle replay), pid 100');
    });
  });

  describe('a lease its holder left behind', () => {
    it('is taken over at once when its process is gone from this host', async () => {
      await acquire(100);
      held.splice(0);
      judged.set(100, 'gone');
      const second = await acquire(200);
      expect((await leases.read(NAME))?.pid).to.equal(200);
      expect(second.holder.pid).to.equal(200);
    });

    it('held by a process this one cannot judge (a restarted container): waits, saying so, and takes it once stale by the store’s clock', async () => {
      // The holder crashed: it renews no more. A restarted container is in a new pid namespace, so it cannot tell.
      await acquire(100, { renewEveryMs: 3_600_000 });
      held.splice(0);
      judged.set(100, 'unknown');
      const waiting: string[] = [];
      const logger = captureLogger();
      const taking = acquire(200, { onWaiting: (what) => waiting.push(what), logger });
      await eventually(() => waiting.length > 0, 1000);
      expect(waiting[0]).to.contain('the "read-models" lease, held by a projector, pid 100 on host host-1');
      expect(waiting[0]).to.contain('taken over once not renewed for 15 s');
      expect(logger.lines.map((line) => line.msg)).to.include('waiting for a lease held by a process this one cannot judge');
      advanceBoth(14_000);
      await sleep(50);
      expect((await leases.read(NAME))?.pid, 'not stale yet').to.equal(100);
      advanceBoth(1_000);
      const second = await taking;
      expect(second.holder.pid).to.equal(200);
      expect(logger.lines.map((line) => line.msg)).to.include('taking over a lease its holder left behind');
    });
  });

  describe('a live holder this process cannot judge (another host)', () => {
    it('keeps its lease against a claimant whose clock runs 15 s ahead of the store’s', async () => {
      await acquire(100);
      judged.set(100, 'unknown');
      clock.advance(15_000);
      const waiting: string[] = [];
      const controller = new AbortController();
      const taking = Lease.acquire(deps(200, { onWaiting: (what) => waiting.push(what), signal: controller.signal, waitLimitMs: 3_600_000 }));
      await eventually(() => waiting.length > 0, 1000);
      await sleep(50);
      expect((await leases.read(NAME))?.pid).to.equal(100);
      controller.abort(new Error('stopping'));
      expect(((await taking.catch((error: unknown) => error)) as Error).message).to.equal('stopping');
    });

    it('that keeps renewing is given up on after the wait limit, with LeaseHeldError', async () => {
      await acquire(100);
      judged.set(100, 'unknown');
      const taking = Lease.acquire(deps(200, { waitLimitMs: 30_000 })).catch((error: unknown) => error);
      let outcome: unknown = null;
      void taking.then((value) => (outcome = value));
      for (let i = 0; i < 60 && outcome === null; i++) {
        advanceBoth(1_000);
        await sleep(15); // the holder renews (every 10 ms), the claimant polls
      }
      expect(outcome).to.be.instanceOf(LeaseHeldError);
      expect((outcome as Error).message).to.match(/which kept renewing it for the 3\d s this process waited/);
      expect((await leases.read(NAME))?.pid).to.equal(100);
    });
  });

  describe('renewals', () => {
    it('keep the lease fresh while it is held, by the store’s clock', async () => {
      const lease = await acquire(100);
      storeClock.advance(10_000);
      await eventually(async () => (await leases.read(NAME))?.renewedAt === '2026-03-04T10:00:10.000Z', 1000);
      storeClock.advance(10_000);
      await eventually(async () => (await leases.read(NAME))?.renewedAt === '2026-03-04T10:00:20.000Z', 1000);
      expect(await Lease.acquire(deps(200)).catch((error: Error) => error)).to.be.instanceOf(LeaseHeldError);
      expect((await leases.read(NAME))?.owner).to.equal(lease.owner);
    });

    it('that find another holder tell onLost once, and stop', async () => {
      const lost: LeaseLostError[] = [];
      const first = await acquire(100, { onLost: (error) => lost.push(error) });
      // Another process took it over (this one had not renewed in time).
      await leases.claim(NAME, { owner: 'other', role: 'projector', pid: 300, host: 'host-2', scope: null }, { staleAfterMs: 15_000, replacing: first.owner });
      await eventually(() => lost.length === 1, 1000);
      expect(lost[0]).to.be.instanceOf(LeaseLostError);
      expect(lost[0]!.message).to.contain('lost the "read-models" lease to a projector, pid 300');
      await sleep(50);
      expect(lost).to.have.length(1);
      // Its release leaves the new holder's lease alone.
      await first.release();
      expect((await leases.read(NAME))?.owner).to.equal('other');
    });

    it('that fail are retried, shown as a failing loop until one succeeds', async () => {
      let failing = true;
      const flaky: LeaseStore = {
        read: (name) => leases.read(name),
        claim: (name, holder, claim) => leases.claim(name, holder, claim),
        renew: async (name, owner) => {
          if (failing) throw new Error('store down');
          return leases.renew(name, owner);
        },
        release: (name, owner) => leases.release(name, owner),
      };
      const health = new LoopHealth();
      await acquire(100, { leases: flaky, health });
      await eventually(() => (health.snapshot().lease?.failures ?? 0) >= 2, 1000);
      failing = false;
      await eventually(() => health.snapshot().lease === undefined, 1000);
    });
  });
});

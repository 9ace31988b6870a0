import { expect } from 'chai';
import { MemoryLeaseStore } from '../../src/adapters/memory/MemoryLeaseStore.js';
import { Lease, LeaseHeldError, LeaseLostError, type LeaseDeps } from '../../src/application/subscriptions/Lease.js';
import { LoopHealth } from '../../src/application/subscriptions/LoopHealth.js';
import type { LeaseHolder, LeaseStore } from '../../src/application/ports/LeaseStore.js';
import { silentLogger } from '../../src/application/ports/Logger.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually } from '../support/events.js';

/** A clock the test moves by hand. */
const handClock = (start = '2026-03-04T10:00:00.000Z') => {
  let now = Date.parse(start);
  return { now: () => new Date(now), advance: (ms: number) => void (now += ms) };
};

const NAME = 'read-models';

describe('Lease (the read models have one writer)', () => {
  let leases: MemoryLeaseStore;
  let clock: ReturnType<typeof handClock>;
  let held: Lease[];
  const gone = new Set<number>();
  const deps = (pid: number, extra: Partial<LeaseDeps> = {}): LeaseDeps => ({
    leases,
    name: NAME,
    claimant: { role: 'projector', pid, host: 'host-1', scope: null },
    holderIsGone: (holder: LeaseHolder) => gone.has(holder.pid),
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

  beforeEach(() => {
    leases = new MemoryLeaseStore();
    clock = handClock();
    held = [];
    gone.clear();
  });
  afterEach(async () => {
    for (const lease of held) await lease.release();
  });

  describe('a free lease', () => {
    it('is taken, naming this process, and freed by release', async () => {
      const lease = await acquire(100);
      expect(await leases.read(NAME)).to.deep.include({ owner: lease.owner, role: 'projector', pid: 100, host: 'host-1', renewedAt: '2026-03-04T10:00:00.000Z' });
      await lease.release();
      expect(await leases.read(NAME)).to.equal(null);
    });
  });

  describe('a lease held by a live process, renewed recently', () => {
    it('is refused, with a message naming the holder and what to do', async () => {
      await acquire(100);
      clock.advance(14_000);
      const refused = await Lease.acquire(deps(200)).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).to.be.instanceOf(LeaseHeldError);
      const { message } = refused as LeaseHeldError;
      expect(message).to.contain('another process: a projector, pid 100 on host host-1');
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
    it('is taken over once it was not renewed for the stale bound', async () => {
      // A holder that stopped renewing (frozen, or on a host that went away).
      await acquire(100, { renewEveryMs: 3_600_000 });
      clock.advance(14_999);
      expect(await Lease.acquire(deps(200)).catch((error: Error) => error)).to.be.instanceOf(LeaseHeldError);
      clock.advance(1);
      const logger = captureLogger();
      const second = await acquire(200, { logger });
      expect((await leases.read(NAME))?.owner).to.equal(second.owner);
      expect(logger.lines.map((line) => line.msg)).to.include('taking over a lease its holder left behind');
    });

    it('is taken over at once when its process is gone', async () => {
      await acquire(100);
      held.splice(0);
      gone.add(100);
      const second = await acquire(200);
      expect((await leases.read(NAME))?.pid).to.equal(200);
      expect(second.holder.pid).to.equal(200);
    });
  });

  describe('renewals', () => {
    it('keep the lease fresh while it is held', async () => {
      const lease = await acquire(100);
      clock.advance(10_000);
      await eventually(async () => (await leases.read(NAME))?.renewedAt === '2026-03-04T10:00:10.000Z', 1000);
      clock.advance(10_000);
      // 20 s after it was taken, renewed all along: still refused to another.
      await eventually(async () => (await leases.read(NAME))?.renewedAt === '2026-03-04T10:00:20.000Z', 1000);
      expect(await Lease.acquire(deps(200)).catch((error: Error) => error)).to.be.instanceOf(LeaseHeldError);
      expect((await leases.read(NAME))?.owner).to.equal(lease.owner);
    });

    it('that find another holder tell onLost once, and stop', async () => {
      const lost: LeaseLostError[] = [];
      const first = await acquire(100, { onLost: (error) => lost.push(error) });
      // Another process took it over (this one had not renewed in time).
      await leases.claim(NAME, { ...first.holder, owner: 'other', pid: 300, renewedAt: clock.now().toISOString() }, (await leases.read(NAME))!);
      await eventually(() => lost.length === 1, 1000);
      expect(lost[0]).to.be.instanceOf(LeaseLostError);
      expect(lost[0]!.message).to.contain('lost the "read-models" lease to a projector, pid 300');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(lost).to.have.length(1);
      // Its release leaves the new holder's lease alone.
      await first.release();
      expect((await leases.read(NAME))?.owner).to.equal('other');
    });

    it('that fail are retried, shown as a failing loop until one succeeds', async () => {
      let failing = true;
      const flaky: LeaseStore = {
        read: (name) => leases.read(name),
        claim: (name, record, replacing) => leases.claim(name, record, replacing),
        renew: async (name, owner, at) => {
          if (failing) throw new Error('store down');
          return leases.renew(name, owner, at);
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

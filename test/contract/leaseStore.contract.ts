import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { LeaseHolder, LeaseStore } from '../../src/application/ports/LeaseStore.js';
import { sleep } from '../support/events.js';

export interface LeasesUnderTest {
  /** Two handles on one store (on SQLite two connections to one file, as two processes have): what one writes, the other sees. */
  readonly a: LeaseStore;
  readonly b: LeaseStore;
  readonly dispose: () => Promise<void>;
}

export type MakeLeases = () => Promise<LeasesUnderTest>;

const holder = (owner: string, pid = 4242): LeaseHolder => ({ owner, role: 'projector', pid, host: 'host-1', scope: null });
const LIVE = { staleAfterMs: 15_000 };

/**
 * Runs `work` while this process's JavaScript clock (`Date`) runs `aheadMs` ahead,
 * as a claimant on a machine whose clock is ahead would see time. The store's own
 * clock (a database server's, SQLite's, the memory store's injected one) is not moved.
 */
const withClockAhead = async <T>(aheadMs: number, work: () => Promise<T>): Promise<T> => {
  const RealDate = Date;
  class AheadDate extends RealDate {
    constructor(...args: unknown[]) {
      if (args.length === 0) super(RealDate.now() + aheadMs);
      else super(...(args as [string]));
    }
    static override now(): number {
      return RealDate.now() + aheadMs;
    }
  }
  globalThis.Date = AheadDate as DateConstructor;
  try {
    return await work();
  } finally {
    globalThis.Date = RealDate;
  }
};

/** The LeaseStore contract, run for every adapter. Lease names are unique per test, so a shared store is fine. */
export const leaseStoreContract = (name: string, make: MakeLeases): void => {
  describe(`LeaseStore: ${name}`, () => {
    let stores: LeasesUnderTest;
    let lease: string;
    beforeEach(async () => {
      stores = await make();
      lease = `lease-${randomUUID()}`;
    });
    afterEach(() => stores.dispose());

    it('reads a lease nobody holds as null', async () => {
      expect(await stores.a.read(lease)).to.equal(null);
    });

    it('gives a free lease to exactly one of two claimants, stamped with the store’s time, and shows the holder to both', async () => {
      const [first, second] = await Promise.all([stores.a.claim(lease, holder('A'), LIVE), stores.b.claim(lease, holder('B'), LIVE)]);
      expect([first, second].filter((outcome) => outcome.taken)).to.have.length(1);
      const winner = first.taken ? 'A' : 'B';
      const loser = first.taken ? second : first;
      expect(loser.taken === false && loser.holder?.owner).to.equal(winner);
      const seen = (await stores.b.read(lease))!;
      expect(seen).to.deep.include(holder(winner));
      expect(seen.acquiredAt).to.equal(seen.renewedAt);
      expect(seen.renewedAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      expect(seen.silentMs).to.be.within(0, 5_000);
      expect(await stores.a.read(lease)).to.deep.include(holder(winner));
    });

    it('keeps names apart, and every field of the holder, a scope included', async () => {
      const full: LeaseHolder = { ...holder('A'), role: 'replay', scope: 'boot/pid:[4026531836]' };
      expect((await stores.a.claim(lease, full, LIVE)).taken).to.equal(true);
      expect((await stores.b.claim(`${lease}-other`, holder('B'), LIVE)).taken).to.equal(true);
      expect(await stores.b.read(lease)).to.deep.include(full);
      expect((await stores.a.read(`${lease}-other`))?.owner).to.equal('B');
    });

    it('leaves a lease its holder renews to it, naming the holder', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      const refused = await stores.b.claim(lease, holder('B'), LIVE);
      expect(refused.taken).to.equal(false);
      expect(refused.taken === false && refused.holder).to.deep.include(holder('A'));
      expect((await stores.a.read(lease))?.owner).to.equal('A');
    });

    it('does not let a claimant whose clock runs 15 s ahead take a live lease: staleness is the store’s to judge', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      const refused = await withClockAhead(15_500, () => stores.b.claim(lease, holder('B'), LIVE));
      expect(refused.taken).to.equal(false);
      // Nor does a holder whose clock runs behind make its lease look stale by renewing.
      await withClockAhead(-60_000, () => stores.a.renew(lease, 'A'));
      expect((await stores.b.claim(lease, holder('B'), LIVE)).taken).to.equal(false);
      expect((await stores.b.read(lease))?.silentMs).to.be.below(5_000);
    });

    it('takes over a lease not renewed for the stale bound; its old holder then finds out when it renews', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      await sleep(300);
      expect((await stores.b.read(lease))?.silentMs).to.be.at.least(250);
      const taken = await stores.b.claim(lease, holder('B', 5151), { staleAfterMs: 200 });
      expect(taken.taken).to.equal(true);
      expect(taken.taken && taken.lease).to.deep.include(holder('B', 5151));
      expect(await stores.a.renew(lease, 'A')).to.equal(false);
      expect((await stores.a.read(lease))?.owner).to.equal('B');
    });

    it('keeps a lease fresh with each renewal', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      await sleep(300);
      expect(await stores.a.renew(lease, 'A')).to.equal(true);
      expect((await stores.b.claim(lease, holder('B'), { staleAfterMs: 200 })).taken).to.equal(false);
      expect((await stores.b.read(lease))?.owner).to.equal('A');
    });

    it('takes over at once a lease held by an owner known to be gone, and only that owner’s', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      expect((await stores.b.claim(lease, holder('B'), { ...LIVE, replacing: 'someone-else' })).taken).to.equal(false);
      expect((await stores.b.claim(lease, holder('B'), { ...LIVE, replacing: 'A' })).taken).to.equal(true);
      expect((await stores.a.read(lease))?.owner).to.equal('B');
    });

    it('renews only its own lease', async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      expect(await stores.b.renew(lease, 'B')).to.equal(false);
      expect(await stores.a.renew(`${lease}-none`, 'A')).to.equal(false);
      expect(await stores.a.renew(lease, 'A')).to.equal(true);
    });

    it("releases only its own lease: another's release leaves it, the holder's frees it", async () => {
      await stores.a.claim(lease, holder('A'), LIVE);
      await stores.b.release(lease, 'B');
      expect((await stores.b.read(lease))?.owner).to.equal('A');
      await stores.a.release(lease, 'A');
      expect(await stores.b.read(lease)).to.equal(null);
      expect((await stores.b.claim(lease, holder('B'), LIVE)).taken).to.equal(true);
    });
  });
};

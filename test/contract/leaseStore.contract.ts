import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { LeaseRecord, LeaseStore } from '../../src/application/ports/LeaseStore.js';

export interface LeasesUnderTest {
  /** Two handles on one store (on SQLite two connections to one file, as two processes have): what one writes, the other sees. */
  readonly a: LeaseStore;
  readonly b: LeaseStore;
  readonly dispose: () => Promise<void>;
}

export type MakeLeases = () => Promise<LeasesUnderTest>;

const record = (owner: string, renewedAt = '2026-03-04T10:00:00.000Z', pid = 4242): LeaseRecord => ({
  owner,
  role: 'projector',
  pid,
  host: 'host-1',
  scope: null,
  acquiredAt: '2026-03-04T10:00:00.000Z',
  renewedAt,
});

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

    it('gives a free lease to exactly one of two claimants, and shows the holder to both', async () => {
      const [first, second] = await Promise.all([stores.a.claim(lease, record('A'), null), stores.b.claim(lease, record('B'), null)]);
      expect([first, second].filter(Boolean)).to.have.length(1);
      const winner = first ? 'A' : 'B';
      expect(await stores.a.read(lease)).to.deep.equal(record(winner));
      expect(await stores.b.read(lease)).to.deep.equal(record(winner));
    });

    it('keeps names apart', async () => {
      expect(await stores.a.claim(lease, record('A'), null)).to.equal(true);
      expect(await stores.b.claim(`${lease}-other`, record('B'), null)).to.equal(true);
      expect((await stores.a.read(`${lease}-other`))?.owner).to.equal('B');
    });

    it('keeps every field of the record, a scope included', async () => {
      const full: LeaseRecord = { ...record('A'), role: 'replay', scope: 'boot/pid:[4026531836]' };
      expect(await stores.a.claim(lease, full, null)).to.equal(true);
      expect(await stores.b.read(lease)).to.deep.equal(full);
    });

    it('replaces a holder only as it was read: not after it renewed, not after another replaced it', async () => {
      await stores.a.claim(lease, record('A'), null);
      const seen = (await stores.b.read(lease))!;
      // The holder renews after B read it: B's claim fails.
      expect(await stores.a.renew(lease, 'A', '2026-03-04T10:00:02.000Z')).to.equal(true);
      expect(await stores.b.claim(lease, record('B'), seen)).to.equal(false);
      const renewed = (await stores.b.read(lease))!;
      expect(renewed.renewedAt).to.equal('2026-03-04T10:00:02.000Z');
      // Two take over the same record: one wins.
      const [b, c] = await Promise.all([stores.b.claim(lease, record('B'), renewed), stores.a.claim(lease, record('C'), renewed)]);
      expect([b, c].filter(Boolean)).to.have.length(1);
      // A free lease is not claimed by replacing a holder, nor a held one as free.
      expect(await stores.a.claim(lease, record('D'), null)).to.equal(false);
    });

    it('renews only its own lease, and a holder that was replaced finds out when it renews', async () => {
      await stores.a.claim(lease, record('A'), null);
      expect(await stores.b.renew(lease, 'B', '2026-03-04T10:00:05.000Z')).to.equal(false);
      expect(await stores.b.claim(lease, record('B'), (await stores.b.read(lease))!)).to.equal(true);
      expect(await stores.a.renew(lease, 'A', '2026-03-04T10:00:06.000Z')).to.equal(false);
      expect((await stores.a.read(lease))?.owner).to.equal('B');
      expect(await stores.a.renew(`${lease}-none`, 'A', '2026-03-04T10:00:06.000Z')).to.equal(false);
    });

    it("releases only its own lease: another's release leaves it, the holder's frees it", async () => {
      await stores.a.claim(lease, record('A'), null);
      await stores.b.release(lease, 'B');
      expect((await stores.b.read(lease))?.owner).to.equal('A');
      await stores.a.release(lease, 'A');
      expect(await stores.b.read(lease)).to.equal(null);
      expect(await stores.b.claim(lease, record('B'), null)).to.equal(true);
    });
  });
};

import { expect } from 'chai';
import { REPLICA_RETRY_AFTER_MS, ReplicaReadModels, ReplicaReads, type FollowedProgress } from '../../src/application/queries/ReplicaReadModels.js';
import { PositionWaiters } from '../../src/application/subscriptions/ReadModelProgress.js';
import { comparePositions, type Position } from '../../src/shared/Position.js';
import type { DocumentCollection, ReadModelDocument, ReadModelStore } from '../../src/application/ports/ReadModelStore.js';

/** Progress moved by hand (`reach`), as a followed checkpoint moves. */
const progress = (): FollowedProgress & { reach(position: Position): void } => {
  let current: Position | null = null;
  const waiters = new PositionWaiters();
  return {
    get position() {
      return current;
    },
    waitFor: async (position, timeoutMs) => (current !== null && comparePositions(position, current) <= 0 ? true : waiters.add(position, timeoutMs)),
    refresh: async () => current,
    stop: () => waiters.abandon(),
    reach: (position) => {
      current = position;
      waiters.release(position);
    },
  };
};

/** A store of one collection answering `name` for every id (or failing), counting its reads. */
const store = (name: string) => {
  const counts = { reads: 0, writes: 0 };
  let failing = false;
  const collection = {
    projection: { name: 'contacts' },
    get: async (_companyId: string, id: string) => {
      counts.reads += 1;
      if (failing) throw new Error('connection refused');
      return { id, name } as unknown as ReadModelDocument;
    },
    apply: async () => void (counts.writes += 1),
  } as unknown as DocumentCollection<ReadModelDocument>;
  const readModels = { kind: 'postgres', durable: true, collection: () => collection, close: async () => undefined } as unknown as ReadModelStore;
  return { readModels, counts, fail: (on: boolean) => (failing = on) };
};

const given = (fallbackAfterMs = 40) => {
  let now = 1_000_000;
  const replicaProgress = progress();
  const primaryProgress = progress();
  const reads = new ReplicaReads(replicaProgress, primaryProgress, fallbackAfterMs, () => now);
  const primary = store('from the primary');
  const replica = store('from the replica');
  const readModels = new ReplicaReadModels(primary.readModels, replica.readModels, reads);
  const contacts = readModels.collection({ name: 'contacts' } as never);
  return { reads, readModels, contacts, primary, replica, replicaProgress, primaryProgress, later: (ms: number) => (now += ms) };
};

const nameOf = async (collection: DocumentCollection<ReadModelDocument>) => ((await collection.get('c1', 'a')) as unknown as { name: string }).name;

describe('ReplicaReadModels: an API process reading its read models from a replica', () => {
  it('given a request inside `within`, when it reads, then it reads from the replica; outside, from the primary', async () => {
    const { reads, contacts } = given();
    expect(await reads.within(() => nameOf(contacts))).to.equal('from the replica');
    expect(await nameOf(contacts), 'a read outside a GET (a command, a credential)').to.equal('from the primary');
    expect(reads.replicaRequests).to.equal(1);
  });

  it('given a replica that has applied a position, when a request waits for it, then it reads from the replica', async () => {
    const { reads, contacts, replicaProgress, primaryProgress } = given();
    replicaProgress.reach('5');
    primaryProgress.reach('5');
    const name = await reads.within(async () => {
      expect(await reads.waitFor('5', 1_000)).to.equal(true);
      return nameOf(contacts);
    });
    expect(name).to.equal('from the replica');
    expect(reads.fallbacks).to.deep.equal({ lag: 0, unavailable: 0 });
  });

  it('given a replica behind, when a request waits past the bound, then it reads from the primary once the primary has the position, and the fallback is counted', async () => {
    const { reads, contacts, replicaProgress, primaryProgress } = given(30);
    replicaProgress.reach('3');
    primaryProgress.reach('5');
    const name = await reads.within(async () => {
      expect(await reads.waitFor('5', 1_000)).to.equal(true);
      return nameOf(contacts);
    });
    expect(name).to.equal('from the primary');
    expect(reads.fallbacks.lag).to.equal(1);
    expect(reads.replicaRequests).to.equal(0);
  });

  it('given a replica that catches up within the bound, when a request waits, then it stays on the replica', async () => {
    const { reads, contacts, replicaProgress, primaryProgress } = given(500);
    primaryProgress.reach('5');
    setTimeout(() => replicaProgress.reach('5'), 10);
    const name = await reads.within(async () => {
      expect(await reads.waitFor('5', 1_000)).to.equal(true);
      return nameOf(contacts);
    });
    expect(name).to.equal('from the replica');
  });

  it('given neither has the position, when the wait runs out, then it answers false (the request says so) and reads from the primary', async () => {
    const { reads, contacts } = given(10);
    const name = await reads.within(async () => {
      expect(await reads.waitFor('9', 30)).to.equal(false);
      return nameOf(contacts);
    });
    expect(name).to.equal('from the primary');
  });

  it('given a replica read that fails, when a request reads, then it is read again from the primary, and every request reads there for a while', async () => {
    const { reads, contacts, replica, primary, later } = given();
    replica.fail(true);
    expect(await reads.within(() => nameOf(contacts))).to.equal('from the primary');
    expect(reads.fallbacks.unavailable).to.equal(1);
    expect(reads.replicaDown).to.equal(true);
    replica.fail(false);
    const replicaReadsBefore = replica.counts.reads;
    expect(await reads.within(() => nameOf(contacts))).to.equal('from the primary');
    expect(replica.counts.reads, 'a replica that failed lately is not tried').to.equal(replicaReadsBefore);
    expect(reads.fallbacks.unavailable).to.equal(2);
    later(REPLICA_RETRY_AFTER_MS + 1);
    expect(await reads.within(() => nameOf(contacts))).to.equal('from the replica');
    expect(primary.counts.reads).to.equal(2);
  });

  it('given concurrent requests, when one falls back, then the others keep their own choice', async () => {
    const { reads, contacts, replicaProgress, primaryProgress } = given(20);
    replicaProgress.reach('3');
    primaryProgress.reach('5');
    const [behind, current] = await Promise.all([
      reads.within(async () => (await reads.waitFor('5', 1_000), nameOf(contacts))),
      reads.within(async () => (await reads.waitFor('3', 1_000), nameOf(contacts))),
    ]);
    expect(behind).to.equal('from the primary');
    expect(current).to.equal('from the replica');
  });

  it('given any write, then it goes to the primary', async () => {
    const { reads, contacts, primary, replica } = given();
    await reads.within(() => contacts.apply([]));
    expect(primary.counts.writes).to.equal(1);
    expect(replica.counts.writes).to.equal(0);
  });
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { handleCommand } from '../../src/application/commands/handleCommand.js';
import { PreconditionFailedError, type RevisionPrecondition } from '../../src/application/commands/PreconditionFailedError.js';
import { CounterEvent, counterDecider, type CounterCommand } from '../support/counterDecider.js';
import { tempDir } from '../support/tempStore.js';

describe('handleCommand with a revision precondition (If-Match)', () => {
  let dir: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  let ids = 0;
  const metadata = { source: 'api' as const, correlationId: 'req-1', companyId: 'co-1' };
  beforeEach(() => {
    dir = tempDir('chronicle-precondition-');
    store = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  });
  afterEach(async () => {
    await store.close();
    dir.dispose();
  });

  const run = (command: CounterCommand, precondition?: RevisionPrecondition) =>
    handleCommand(
      { eventStore: store, newId: () => `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}` },
      { decider: counterDecider, eventCodec: CounterEvent, stream: 'counter-1', command, metadata, ...(precondition ? { precondition } : {}) },
    );
  const increment: CounterCommand = { type: 'increment', by: 1, max: 100 };

  it('appends when the revision read satisfies it', async () => {
    await run(increment);
    const result = await run(increment, (revision) => revision === 0);
    expect(E.isRight(result) && result.right.revision).to.equal(1);
  });

  it('throws PreconditionFailedError, writing nothing, when the revision read does not', async () => {
    await run(increment);
    await run(increment);
    const failed = await run(increment, (revision) => revision === 0).catch((error: unknown) => error);
    expect(failed).to.be.instanceOf(PreconditionFailedError);
    expect((failed as PreconditionFailedError).actualRevision).to.equal(1);
    expect(await store.readStream('counter-1')).to.have.length(2);
  });

  it('leaves an empty stream to the decider (a missing entity is not a precondition failure)', async () => {
    const result = await run(increment, () => false);
    expect(E.isRight(result)).to.equal(true);
  });

  it('of two concurrent writers expecting the same revision, only one appends', async () => {
    await run(increment);
    const outcomes = await Promise.allSettled([run(increment, (r) => r === 0), run(increment, (r) => r === 0)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).to.have.length(1);
    const rejected = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).to.be.instanceOf(PreconditionFailedError);
    expect(await store.readStream('counter-1')).to.have.length(2);
  });
});

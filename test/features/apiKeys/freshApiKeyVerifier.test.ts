import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../../../src/features/apiKeys/application/issueApiKey.js';
import { revokeApiKey } from '../../../src/features/apiKeys/application/revokeApiKey.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { resumeCompany, suspendCompany } from '../../../src/features/companies/application/companySuspension.js';
import { companiesProjection } from '../../../src/features/companies/readModels/companiesProjection.js';
import { READ_MODELS_CHECKPOINT, type ProjectionLag } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { CheckpointProgress, type ReadModelProgress } from '../../../src/application/subscriptions/ReadModelProgress.js';
import type { EventStore } from '../../../src/application/ports/EventStore.js';
import { withUpcasting } from '../../../src/application/versioning/UpcastingEventStore.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { generateApiKey } from '../../../src/shared/apiKeyFormat.js';
import { newId } from '../../../src/shared/ids.js';
import { comparePositions, compareNullablePositions, type Position } from '../../../src/shared/Position.js';
import { apiKeyDirectoryProjection } from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { freshApiKeyVerifier } from '../../../src/features/apiKeys/readModels/freshApiKeyVerifier.js';
import { manualClock } from '../../support/clocks.js';
import { eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/**
 * An API process's view: the read models are applied by "the projector" only when
 * the test says so (`project()`), and followed through their checkpoint, as an API
 * process with RUN_PROJECTIONS=false follows the projector's. Time is the test's
 * (`time`): the verifier's clock, the moments of the answers, and the lag of the read
 * models (the age, on that clock, of the oldest event they have not applied).
 */
describe('freshApiKeyVerifier (keys as the log has them, within bounds)', () => {
  let dir: ReturnType<typeof tempDir>;
  let raw: SqliteEventStore;
  let log: EventStore;
  let readModels: MemoryReadModelStore;
  let progress: CheckpointProgress;
  let companyId: string;
  let time: ReturnType<typeof manualClock>;
  /** When each append was recorded, on the test's clock: the position of its last event, and the time. */
  let appends: { readonly position: Position; readonly at: number }[];
  /** Every wait for the read models (its bound), the log's stream reads, lag measurements and read-model lookups. */
  const calls = { readStream: 0, lag: 0, lookups: 0, waits: [] as number[] };
  /** Runs inside the next lag measurements, before they read anything. */
  let beforeMeasuring: (() => Promise<void>) | null = null;

  const project = async () => {
    const collections = [readModels.collection(apiKeyDirectoryProjection), readModels.collection(companiesProjection)];
    const after = await readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
    const events = await log.readAll({ after });
    if (events.length > 0) await readModels.applyBatch(collections, events, READ_MODELS_CHECKPOINT);
  };
  const recorded = <T extends { readonly position: Position | null }>(result: T): T => {
    if (result.position !== null) appends.push({ position: result.position, at: time.now().getTime() });
    return result;
  };
  /** How far the read models are behind the log, on the test's clock. */
  const lag = async (): Promise<ProjectionLag> => {
    const position = await progress.refresh();
    const head = await log.headPosition();
    if (compareNullablePositions(head, position) <= 0) return { position, head, caughtUp: true, lagMs: 0 };
    const [oldest] = await log.readAll({ after: position, maxCount: 1 });
    const append = appends.find((a) => comparePositions(a.position, oldest!.position) >= 0)!;
    return { position, head, caughtUp: false, lagMs: Math.max(0, time.now().getTime() - append.at) };
  };
  const commandDeps = () => ({ eventStore: log, newId, clock: time });
  const issue = async (expiresAt: Date | null = null) =>
    recorded(right(await issueApiKey(commandDeps(), { companyId, type: 'generic', permissions: ['contacts:read'], expiresAt, metadata: { source: 'cli', correlationId: newId() } })));
  const revoke = async (keyId: string) => recorded(right(await revokeApiKey(commandDeps(), { keyId, metadata: { source: 'cli', correlationId: newId() } })));
  const suspend = async () =>
    recorded(right(await suspendCompany(commandDeps(), { companyId, reason: 'Unpaid invoices', metadata: { source: 'cli', correlationId: newId() } })));
  const resume = async () => recorded(right(await resumeCompany(commandDeps(), { companyId, metadata: { source: 'cli', correlationId: newId() } })));
  const verifier = (options: { unknownKeyWaitMs?: number; revocationBoundMs?: number; keyReuseMs?: number } = {}) => {
    const counted: Pick<EventStore, 'headPosition' | 'readStream'> = {
      headPosition: () => log.headPosition(),
      readStream: (stream, read) => {
        calls.readStream += 1;
        return log.readStream(stream, read);
      },
    };
    const directory = readModels.collection(apiKeyDirectoryProjection);
    const counting: typeof directory = Object.create(directory);
    counting.get = (companyId, id) => {
      calls.lookups += 1;
      return directory.get(companyId, id);
    };
    const waited: ReadModelProgress = {
      get position() {
        return progress.position;
      },
      waitFor: (position, timeoutMs) => {
        calls.waits.push(timeoutMs);
        return progress.waitFor(position, timeoutMs);
      },
    };
    const verify = freshApiKeyVerifier({
      directory: counting,
      companies: readModels.collection(companiesProjection),
      eventStore: counted,
      progress: waited,
      appliedPosition: () => progress.refresh(),
      lag: async () => {
        calls.lag += 1;
        await beforeMeasuring?.();
        return lag();
      },
      clock: time,
      unknownKeyWaitMs: options.unknownKeyWaitMs ?? 5_000,
      revocationBoundMs: options.revocationBoundMs ?? 1_000,
      ...(options.keyReuseMs === undefined ? {} : { keyReuseMs: options.keyReuseMs }),
    });
    return (key: string) => verify(key, time.now());
  };

  beforeEach(async () => {
    dir = tempDir();
    raw = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    log = withUpcasting(raw, STORED_EVENT_TYPES);
    readModels = new MemoryReadModelStore();
    progress = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), 5);
    time = manualClock(Date.now());
    appends = [];
    calls.readStream = 0;
    calls.lag = 0;
    calls.lookups = 0;
    calls.waits = [];
    beforeMeasuring = null;
    companyId = recorded(right(await createCompany(commandDeps(), { name: right(CompanyName.decode('Acme')), metadata: { source: 'cli', correlationId: newId() } }))).id;
    await project();
  });
  afterEach(async () => {
    progress.stop();
    await raw.close();
    dir.dispose();
  });

  describe('an unknown key', () => {
    it('with the read models at the head of the log: invalid at once, with no wait', async () => {
      expect(await verifier()(generateApiKey())).to.deep.equal({ kind: 'invalid', reason: 'unknown' });
      expect(calls.waits, 'no wait for the read models').to.deep.equal([]);
    });

    it('issued a moment ago, before the projector applied it: waits for the read models, then valid', async () => {
      const { key, keyId } = await issue();
      const answer = verifier()(key);
      let answered = false;
      void answer.then(() => (answered = true));
      await eventually(() => calls.waits.length === 1);
      expect(calls.waits, 'waiting for the read models, at most unknownKeyWaitMs').to.deep.equal([5_000]);
      expect(answered, 'not answered before the read models applied the key').to.equal(false);
      await project();
      expect(await answer).to.deep.equal({ kind: 'valid', auth: { keyId, companyId, permissions: ['contacts:read'] } });
    });

    it('with the read models behind for the whole wait: unverifiable after the wait, for a real key and a guessed one alike', async () => {
      const { key } = await issue();
      const verify = verifier({ unknownKeyWaitMs: 150 });
      const [real, guessed] = await Promise.all([verify(key), verify(generateApiKey())]);
      expect(real).to.deep.equal({ kind: 'unverifiable' });
      expect(guessed).to.deep.equal({ kind: 'unverifiable' });
      expect(calls.waits, 'each waited for the read models, at most the wait').to.deep.equal([150, 150]);
      // Applied: now it is known, and the guessed one is invalid at once.
      await project();
      expect((await verify(key)).kind).to.equal('valid');
      expect(await verify(generateApiKey())).to.deep.equal({ kind: 'invalid', reason: 'unknown' });
      expect(calls.waits, 'no wait once they are at the head').to.have.length(2);
    });
  });

  describe('a known key', () => {
    it('while the read models keep up: trusted from the read model, the log never read, the lag measured once', async () => {
      const { key } = await issue();
      await project();
      const verify = verifier();
      for (let i = 0; i < 20; i += 1) expect((await verify(key)).kind).to.equal('valid');
      expect(calls.readStream).to.equal(0);
      expect(calls.lag).to.equal(1);
    });

    it('revoked in the log, the read models behind by more than the bound: refused, from its stream in the log', async () => {
      const [revoked, kept] = [await issue(), await issue()];
      await project();
      await revoke(revoked.keyId);
      const verify = verifier({ revocationBoundMs: 200 });
      // Within the bound the read model may still answer for a revocation it has not applied.
      expect((await verify(revoked.key)).kind).to.equal('valid');
      time.advance(250);
      expect(await verify(revoked.key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      // An active key is still accepted while the read models are behind (its stream, and its company's, say so).
      expect((await verify(kept.key)).kind).to.equal('valid');
      expect(calls.readStream).to.equal(3);
      // Found behind a moment ago: not measured again for the next request.
      expect(calls.lag).to.equal(2);
      // Once the projector applied the revocation, the read model answers again by itself.
      await project();
      time.advance(250);
      expect(await verify(revoked.key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect((await verify(kept.key)).kind).to.equal('valid');
      expect(calls.readStream).to.equal(3);
    });

    it('looked up before a measurement that finds the revocation applied: looked up again, and refused', async () => {
      const { key, keyId } = await issue();
      await project();
      const verify = verifier({ revocationBoundMs: 200 });
      expect((await verify(key)).kind).to.equal('valid');
      await revoke(keyId);
      time.advance(250);
      // The lookup sees the key active; the projector applies the revocation before the measurement that follows it.
      beforeMeasuring = project;
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect(calls.readStream, 'the read models were fresh: the log was not needed').to.equal(0);
    });
  });

  describe('a key of a suspended company', () => {
    it('a suspension applied by the projector is refused once the reuse time is over, and a resumption accepted once applied', async () => {
      const { key, keyId } = await issue();
      await project();
      const verify = verifier({ revocationBoundMs: 1_000, keyReuseMs: 150 });
      expect((await verify(key)).kind).to.equal('valid');
      await suspend();
      await project();
      expect((await verify(key)).kind, 'from memory, within the reuse time').to.equal('valid');
      time.advance(150);
      const auth = { keyId, companyId, permissions: ['contacts:read'] };
      expect(await verify(key)).to.deep.equal({ kind: 'suspended', auth });
      expect(await verify(key), 'never answered from memory').to.deep.equal({ kind: 'suspended', auth });
      await resume();
      await project();
      expect(await verify(key)).to.deep.equal({ kind: 'valid', auth });
      expect(calls.readStream, 'the read models were fresh: the log was not needed').to.equal(0);
    });

    it('suspended in the log, the read models behind by more than the bound: refused, from the company\'s stream', async () => {
      const { key, keyId } = await issue();
      await project();
      await suspend();
      const verify = verifier({ revocationBoundMs: 200 });
      expect((await verify(key)).kind, 'within the bound the read model may answer').to.equal('valid');
      time.advance(250);
      expect(await verify(key)).to.deep.equal({ kind: 'suspended', auth: { keyId, companyId, permissions: ['contacts:read'] } });
      expect(calls.readStream, 'the key\'s stream, then the company\'s').to.equal(2);
    });

    it('resumed in the log, the read models still saying suspended and behind by more than the bound: accepted, from the company\'s stream', async () => {
      const { key } = await issue();
      await suspend();
      await project();
      await resume();
      const verify = verifier({ revocationBoundMs: 200 });
      expect((await verify(key)).kind, 'within the bound the read model answers').to.equal('suspended');
      time.advance(250);
      expect((await verify(key)).kind).to.equal('valid');
    });
  });

  describe('a key found active, answered again from memory', () => {
    it('is not looked up again within the reuse time, and is looked up once it is over', async () => {
      const { key } = await issue();
      await project();
      const verify = verifier({ keyReuseMs: 150 });
      // The first answer waits for the first measurement of the read models, and looks the key up again after it.
      expect((await verify(key)).kind).to.equal('valid');
      const first = calls.lookups;
      for (let i = 0; i < 19; i += 1) {
        expect((await verify(key)).kind).to.equal('valid');
        time.advance(7);
      }
      expect(calls.lookups, '19 answers from memory, the last 133 ms after the lookup').to.equal(first);
      time.advance(17);
      expect((await verify(key)).kind).to.equal('valid');
      expect(calls.lookups, 'looked up again 150 ms after the lookup').to.equal(first + 1);
    });

    it('a revocation applied by the projector is refused once the reuse time is over, within the bound', async () => {
      const { key, keyId } = await issue();
      await project();
      const verify = verifier({ revocationBoundMs: 1_000, keyReuseMs: 150 });
      expect((await verify(key)).kind).to.equal('valid');
      await revoke(keyId);
      await project();
      // Still answered from memory for what is left of the reuse time (part of the revocation bound)...
      expect((await verify(key)).kind).to.equal('valid');
      time.advance(149);
      expect((await verify(key)).kind).to.equal('valid');
      // ...and refused once it is over, well within the bound.
      time.advance(1);
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
    });

    it('an expiry is checked at every answer, from memory too', async () => {
      const { key } = await issue(new Date(time.now().getTime() + 150));
      await project();
      const verify = verifier({ revocationBoundMs: 10_000, keyReuseMs: 5_000 });
      expect((await verify(key)).kind).to.equal('valid');
      const first = calls.lookups;
      time.advance(149);
      expect((await verify(key)).kind).to.equal('valid');
      time.advance(1);
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'expired' });
      expect(calls.lookups, 'refused from memory, with no lookup').to.equal(first);
    });

    it('takes its reuse time out of the bound: read models behind by more than bound minus reuse are checked in the log', async () => {
      const { key, keyId } = await issue();
      await project();
      await revoke(keyId);
      // Not applied: the read models are behind by the revocation's age.
      const verify = verifier({ revocationBoundMs: 400, keyReuseMs: 200 });
      time.advance(250);
      // 250 ms behind: within the bound, but not within bound minus reuse, so the log decides.
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect(calls.readStream).to.equal(1);
    });

    it('with no reuse (0), every answer is looked up', async () => {
      const { key } = await issue();
      await project();
      const verify = verifier({ keyReuseMs: 0 });
      expect((await verify(key)).kind).to.equal('valid');
      const first = calls.lookups;
      for (let i = 0; i < 5; i += 1) expect((await verify(key)).kind).to.equal('valid');
      expect(calls.lookups).to.equal(first + 5);
    });
  });
});

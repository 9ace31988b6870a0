import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../../../src/features/apiKeys/application/issueApiKey.js';
import { revokeApiKey } from '../../../src/features/apiKeys/application/revokeApiKey.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { READ_MODELS_CHECKPOINT, measureLag } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { CheckpointProgress } from '../../../src/application/subscriptions/ReadModelProgress.js';
import type { EventStore } from '../../../src/application/ports/EventStore.js';
import { withUpcasting } from '../../../src/application/versioning/UpcastingEventStore.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { generateApiKey } from '../../../src/shared/apiKeyFormat.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { newId } from '../../../src/shared/ids.js';
import { apiKeyDirectoryProjection } from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { freshApiKeyVerifier, type FreshApiKeyVerification } from '../../../src/features/apiKeys/readModels/freshApiKeyVerifier.js';
import { sleep } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

/**
 * An API process's view: the read models are applied by "the projector" only when
 * the test says so (`project()`), and followed through their checkpoint, as an API
 * process with RUN_PROJECTIONS=false follows the projector's.
 */
describe('freshApiKeyVerifier (keys as the log has them, within bounds)', () => {
  let dir: ReturnType<typeof tempDir>;
  let raw: SqliteEventStore;
  let log: EventStore;
  let readModels: MemoryReadModelStore;
  let progress: CheckpointProgress;
  let companyId: string;
  const calls = { readStream: 0, lag: 0, lookups: 0 };
  /** Runs inside the next lag measurements, before they read anything. */
  let beforeMeasuring: (() => Promise<void>) | null = null;

  const project = async () => {
    const collections = [readModels.collection(apiKeyDirectoryProjection)];
    const after = await readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
    const events = await log.readAll({ after });
    if (events.length > 0) await readModels.applyBatch(collections, events, READ_MODELS_CHECKPOINT);
  };
  const commandDeps = () => ({ eventStore: log, newId, clock: systemClock });
  const issue = async (expiresAt: Date | null = null) =>
    right(await issueApiKey(commandDeps(), { companyId, type: 'generic', permissions: ['contacts:read'], expiresAt, metadata: { source: 'cli', correlationId: newId() } }));
  const revoke = async (keyId: string) => right(await revokeApiKey(commandDeps(), { keyId, metadata: { source: 'cli', correlationId: newId() } }));
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
    const verify = freshApiKeyVerifier({
      directory: counting,
      eventStore: counted,
      progress,
      appliedPosition: () => progress.refresh(),
      lag: async () => {
        calls.lag += 1;
        await beforeMeasuring?.();
        return measureLag(log, await progress.refresh());
      },
      clock: systemClock,
      unknownKeyWaitMs: options.unknownKeyWaitMs ?? 5_000,
      revocationBoundMs: options.revocationBoundMs ?? 1_000,
      ...(options.keyReuseMs === undefined ? {} : { keyReuseMs: options.keyReuseMs }),
    });
    return (key: string) => verify(key, new Date());
  };
  const timed = async (run: Promise<FreshApiKeyVerification>) => {
    const started = Date.now();
    const result = await run;
    return { result, ms: Date.now() - started };
  };

  beforeEach(async () => {
    dir = tempDir();
    raw = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    log = withUpcasting(raw, STORED_EVENT_TYPES);
    readModels = new MemoryReadModelStore();
    progress = new CheckpointProgress(() => readModels.checkpoints.load(READ_MODELS_CHECKPOINT), 5);
    calls.readStream = 0;
    calls.lag = 0;
    calls.lookups = 0;
    beforeMeasuring = null;
    companyId = right(await createCompany(commandDeps(), { name: right(CompanyName.decode('Acme')), metadata: { source: 'cli', correlationId: newId() } })).id;
    await project();
  });
  afterEach(async () => {
    progress.stop();
    await raw.close();
    dir.dispose();
  });

  describe('an unknown key', () => {
    it('with the read models at the head of the log: invalid at once, with no wait', async () => {
      const { result, ms } = await timed(verifier()(generateApiKey()));
      expect(result).to.deep.equal({ kind: 'invalid', reason: 'unknown' });
      expect(ms).to.be.below(200);
    });

    it('issued a moment ago, before the projector applied it: waits for the read models, then valid', async () => {
      const { key, keyId } = await issue();
      const verify = verifier();
      setTimeout(() => void project(), 150);
      const { result, ms } = await timed(verify(key));
      expect(result).to.deep.equal({ kind: 'valid', auth: { keyId, companyId, permissions: ['contacts:read'] } });
      expect(ms).to.be.at.least(100);
    });

    it('with the read models behind for the whole wait: unverifiable after the wait, for a real key and a guessed one alike', async () => {
      const { key } = await issue();
      const verify = verifier({ unknownKeyWaitMs: 150 });
      const [real, guessed] = await Promise.all([timed(verify(key)), timed(verify(generateApiKey()))]);
      expect(real.result).to.deep.equal({ kind: 'unverifiable' });
      expect(guessed.result).to.deep.equal({ kind: 'unverifiable' });
      expect(real.ms).to.be.within(140, 1_000);
      // Applied: now it is known, and the guessed one is invalid at once.
      await project();
      expect((await verify(key)).kind).to.equal('valid');
      expect(await verify(generateApiKey())).to.deep.equal({ kind: 'invalid', reason: 'unknown' });
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
      await sleep(250);
      expect(await verify(revoked.key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      // An active key is still accepted while the read models are behind (its stream says so).
      expect((await verify(kept.key)).kind).to.equal('valid');
      expect(calls.readStream).to.equal(2);
      // Found behind a moment ago: not measured again for the next request.
      expect(calls.lag).to.equal(2);
      // Once the projector applied the revocation, the read model answers again by itself.
      await project();
      await sleep(250);
      expect(await verify(revoked.key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect((await verify(kept.key)).kind).to.equal('valid');
      expect(calls.readStream).to.equal(2);
    });

    it('looked up before a measurement that finds the revocation applied: looked up again, and refused', async () => {
      const { key, keyId } = await issue();
      await project();
      const verify = verifier({ revocationBoundMs: 200 });
      expect((await verify(key)).kind).to.equal('valid');
      await revoke(keyId);
      await sleep(250);
      // The lookup sees the key active; the projector applies the revocation before the measurement that follows it.
      beforeMeasuring = project;
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
      expect(calls.readStream, 'the read models were fresh: the log was not needed').to.equal(0);
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
      for (let i = 0; i < 19; i += 1) expect((await verify(key)).kind).to.equal('valid');
      expect(calls.lookups, '19 answers from memory').to.equal(first);
      await sleep(200);
      expect((await verify(key)).kind).to.equal('valid');
      expect(calls.lookups).to.equal(first + 1);
    });

    it('a revocation applied by the projector is refused once the reuse time is over, within the bound', async () => {
      const { key, keyId } = await issue();
      await project();
      const verify = verifier({ revocationBoundMs: 1_000, keyReuseMs: 150 });
      expect((await verify(key)).kind).to.equal('valid');
      await revoke(keyId);
      await project();
      const revokedAt = Date.now();
      // Still answered from memory for what is left of the reuse time (part of the revocation bound)...
      expect((await verify(key)).kind).to.equal('valid');
      // ...and refused after it, well within the bound.
      while ((await verify(key)).kind === 'valid' && Date.now() - revokedAt < 2_000) await sleep(5);
      const refusedAfter = Date.now() - revokedAt;
      expect(refusedAfter).to.be.below(1_000);
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
    });

    it('an expiry is checked at every answer, from memory too', async () => {
      const { key } = await issue(new Date(Date.now() + 150));
      await project();
      const verify = verifier({ revocationBoundMs: 10_000, keyReuseMs: 5_000 });
      expect((await verify(key)).kind).to.equal('valid');
      const first = calls.lookups;
      await sleep(200);
      expect(await verify(key)).to.deep.equal({ kind: 'invalid', reason: 'expired' });
      expect(calls.lookups, 'refused from memory, with no lookup').to.equal(first);
    });

    it('takes its reuse time out of the bound: read models behind by more than bound minus reuse are checked in the log', async () => {
      const { key, keyId } = await issue();
      await project();
      await revoke(keyId);
      // Not applied: the read models are behind by the revocation's age.
      const verify = verifier({ revocationBoundMs: 400, keyReuseMs: 200 });
      await sleep(250);
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

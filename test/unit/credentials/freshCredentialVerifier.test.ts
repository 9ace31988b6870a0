import { expect } from 'chai';
import { freshCredentialVerifier, KEY_REUSE_MS, type CredentialLookup } from '../../../src/application/credentials/freshCredentialVerifier.js';
import { systemClock } from '../../../src/shared/Clock.js';

/** A lookup of one known credential (`good`) that answers after `ms` and counts its calls. */
const slowLookup = (ms: number) => {
  const calls = { count: 0 };
  const lookup: CredentialLookup<{ readonly id: string }> = {
    isWellFormed: (presented) => presented.startsWith('k_'),
    hash: (presented) => `h:${presented}`,
    lookUp: async (hash) => {
      calls.count += 1;
      await new Promise((resolve) => setTimeout(resolve, ms));
      return hash === 'h:k_good' || hash === 'h:k_warm'
        ? { verification: { kind: 'valid', auth: { id: 'good' } }, expiresAt: null }
        : { verification: { kind: 'invalid', reason: 'revoked' }, expiresAt: null };
    },
    activeInLog: async () => true,
  };
  return { lookup, calls };
};

/** A verifier whose read models' freshness has been measured once already (a first valid key is looked up twice: before and after). */
const verifierOf = async (lookup: CredentialLookup<{ readonly id: string }>, calls: { count: number }) => {
  const verify = freshCredentialVerifier(lookup, {
    eventStore: { headPosition: async () => '10' },
    progress: { position: '10', waitFor: async () => true },
    appliedPosition: async () => '10',
    lag: async () => ({ position: '10', head: '10', caughtUp: true, lagMs: 0 }),
    clock: systemClock,
    unknownKeyWaitMs: 100,
  });
  await verify('k_warm', new Date());
  calls.count = 0;
  return verify;
};

describe('freshCredentialVerifier: requests of one credential share its lookup', () => {
  it('given a lookup under way, when nine more requests of the same key come, then they wait for its answer instead of looking up again', async () => {
    const { lookup, calls } = slowLookup(30);
    const verify = await verifierOf(lookup, calls);
    const answers = await Promise.all(Array.from({ length: 10 }, () => verify('k_good', new Date())));
    expect(answers.map((answer) => answer.kind)).to.deep.equal(Array(10).fill('valid'));
    expect(calls.count).to.equal(1);
  });

  it('given lookups of two keys under way, when each is asked again, then each key has its own answer', async () => {
    const { lookup, calls } = slowLookup(30);
    const verify = await verifierOf(lookup, calls);
    const answers = await Promise.all(['k_good', 'k_bad', 'k_good', 'k_bad'].map((key) => verify(key, new Date())));
    expect(answers.map((answer) => answer.kind)).to.deep.equal(['valid', 'invalid', 'valid', 'invalid']);
    expect(calls.count).to.equal(2);
  });

  it('given a refused key, when it is presented again after its lookup ended, then it is looked up again (a refusal is never reused)', async () => {
    const { lookup, calls } = slowLookup(1);
    const verify = await verifierOf(lookup, calls);
    await verify('k_bad', new Date());
    await verify('k_bad', new Date());
    expect(calls.count).to.equal(2);
  });

  it('given a lookup that began longer ago than the reuse time, when a request comes, then it does not join it', async () => {
    const { lookup, calls } = slowLookup(20);
    const verify = await verifierOf(lookup, calls);
    const first = verify('k_good', new Date());
    // The same instant as seen by a request that arrived after the reuse time (its `now` is what counts).
    const late = verify('k_good', new Date(Date.now() + KEY_REUSE_MS + 1));
    await Promise.all([first, late]);
    expect(calls.count).to.equal(2);
  });
});

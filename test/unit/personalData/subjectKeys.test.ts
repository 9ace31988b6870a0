import { expect } from 'chai';
import { MemorySubjectKeyStore } from '../../../src/adapters/memory/MemorySubjectKeyStore.js';
import { SubjectKeys } from '../../../src/application/personalData/SubjectKeys.js';
import { SecretsKeyring } from '../../../src/application/secrets/SecretsKeyring.js';
import { newSecretKey } from '../../contract/encryptedWebhookSecretStore.contract.js';

describe('SubjectKeys: a data key per subject, kept wrapped under SECRETS_KEY', () => {
  const at = new Date('2024-05-01T10:00:00.000Z');

  for (const [mode, keyring] of [
    ['with SECRETS_KEY', new SecretsKeyring(newSecretKey())],
    ['without SECRETS_KEY', new SecretsKeyring(undefined)],
  ] as const) {
    describe(mode, () => {
      it('makes a 256-bit key the first time, answers the same one after, and a different one for each subject', async () => {
        const store = new MemorySubjectKeyStore();
        const keys = new SubjectKeys(store, keyring);
        const first = await keys.keysFor(['contact:a', 'contact:b', 'contact:a']);
        expect([...first.keys()]).to.have.members(['contact:a', 'contact:b']);
        expect(first.get('contact:a')).to.have.length(32);
        expect(first.get('contact:a')!.equals(first.get('contact:b')!)).to.equal(false);
        const again = await keys.keysFor(['contact:a']);
        expect(again.get('contact:a')!.equals(first.get('contact:a')!)).to.equal(true);
        expect((await keys.existingKeys(['contact:a', 'contact:c'])).size).to.equal(1);
        // What the store keeps: under SECRETS_KEY, not the key itself.
        const kept = (await store.get(['contact:a'])).get('contact:a')!;
        expect(kept === first.get('contact:a')!.toString('base64url')).to.equal(mode === 'without SECRETS_KEY');
      });

      it('forgets an erased subject\'s key for good: never made again', async () => {
        const keys = new SubjectKeys(new MemorySubjectKeyStore(), keyring);
        await keys.keysFor(['user:u']);
        await keys.erase('user:u', at);
        expect((await keys.existingKeys(['user:u'])).size).to.equal(0);
        expect((await keys.keysFor(['user:u', 'user:v'])).has('user:u')).to.equal(false);
        expect(await keys.erasedAt('user:u')).to.deep.equal(at);
      });
    });
  }

  it('cannot open keys wrapped under a key the ring no longer has', async () => {
    const store = new MemorySubjectKeyStore();
    await new SubjectKeys(store, new SecretsKeyring(newSecretKey())).keysFor(['contact:a']);
    let refused: unknown = null;
    await new SubjectKeys(store, new SecretsKeyring(newSecretKey())).existingKeys(['contact:a']).catch((error: unknown) => (refused = error));
    expect(refused).to.be.instanceOf(Error);
  });
});

import { expect } from 'chai';
import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteWebhookSecretStore } from '../../../src/adapters/sqlite/SqliteWebhookSecretStore.js';
import { tempDir } from '../../support/tempStore.js';

const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

/** The secrets among `secrets` whose text is still somewhere in the files of `folder`. */
const lingering = (folder: string, secrets: readonly string[]): string[] => {
  const raw = readdirSync(folder)
    .map((name) => readFileSync(join(folder, name)).toString('latin1'))
    .join('\n');
  return secrets.filter((one) => raw.includes(one.slice('whsec_'.length)));
};

describe('SqliteWebhookSecretStore: a replaced or deleted secret is erased from the file', () => {
  // Enough rows over several pages that rewritten values leave free space behind in them.
  const ids = Array.from({ length: 60 }, () => randomUUID());

  it('leaves no trace of values replaced (encrypted) or deleted, once the file is closed', async () => {
    const dir = tempDir('chronicle-erase-');
    try {
      const file = join(dir.path, 'chronicle.sqlite');
      const plain = ids.map(() => secret());
      let store = SqliteWebhookSecretStore.open(file);
      for (const [i, id] of ids.entries()) await store.put(id, plain[i]!);
      await store.close();
      expect(lingering(dir.path, plain)).to.have.length(ids.length);

      store = SqliteWebhookSecretStore.open(file);
      for (const [i, id] of ids.entries()) {
        if (i % 6 === 0) await store.delete(id);
        else expect(await store.replaceStored(id, plain[i]!, `enc:v1:abcdefgh:${randomBytes(70).toString('base64url')}`)).to.equal(true);
      }
      await store.close();
      expect(lingering(dir.path, plain)).to.deep.equal([]);
    } finally {
      dir.dispose();
    }
  });
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { issueApiKey } from '../../../src/features/apiKeys/application/issueApiKey.js';
import { revokeApiKey } from '../../../src/features/apiKeys/application/revokeApiKey.js';
import { verifyApiKey } from '../../../src/features/apiKeys/readModels/verifyApiKey.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { newId } from '../../../src/shared/ids.js';
import { apiKeyDirectoryProjection } from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';
import { createCompany } from '../../../src/features/companies/application/createCompany.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { systemClock } from '../../../src/shared/Clock.js';

const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) throw new Error(JSON.stringify(result.left));
  return result.right;
};

describe('issuing and revoking keys against a running server', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: SqliteEventStore;
  let cli: SqliteEventStore;
  let runner: ProjectionRunner;

  beforeEach(() => {
    dir = tempDir();
    // Two connections to one file: the server's, and the CLI's (as another process would).
    server = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    cli = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
  });
  afterEach(async () => {
    await runner.stop();
    await server.close();
    await cli.close();
    dir.dispose();
  });

  it("reaches the server's directory, and the revocation too (followed from the file, without a restart)", async () => {
    const readModels = new MemoryReadModelStore();
    const directory = readModels.collection(apiKeyDirectoryProjection);
    runner = new ProjectionRunner({ eventStore: server, readModels, collections: [directory], logger: silentLogger });
    await runner.start();

    const meta = { source: 'cli', correlationId: 'corr-1' } as const;
    const deps = { eventStore: cli, newId, clock: systemClock };
    const company = await createCompany(deps, { name: right(CompanyName.decode('Acme')), metadata: meta });
    if (E.isLeft(company)) throw new Error('no company');
    const companyId = company.right.id;
    const issued = await issueApiKey(deps, { companyId, type: 'generic', permissions: ['contacts:read'], expiresAt: null, metadata: meta });
    if (E.isLeft(issued)) throw new Error('not issued');
    const { key, keyId } = issued.right;
    // Followed from the file by the server's subscription (how soon: `npm run bench:timings`).
    await eventually(async () => (await verifyApiKey(directory, key, new Date())).kind === 'valid', 5_000);

    const stored = await cli.readStream(`apikey-${keyId}`);
    expect(stored[0]!.metadata).to.deep.equal({ source: 'cli', correlationId: 'corr-1', companyId });
    expect(JSON.stringify(stored)).to.not.contain(key.slice(4, 34));

    const revoked = await revokeApiKey(deps, { keyId, metadata: meta });
    expect(E.isRight(revoked)).to.equal(true);
    await eventually(async () => (await verifyApiKey(directory, key, new Date())).kind === 'invalid', 5_000);
    expect(await verifyApiKey(directory, key, new Date())).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
    expect((await cli.readStream(`apikey-${keyId}`))[1]!.metadata).to.include({ companyId, source: 'cli' });

    expect(await revokeApiKey(deps, { keyId, metadata: meta })).to.deep.include({ _tag: 'Left' });
    expect(await revokeApiKey(deps, { keyId: 'nope', metadata: meta })).to.deep.equal(
      E.left({ kind: 'ApiKeyNotFound', keyId: 'nope' }),
    );
  });
});

import { expect } from 'chai';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { verifyApiKey } from '../../../src/features/apiKeys/readModels/verifyApiKey.js';
import { bootstrapDemo } from '../../../src/startup/bootstrapDemo.js';
import { ProjectionRunner } from '../../../src/application/subscriptions/ProjectionRunner.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { systemClock } from '../../../src/shared/Clock.js';
import { newId } from '../../../src/shared/ids.js';
import { SPECIFICATION_PERMISSIONS } from '../../../src/shared/permissions.js';
import { apiKeyDirectoryProjection } from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { tempDir } from '../../support/tempStore.js';

describe('bootstrapDemo', () => {
  let dir: ReturnType<typeof tempDir>;
  let eventStore: SqliteEventStore;
  beforeEach(() => {
    dir = tempDir();
    eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
  });
  afterEach(async () => {
    await eventStore.close();
    dir.dispose();
  });

  describe('given an empty log', () => {
    it('creates a demo company and a key with the seven permissions of the specification (not contacts:erase) that verifies, storing only its hash', async () => {
      const demo = await bootstrapDemo({ eventStore, newId, clock: systemClock });
      expect(demo).to.include({ companyName: 'Demo company' });
      const events = await eventStore.readAll();
      expect(events.map((e) => e.type)).to.deep.equal(['CompanyCreated', 'ApiKeyIssued']);
      expect(events.every((e) => e.metadata.source === 'system' && e.metadata.companyId === demo!.companyId)).to.equal(true);

      const readModels = new MemoryReadModelStore();
      const directory = readModels.collection(apiKeyDirectoryProjection);
      const runner = new ProjectionRunner({ eventStore, readModels, collections: [directory], logger: silentLogger });
      await runner.start();
      await runner.stop();
      expect(await verifyApiKey(directory, demo!.key, new Date())).to.deep.equal({
        kind: 'valid',
        auth: { keyId: demo!.keyId, companyId: demo!.companyId, permissions: [...SPECIFICATION_PERMISSIONS] },
      });

      await eventStore.close();
      for (const file of readdirSync(dir.path)) {
        expect(readFileSync(join(dir.path, file)).includes(demo!.key.slice(4, 34)), file).to.equal(false);
      }
      eventStore = SqliteEventStore.open(join(dir.path, 'chronicle.sqlite'));
    });
  });

  describe('given a log with events', () => {
    it('does nothing', async () => {
      expect(await bootstrapDemo({ eventStore, newId, clock: systemClock })).to.not.equal(null);
      expect(await bootstrapDemo({ eventStore, newId, clock: systemClock })).to.equal(null);
      expect(await eventStore.readAll()).to.have.length(2);
    });
  });
});

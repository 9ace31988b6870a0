import { expect } from 'chai';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import { ApiKeyIssued, apiKeyStream } from '../../../src/features/apiKeys/domain/apiKeyEvents.js';
import { ApiKeyIssuedV1, upcastApiKeyIssuedV1 } from '../../../src/features/apiKeys/domain/apiKeyEventVersions.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const v1Data = {
  keyId: 'k-1',
  companyId: 'co-1',
  type: 'zapier',
  permissions: ['contacts:read'],
  expiresAt: null,
  keyHash: 'a'.repeat(64),
  keyHint: 'chr_...abcd',
  createdAt: '2026-03-01T10:00:00.000Z',
};

describe('ApiKeyIssued versions', () => {
  it('v1 → v2 (pure): every field kept, and no name (null), which v2 accepts and v1 does not need', () => {
    const v1 = { type: 'ApiKeyIssued' as const, data: v1Data } as ApiKeyIssuedV1;
    expect(ApiKeyIssuedV1.is(v1)).to.equal(true);
    expect(ApiKeyIssued.is(v1)).to.equal(false);
    const upcast = upcastApiKeyIssuedV1(v1);
    expect(upcast).to.deep.equal({ type: 'ApiKeyIssued', data: { ...v1Data, name: null } });
    expect(ApiKeyIssued.is(upcast)).to.equal(true);
  });

  describe('read through the versioning decorator', () => {
    let dir: ReturnType<typeof tempDir>;
    let raw: SqliteEventStore;
    let store: UpcastingEventStore;
    beforeEach(() => {
      dir = tempDir('chronicle-apikey-versions-');
      raw = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
    });
    afterEach(async () => {
      await store.close();
      dir.dispose();
    });

    it('reads a v1 event, recorded as version 1 or stored before versions were, as v2 without a name', async () => {
      await raw.append(apiKeyStream('k-1'), [{ id: newId(), type: 'ApiKeyIssued', data: v1Data, metadata: { source: 'cli', correlationId: 'c', schemaVersion: 1 } }], 'no_stream');
      await raw.append(apiKeyStream('k-2'), [{ id: newId(), type: 'ApiKeyIssued', data: { ...v1Data, keyId: 'k-2' }, metadata: { source: 'cli', correlationId: 'c' } }], 'no_stream');
      const events = [...(await store.readStream(apiKeyStream('k-1'))), ...(await store.readStream(apiKeyStream('k-2')))];
      expect(events.map((event) => (event.data as { name: unknown }).name)).to.deep.equal([null, null]);
      expect(events.map((event) => event.version)).to.deep.equal([
        { current: 2, stored: 1, recorded: true },
        { current: 2, stored: 1, recorded: false },
      ]);
    });

    it('records version 2 on a new event with its name, and reads it as written', async () => {
      await store.append(apiKeyStream('k-3'), [{ id: newId(), type: 'ApiKeyIssued', data: { ...v1Data, keyId: 'k-3', name: 'CRM sync' }, metadata: { source: 'cli', correlationId: 'c' } }], 'no_stream');
      const [event] = await store.readStream(apiKeyStream('k-3'));
      expect(event!.metadata.schemaVersion).to.equal(2);
      expect((event!.data as { name: unknown }).name).to.equal('CRM sync');
    });
  });
});

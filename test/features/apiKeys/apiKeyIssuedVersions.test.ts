import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import { ApiKeyIssued, apiKeyStream } from '../../../src/features/apiKeys/domain/apiKeyEvents.js';
import { ApiKeyIssuedV1, ApiKeyIssuedV2, upcastApiKeyIssuedV1, upcastApiKeyIssuedV2 } from '../../../src/features/apiKeys/domain/apiKeyEventVersions.js';
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

const v2Data = { ...v1Data, name: 'CRM sync', permissions: ['contacts:read', 'contacts:write', 'deals:read', 'deals:write', 'agents:read', 'webhooks:read', 'webhooks:write'] };

describe('ApiKeyIssued versions', () => {
  it('v1 → v2 (pure): every field kept, and no name (null), which v2 accepts and v1 does not need', () => {
    const v1 = { type: 'ApiKeyIssued' as const, data: v1Data } as ApiKeyIssuedV1;
    expect(ApiKeyIssuedV1.is(v1)).to.equal(true);
    expect(ApiKeyIssuedV2.is(v1)).to.equal(false);
    const upcast = upcastApiKeyIssuedV1(v1);
    expect(upcast).to.deep.equal({ type: 'ApiKeyIssued', data: { ...v1Data, name: null } });
    expect(ApiKeyIssuedV2.is(upcast)).to.equal(true);
  });

  it('v2 → v3 (pure): the identity; version 3 accepts every key version 2 holds', () => {
    const v2 = { type: 'ApiKeyIssued' as const, data: v2Data } as ApiKeyIssuedV2;
    expect(ApiKeyIssuedV2.is(v2)).to.equal(true);
    const upcast = upcastApiKeyIssuedV2(v2);
    expect(upcast).to.deep.equal({ type: 'ApiKeyIssued', data: v2Data });
    expect(E.isRight(ApiKeyIssued.decode(upcast))).to.equal(true);
  });

  it('v3 holds contacts:erase, alone or with others, which the codecs of versions 1 and 2 refuse', () => {
    for (const permissions of [['contacts:erase'], ['contacts:read', 'webhooks:write', 'contacts:erase']]) {
      const v3 = { type: 'ApiKeyIssued', data: { ...v2Data, permissions } };
      expect(E.isRight(ApiKeyIssued.decode(v3)), permissions.join()).to.equal(true);
      expect(E.isLeft(ApiKeyIssuedV2.decode(v3)), permissions.join()).to.equal(true);
      const { name: _name, ...withoutName } = v3.data;
      expect(E.isLeft(ApiKeyIssuedV1.decode({ type: 'ApiKeyIssued', data: withoutName })), permissions.join()).to.equal(true);
    }
  });

  it('refuses, in every version, a permission no version knows', () => {
    const unknown = { type: 'ApiKeyIssued', data: { ...v2Data, permissions: ['contacts:delete'] } };
    expect(E.isLeft(ApiKeyIssued.decode(unknown))).to.equal(true);
    expect(E.isLeft(ApiKeyIssuedV2.decode(unknown))).to.equal(true);
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

    it('reads a v1 event, recorded as version 1 or stored before versions were, as v3 without a name', async () => {
      await raw.append(apiKeyStream('k-1'), [{ id: newId(), type: 'ApiKeyIssued', data: v1Data, metadata: { source: 'cli', correlationId: 'c', schemaVersion: 1 } }], 'no_stream');
      await raw.append(apiKeyStream('k-2'), [{ id: newId(), type: 'ApiKeyIssued', data: { ...v1Data, keyId: 'k-2' }, metadata: { source: 'cli', correlationId: 'c' } }], 'no_stream');
      const events = [...(await store.readStream(apiKeyStream('k-1'))), ...(await store.readStream(apiKeyStream('k-2')))];
      expect(events.map((event) => (event.data as { name: unknown }).name)).to.deep.equal([null, null]);
      expect(events.map((event) => event.version)).to.deep.equal([
        { current: 3, stored: 1, recorded: true },
        { current: 3, stored: 1, recorded: false },
      ]);
    });

    it('reads a v2 event as v3, unchanged', async () => {
      const data = { ...v2Data, keyId: 'k-4' };
      await raw.append(apiKeyStream('k-4'), [{ id: newId(), type: 'ApiKeyIssued', data, metadata: { source: 'cli', correlationId: 'c', schemaVersion: 2 } }], 'no_stream');
      const [event] = await store.readStream(apiKeyStream('k-4'));
      expect(event!.data).to.deep.equal(data);
      expect(event!.version).to.deep.equal({ current: 3, stored: 2, recorded: true });
    });

    it('records version 3 on a new event, with its name and contacts:erase, and reads it as written', async () => {
      const data = { ...v1Data, keyId: 'k-3', name: 'CRM sync', permissions: ['contacts:read', 'contacts:erase'] };
      await store.append(apiKeyStream('k-3'), [{ id: newId(), type: 'ApiKeyIssued', data, metadata: { source: 'cli', correlationId: 'c' } }], 'no_stream');
      const [event] = await store.readStream(apiKeyStream('k-3'));
      expect(event!.metadata.schemaVersion).to.equal(3);
      expect(event!.data).to.deep.equal(data);
    });
  });
});

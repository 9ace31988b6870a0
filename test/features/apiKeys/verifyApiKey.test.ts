import { expect } from 'chai';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import { verifyApiKey } from '../../../src/features/apiKeys/readModels/verifyApiKey.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { DocumentCollection } from '../../../src/application/ports/ReadModelStore.js';
import type { ApiKeyEvent } from '../../../src/features/apiKeys/domain/apiKeyEvents.js';
import { generateApiKey, hashApiKey, keyHint } from '../../../src/shared/apiKeyFormat.js';
import {
  API_KEY_DIRECTORY,
  apiKeyDirectoryProjection,
  type ApiKeyDirectoryDoc,
} from '../../../src/features/apiKeys/readModels/apiKeyDirectoryProjection.js';
import { apiKeysProjection, type ApiKeyDoc } from '../../../src/features/apiKeys/readModels/apiKeysProjection.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
let position = 0;

const recorded = (event: ApiKeyEvent): RecordedEvent => {
  position += 1;
  return {
    id: `e-${position}`,
    stream: `apikey-${event.data.keyId}`,
    revision: event.type === 'ApiKeyIssued' ? 0 : 1,
    position: String(position),
    type: event.type,
    data: event.data,
    metadata: { source: 'cli', correlationId: 'c-1', companyId: event.data.companyId },
    recordedAt: NOW.toISOString(),
  };
};

const issued = (keyId: string, key: string, expiresAt: string | null = null): RecordedEvent =>
  recorded({
    type: 'ApiKeyIssued',
    data: {
      keyId,
      companyId: 'co-1',
      name: null,
      type: 'generic',
      permissions: ['contacts:read', 'deals:write'],
      expiresAt,
      keyHash: hashApiKey(key),
      keyHint: keyHint(key),
      createdAt: '2026-03-01T09:00:00.000Z',
    },
  });
const revoked = (keyId: string): RecordedEvent =>
  recorded({ type: 'ApiKeyRevoked', data: { keyId, companyId: 'co-1', revokedAt: '2026-03-01T11:00:00.000Z' } });

describe('verifyApiKey (over the api_key_directory read model)', () => {
  let directory: DocumentCollection<ApiKeyDirectoryDoc>;
  let keys: DocumentCollection<ApiKeyDoc>;
  const active = generateApiKey();
  const toRevoke = generateApiKey();
  const expired = generateApiKey();
  const expiresLater = generateApiKey();

  beforeEach(async () => {
    const store = new MemoryReadModelStore();
    directory = store.collection(apiKeyDirectoryProjection);
    keys = store.collection(apiKeysProjection);
    const events = [
      issued('k-active', active),
      issued('k-revoked', toRevoke),
      issued('k-expired', expired, '2026-03-01T12:00:00.000Z'),
      issued('k-later', expiresLater, '2026-03-01T12:00:00.001Z'),
      revoked('k-revoked'),
    ];
    await directory.apply(events);
    await keys.apply(events);
  });

  it('accepts an active key and tells who calls with which permissions', async () => {
    expect(await verifyApiKey(directory, active, NOW)).to.deep.equal({
      kind: 'valid',
      auth: { keyId: 'k-active', companyId: 'co-1', permissions: ['contacts:read', 'deals:write'] },
    });
  });

  it('accepts a key until its expiry', async () => {
    expect((await verifyApiKey(directory, expiresLater, NOW)).kind).to.equal('valid');
  });

  it('calls a key malformed when its prefix, length or checksum is wrong', async () => {
    for (const bad of ['', 'secret', `${active}x`, `${active.slice(0, -1)}${active.endsWith('A') ? 'B' : 'A'}`, `sk_${active.slice(4)}`]) {
      expect(await verifyApiKey(directory, bad, NOW), bad).to.deep.equal({ kind: 'malformed' });
    }
  });

  it('calls a well-formed unknown key invalid', async () => {
    expect(await verifyApiKey(directory, generateApiKey(), NOW)).to.deep.equal({ kind: 'invalid', reason: 'unknown' });
  });

  it('calls a revoked key invalid', async () => {
    expect(await verifyApiKey(directory, toRevoke, NOW)).to.deep.equal({ kind: 'invalid', reason: 'revoked' });
  });

  it('calls a key invalid from the instant it expires', async () => {
    expect(await verifyApiKey(directory, expired, NOW)).to.deep.equal({ kind: 'invalid', reason: 'expired' });
  });

  it('keeps the directory under one constant company, by hash, never holding the key', async () => {
    const doc = await directory.get(API_KEY_DIRECTORY, hashApiKey(toRevoke));
    expect(doc).to.deep.include({ keyId: 'k-revoked', ownerCompanyId: 'co-1', revoked: true, companyId: '_directory' });
    expect(JSON.stringify(doc)).to.not.contain(toRevoke);
  });

  it("lists a company's keys with hints and revocation times, never the keys or their hashes", async () => {
    const page = await keys.list({ companyId: 'co-1', filters: [], page: 1, limit: 10, order: 'asc' });
    expect(page.items.map((k) => k.id)).to.deep.equal(['k-active', 'k-revoked', 'k-expired', 'k-later']);
    expect(page.items[1]).to.deep.include({ revokedAt: '2026-03-01T11:00:00.000Z', keyHint: keyHint(toRevoke) });
    expect(page.items[0]).to.deep.include({ revokedAt: null, type: 'generic', expiresAt: null });
    const text = JSON.stringify(page.items);
    for (const key of [active, toRevoke, expired, expiresLater]) {
      expect(text).to.not.contain(key.slice(4, 34));
      expect(text).to.not.contain(hashApiKey(key));
    }
  });
});

import { expect } from 'chai';
import { MemoryCompanyExportStore } from '../../../src/adapters/memory/MemoryCompanyExportStore.js';
import { PersonErasure } from '../../../src/application/personalData/PersonErasure.js';
import type { CompanyExportRecord } from '../../../src/application/ports/CompanyExportStore.js';

const exportOf = (id: string, companyId: string): CompanyExportRecord => ({
  id,
  companyId,
  state: 'ready',
  progress: { events: 1, eventsTotal: 1, records: 1, recordsTotal: 1 },
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt: '2026-01-02T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:01.000Z',
  size: 3,
});

describe('PersonErasure and the company\'s exports', () => {
  it('deletes every export of the person\'s company, with its bytes, and no other company\'s', async () => {
    const exports = new MemoryCompanyExportStore();
    for (const [id, companyId] of [['e1', 'acme'], ['e2', 'acme'], ['e3', 'other']] as const) {
      await exports.create(exportOf(id, companyId));
      await exports.writeChunk(id, 0, Buffer.from('tar'));
    }
    const erasure = new PersonErasure({
      idempotency: { eraseMentions: async () => 0 },
      readModels: {},
      personFields: new Map(),
      exports,
    });
    await erasure.forget('acme', { kind: 'contact', id: 'c1' }, new Date('2026-01-01T12:00:00.000Z'), { status: 404, body: null, headers: {} });
    expect(await exports.get('acme', 'e1')).to.equal(null);
    expect(await exports.get('acme', 'e2')).to.equal(null);
    expect(await exports.get('other', 'e3')).to.deep.equal(exportOf('e3', 'other'));
    // An erasure sent again finds none to delete: nothing fails.
    await erasure.forget('acme', { kind: 'contact', id: 'c1' }, new Date('2026-01-01T12:00:00.000Z'), { status: 404, body: null, headers: {} });
  });
});

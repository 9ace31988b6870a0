import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { CompanyExportRecord, CompanyExportStore } from '../../src/application/ports/CompanyExportStore.js';

export interface CompanyExportStoreFixture {
  readonly store: CompanyExportStore;
  /** Another store on the same storage (another process), or null where there is none (memory). */
  readonly reopen: (() => Promise<CompanyExportStore>) | null;
  dispose(): Promise<void>;
}

const recordOf = (companyId: string, expiresAt = '2100-01-01T00:00:00.000Z'): CompanyExportRecord => ({
  id: randomUUID(),
  companyId,
  state: 'pending',
  progress: { events: 0, eventsTotal: null, records: 0, recordsTotal: null },
  createdAt: '2026-01-01T00:00:00.000Z',
  expiresAt,
  finishedAt: null,
  size: null,
});

const collect = async (chunks: AsyncIterable<Uint8Array>): Promise<Buffer> => {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(Buffer.from(chunk));
  return Buffer.concat(parts);
};

/** What every CompanyExportStore does, on any engine. */
export const companyExportStoreContract = (engine: string, open: () => Promise<CompanyExportStoreFixture>): void => {
  describe(`CompanyExportStore contract: ${engine}`, () => {
    let fixture: CompanyExportStoreFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.dispose();
    });

    it('keeps an export, answers it to its company alone, and applies changes to it', async () => {
      const companyId = randomUUID();
      const record = recordOf(companyId);
      await fixture.store.create(record);
      expect(await fixture.store.get(companyId, record.id)).to.deep.equal(record);
      expect(await fixture.store.get(randomUUID(), record.id)).to.equal(null);
      expect(await fixture.store.get(companyId, randomUUID())).to.equal(null);

      const progress = { events: 10, eventsTotal: 20, records: 3, recordsTotal: 3 };
      await fixture.store.update(companyId, record.id, { state: 'running', progress });
      await fixture.store.update(randomUUID(), record.id, { state: 'failed' });
      expect(await fixture.store.get(companyId, record.id)).to.deep.equal({ ...record, state: 'running', progress });
      await fixture.store.update(companyId, record.id, { state: 'ready', size: 2048, finishedAt: '2026-01-01T00:01:00.000Z' });
      expect(await fixture.store.get(companyId, record.id)).to.deep.equal({ ...record, state: 'ready', progress, size: 2048, finishedAt: '2026-01-01T00:01:00.000Z' });
    });

    it('reads the chunks back in their numbers\' order, whatever order they were written in, a chunk written again replaced', async () => {
      const record = recordOf(randomUUID());
      await fixture.store.create(record);
      const other = recordOf(record.companyId);
      await fixture.store.create(other);
      await fixture.store.writeChunk(other.id, 0, Buffer.from('other'));
      // More chunks than one read fetches, written out of order (a header after its part).
      const chunks = Array.from({ length: 21 }, (_, i) => Buffer.from(`chunk ${i};`));
      for (const i of [0, ...Array.from({ length: 19 }, (_, k) => 20 - k), 1]) await fixture.store.writeChunk(record.id, i, i === 5 ? Buffer.from('wrong') : chunks[i]!);
      await fixture.store.writeChunk(record.id, 5, chunks[5]!);
      expect((await collect(fixture.store.readChunks(record.id))).toString()).to.equal(chunks.map((chunk) => chunk.toString()).join(''));
      expect((await collect(fixture.store.readChunks(other.id))).toString()).to.equal('other');
      expect((await collect(fixture.store.readChunks(randomUUID()))).length).to.equal(0);
    });

    it('keeps every byte value of a chunk as written', async () => {
      const record = recordOf(randomUUID());
      await fixture.store.create(record);
      const bytes = Buffer.from(Array.from({ length: 256 * 4 }, (_, i) => i % 256));
      await fixture.store.writeChunk(record.id, 0, bytes);
      expect((await collect(fixture.store.readChunks(record.id))).equals(bytes)).to.equal(true);
    });

    it('deletes every export of a company with its bytes, and no other company\'s', async () => {
      const companyId = randomUUID();
      const [first, second, others] = [recordOf(companyId), recordOf(companyId), recordOf(randomUUID())];
      for (const record of [first, second, others]) {
        await fixture.store.create(record);
        await fixture.store.writeChunk(record.id, 0, Buffer.from(record.id));
      }
      expect(await fixture.store.deleteCompany(companyId)).to.equal(2);
      expect(await fixture.store.get(companyId, first.id)).to.equal(null);
      expect(await fixture.store.get(companyId, second.id)).to.equal(null);
      expect((await collect(fixture.store.readChunks(first.id))).length).to.equal(0);
      expect(await fixture.store.get(others.companyId, others.id)).to.deep.equal(others);
      expect((await collect(fixture.store.readChunks(others.id))).toString()).to.equal(others.id);
      expect(await fixture.store.deleteCompany(companyId)).to.equal(0);
    });

    it('deletes the exports whose time has come, with their bytes, and keeps the others', async () => {
      const companyId = randomUUID();
      const expired = recordOf(companyId, '2000-01-01T00:00:00.000Z');
      const due = recordOf(companyId, '2050-01-01T00:00:00.000Z');
      const live = recordOf(companyId, '2100-01-01T00:00:00.000Z');
      for (const record of [expired, due, live]) {
        await fixture.store.create(record);
        await fixture.store.writeChunk(record.id, 0, Buffer.from(record.id));
      }
      expect(await fixture.store.deleteExpired(new Date('2050-01-01T00:00:00.000Z'))).to.be.at.least(2);
      expect(await fixture.store.get(companyId, expired.id)).to.equal(null);
      expect(await fixture.store.get(companyId, due.id)).to.equal(null);
      expect((await collect(fixture.store.readChunks(due.id))).length).to.equal(0);
      expect(await fixture.store.get(companyId, live.id)).to.deep.equal(live);
      await fixture.store.deleteCompany(companyId);
    });

    it('is shared by every store on the same storage (another process)', async function () {
      if (!fixture.reopen) return this.skip();
      const record = recordOf(randomUUID());
      await fixture.store.create(record);
      await fixture.store.writeChunk(record.id, 0, Buffer.from('shared'));
      const other = await fixture.reopen();
      expect(await other.get(record.companyId, record.id)).to.deep.equal(record);
      expect((await collect(other.readChunks(record.id))).toString()).to.equal('shared');
      await other.deleteCompany(record.companyId);
      expect(await fixture.store.get(record.companyId, record.id)).to.equal(null);
    });
  });
};

import type { CompanyExportChange, CompanyExportRecord, CompanyExportStore } from '../../application/ports/CompanyExportStore.js';

/** Company exports in this process's memory (tests; the contract's reference): no other process sees them. */
export class MemoryCompanyExportStore implements CompanyExportStore {
  private readonly records = new Map<string, CompanyExportRecord>();
  private readonly chunks = new Map<string, Map<number, Uint8Array>>();

  async create(record: CompanyExportRecord): Promise<void> {
    if (this.records.has(record.id)) throw new Error(`Export ${record.id} exists already`);
    this.records.set(record.id, record);
    this.chunks.set(record.id, new Map());
  }

  async get(companyId: string, exportId: string): Promise<CompanyExportRecord | null> {
    const record = this.records.get(exportId);
    return record?.companyId === companyId ? record : null;
  }

  async update(companyId: string, exportId: string, change: CompanyExportChange): Promise<void> {
    const record = await this.get(companyId, exportId);
    if (record) this.records.set(exportId, { ...record, ...change });
  }

  async writeChunk(exportId: string, seq: number, bytes: Uint8Array): Promise<void> {
    this.chunks.get(exportId)?.set(seq, Uint8Array.from(bytes));
  }

  async *readChunks(exportId: string): AsyncIterable<Uint8Array> {
    const chunks = this.chunks.get(exportId);
    if (!chunks) return;
    for (const seq of [...chunks.keys()].sort((a, b) => a - b)) yield chunks.get(seq)!;
  }

  async deleteCompany(companyId: string): Promise<number> {
    return this.deleteWhere((record) => record.companyId === companyId);
  }

  async deleteExpired(now: Date): Promise<number> {
    return this.deleteWhere((record) => Date.parse(record.expiresAt) <= now.getTime());
  }

  async close(): Promise<void> {}

  private deleteWhere(matches: (record: CompanyExportRecord) => boolean): number {
    let deleted = 0;
    for (const [id, record] of this.records) {
      if (!matches(record)) continue;
      this.records.delete(id);
      this.chunks.delete(id);
      deleted += 1;
    }
    return deleted;
  }
}

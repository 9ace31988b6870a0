import { addCounts, type UsageCounters, type UsageRow } from '../../application/ports/UsageCounters.js';

const keyOf = (row: Pick<UsageRow, 'companyId' | 'hour' | 'keyId'>): string => `${row.companyId}|${row.hour.getTime()}|${row.keyId ?? ''}`;

/** Usage counters in this process's memory (tests; the contract's reference): no other process sees them. */
export class MemoryUsageCounters implements UsageCounters {
  private readonly rows = new Map<string, UsageRow>();

  async add(rows: readonly UsageRow[]): Promise<void> {
    for (const row of rows) {
      const key = keyOf(row);
      const stored = this.rows.get(key);
      this.rows.set(key, stored ? { ...stored, ...addCounts(stored, row) } : { ...row });
    }
  }

  async read(companyId: string, from: Date, to: Date): Promise<readonly UsageRow[]> {
    return [...this.rows.values()].filter(
      (row) => row.companyId === companyId && row.hour.getTime() >= from.getTime() && row.hour.getTime() < to.getTime(),
    );
  }

  async prune(before: Date): Promise<number> {
    let pruned = 0;
    for (const [key, row] of this.rows) {
      if (row.hour.getTime() < before.getTime()) {
        this.rows.delete(key);
        pruned += 1;
      }
    }
    return pruned;
  }

  async forgetCompany(companyId: string): Promise<number> {
    let forgotten = 0;
    for (const [key, row] of this.rows) {
      if (row.companyId !== companyId) continue;
      this.rows.delete(key);
      forgotten += 1;
    }
    return forgotten;
  }

  async close(): Promise<void> {}
}

import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { openSqliteDatabase } from '../../../src/adapters/sqlite/openSqliteDatabase.js';
import { SqliteWebhookOutbox } from '../../../src/adapters/sqlite/SqliteWebhookOutbox.js';
import type { NewDelivery } from '../../../src/application/ports/WebhookOutbox.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { OutboxRetention } from '../../../src/webhooks/outboxRetention.js';
import { eventually } from '../../support/events.js';
import { tempDir } from '../../support/tempStore.js';

const DAY = 86_400_000;
const T0 = new Date('2026-03-01T12:00:00.000Z');

describe('Webhook delivery log retention', () => {
  let dir: ReturnType<typeof tempDir>;
  let db: ReturnType<typeof openSqliteDatabase>;
  let outbox: SqliteWebhookOutbox;
  let now: Date;
  const clock = { now: () => now };
  const sub = `sub-${randomUUID()}`;

  /** `final` rows delivered at T0 and `pending` rows never attempted. */
  const given = async (final: number, pending: number): Promise<void> => {
    const rows: NewDelivery[] = Array.from({ length: final + pending }, (_, i) => ({
      subscriptionId: sub,
      companyId: 'co',
      eventId: `evt-${i}`,
      eventType: 'contact.created',
      position: String(i + 1),
      ordinal: 0,
      occurredAt: T0.toISOString(),
      envelope: '{}',
    }));
    await outbox.enqueue(rows, T0);
    for (const row of rows.slice(0, final)) {
      await outbox.recordAttempt(sub, row.eventId, { at: T0.toISOString(), statusCode: 200, error: null, latencyMs: 1 }, { state: 'delivered' });
    }
  };

  beforeEach(() => {
    dir = tempDir('chronicle-retention-');
    db = openSqliteDatabase(join(dir.path, 'chronicle.sqlite'));
    outbox = new SqliteWebhookOutbox(db);
    now = T0;
  });
  afterEach(() => {
    db.close();
    dir.dispose();
  });

  it('keeps final rows younger than the retention, prunes them once older, and never prunes pending rows', async () => {
    await given(3, 2);
    const retention = new OutboxRetention({ outbox, retentionDays: 30, clock, logger: silentLogger });
    now = new Date(T0.getTime() + 30 * DAY - 1);
    expect(await retention.runOnce()).to.equal(0);
    now = new Date(T0.getTime() + 30 * DAY + 1);
    expect(await retention.runOnce()).to.equal(3);
    expect(await outbox.depthByState()).to.deep.equal({ pending: 2, delivered: 0, failed: 0 });
    now = new Date(T0.getTime() + 400 * DAY);
    expect(await retention.runOnce()).to.equal(0);
  });

  it('deletes in bounded batches, and at most maxBatchesPerRun of them in one run', async () => {
    await given(7, 0);
    const sizes: number[] = [];
    const counted = {
      pruneCompleted: async (before: Date, limit: number) => {
        const deleted = await outbox.pruneCompleted(before, limit);
        sizes.push(deleted);
        return deleted;
      },
    };
    now = new Date(T0.getTime() + 31 * DAY);
    const retention = new OutboxRetention({ outbox: counted, retentionDays: 30, clock, logger: silentLogger, batchSize: 2, maxBatchesPerRun: 3 });
    expect(await retention.runOnce()).to.equal(6);
    expect(sizes).to.deep.equal([2, 2, 2]);
    expect(await retention.runOnce()).to.equal(1);
    expect(sizes).to.deep.equal([2, 2, 2, 1]);
  });

  it('runs periodically once started, and stops', async () => {
    await given(2, 0);
    now = new Date(T0.getTime() + 31 * DAY);
    const pruned: number[] = [];
    const retention = new OutboxRetention({
      outbox,
      retentionDays: 30,
      clock,
      logger: silentLogger,
      firstRunAfterMs: 0,
      intervalMs: 10,
      onPruned: (rows) => pruned.push(rows),
    });
    retention.start();
    try {
      await eventually(() => pruned.length >= 3, 2000, 5);
      expect(pruned[0]).to.equal(2);
      expect(pruned.slice(1).every((n) => n === 0)).to.equal(true);
    } finally {
      await retention.stop();
    }
    const runs = pruned.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(pruned.length).to.equal(runs);
  });
});

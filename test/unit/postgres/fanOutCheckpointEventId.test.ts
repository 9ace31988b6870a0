import { expect } from 'chai';
import type pg from 'pg';
import { PostgresEventStore } from '../../../src/adapters/postgres/PostgresEventStore.js';
import { PostgresWebhookOutbox } from '../../../src/adapters/postgres/PostgresWebhookOutbox.js';
import { silentLogger } from '../../../src/application/ports/Logger.js';
import { subscriptionChange } from '../../../src/features/webhooks/application/subscriptionChange.js';
import type { DerivedWebhookEvent } from '../../../src/features/webhookEvents/domain/derivedWebhookEvent.js';
import { toEnvelope } from '../../../src/features/webhookEvents/domain/envelope.js';
import { WebhookFanOut } from '../../../src/webhooks/fanOut.js';
import { FanOutNotOnLogError } from '../../../src/webhooks/FanOutNotOnLogError.js';
import { eventually } from '../../support/events.js';
import { skipLine } from '../../support/integration.js';
import { postgresTestUrl } from '../../support/postgres.js';
import { databaseForThisFile, migratedLogPool } from '../../support/postgresLog.js';
import { deriveWebhookEvents, matchesFilters } from '../../support/webhookEvents.js';
import { contactCreated } from '../webhooks/delivery/support/events.js';

/**
 * On PostgreSQL the fan-out's checkpoint keeps the id of its event beside its position, and a
 * start checks it against the log, as the read models' checkpoint is checked: after a failover
 * that lost commits, the new primary may hold other events at those positions.
 */
if (!postgresTestUrl()) {
  skipLine('PostgreSQL webhook fan-out: the checkpoint’s event id checked at start', 'POSTGRES_TEST_URL');
} else {
  describe('PostgreSQL webhook fan-out: the checkpoint’s event id, checked against the log at start', function () {
    this.timeout(30_000);
    const database = databaseForThisFile();
    let pool: pg.Pool;
    let log: PostgresEventStore;
    let outbox: PostgresWebhookOutbox;
    let running: WebhookFanOut<DerivedWebhookEvent> | null;

    const fanOut = () =>
      (running = new WebhookFanOut<DerivedWebhookEvent>({
        eventStore: log,
        outbox,
        derive: deriveWebhookEvents,
        subscriptionChange,
        matches: matchesFilters,
        toEnvelope,
        logger: silentLogger,
      }));

    beforeEach(async () => {
      pool = await migratedLogPool((await database()).url);
      await pool.query('TRUNCATE webhook_fan_out_checkpoints');
      log = new PostgresEventStore(pool, { pollIntervalMs: 50 });
      outbox = new PostgresWebhookOutbox(pool, { besideLog: true });
      running = null;
    });
    afterEach(async () => {
      await running?.stop();
      await log.close();
      await pool.end();
    });

    it('keeps the id of its last batch’s event with the checkpoint, starts again on the log that holds it, and refuses one that holds another event there', async () => {
      for (const name of ['a', 'b']) await log.append(`contact-${name}-${Date.now()}`, [contactCreated('company-a', name)], 'no_stream');
      const head = await log.headPosition();
      const first = fanOut();
      await first.start();
      // A batch that creates a delivery, or a subscription, is stored at once; one with neither waits for a later one or the stop.
      await eventually(() => first.position === head, 5_000);
      await first.stop();
      running = null;
      const atHead = (await log.readAll({ after: String(BigInt(head!) - 1n) }))[0]!;
      const stored = await outbox.loadFanOut('webhook-fan-out');
      expect(stored.position).to.equal(head);
      // Stored with its batch, the checkpoint names the batch's last event; stored alone at the stop, none.
      expect([undefined, atHead.id]).to.include(stored.eventId);
      await outbox.commitFanOut('webhook-fan-out', { position: head!, eventId: atHead.id, subscriptions: [], deliveries: [] }, new Date());
      expect(await outbox.loadFanOut('webhook-fan-out')).to.deep.include({ position: head, eventId: atHead.id });
      await fanOut().start();
      await running!.stop();
      running = null;
      // The log holds another event at the checkpoint's position (a failover lost the one the fan-out stored).
      await pool.query('UPDATE webhook_fan_out_checkpoints SET event_id = $1', ['an-event-the-new-primary-lost']);
      const refused = await fanOut()
        .start()
        .then(
          () => null,
          (error: unknown) => error,
        );
      running = null;
      expect(refused).to.be.instanceOf(FanOutNotOnLogError);
      expect((refused as Error).message).to.contain(`event ${atHead.id} is there`);
    });
  });
}

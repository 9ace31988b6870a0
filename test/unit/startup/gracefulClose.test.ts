import { expect } from 'chai';
import type { Stores } from '../../../src/startup/Stores.js';
import type { ReadSide } from '../../../src/startup/readSide.js';
import type { ChronicleWebhooks } from '../../../src/startup/webhooks.js';
import { gracefulClose } from '../../../src/startup/gracefulClose.js';
import { captureLogger } from '../../support/captureLogger.js';

/**
 * The one shutdown bound holds for store work too. A store that never answers
 * stands for a MongoDB operation waiting (30 s by default) to select a server:
 * the read side's stop, the fan-out's stop and closing the stores each wait on one.
 */
const never = () => new Promise<never>(() => undefined);
const done = async () => undefined;

const storesClosing = (close: () => Promise<void>): Stores =>
  ({
    eventStore: { close },
    readModels: { close: done },
    rateLimits: {},
    webhookSecrets: {},
    webhookOutbox: { close: done },
    idempotency: {},
  }) as unknown as Stores;

const readSideStopping = (stop: () => Promise<void>): ReadSide => ({ stop }) as unknown as ReadSide;
const webhooksStopping = (stop: (graceMs: number) => Promise<boolean>): ChronicleWebhooks => ({ stop }) as unknown as ChronicleWebhooks;

const close = (parts: { stores?: Stores; readSide?: ReadSide; webhooks?: ChronicleWebhooks | null }, timeoutMs: number) => {
  const logger = captureLogger();
  const closing = gracefulClose({
    server: null,
    readSide: parts.readSide ?? readSideStopping(done),
    webhooks: parts.webhooks ?? null,
    stores: parts.stores ?? storesClosing(done),
    logger,
    beginStopping: () => undefined,
    defaultTimeoutMs: timeoutMs,
  })();
  return { closing, logger };
};

describe('graceful close: the shutdown bound holds for store work (a store that never answers)', function () {
  this.timeout(10_000);

  it('reports complete when every step finishes', async () => {
    const report = await close({ webhooks: webhooksStopping(async () => true) }, 1_000).closing;
    expect(report).to.include({ complete: true });
    expect(report.cutOff).to.deep.equal([]);
  });

  for (const [step, parts] of [
    ['read side', { readSide: readSideStopping(never) }],
    ['stores', { stores: storesClosing(never) }],
    ['webhooks', { webhooks: webhooksStopping(never) }],
  ] as const) {
    it(`cuts off the ${step} at the bound, and says so: incomplete, within the budget`, async () => {
      const started = Date.now();
      const { closing, logger } = close(parts, 600);
      const report = await closing;
      const ms = Date.now() - started;
      // The bound, with room for a busy machine (the CLI exits at the bound regardless).
      expect(ms, `${ms} ms`).to.be.below(750);
      expect(report.complete).to.equal(false);
      expect(report.cutOff).to.deep.equal([step]);
      expect(logger.lines.map((line) => line.msg)).to.include(`shutdown: stopping the ${step} did not finish within the bound; cut off`);
      expect(logger.lines.find((line) => line.msg === 'stopped')?.obj).to.include({ complete: false });
    });
  }

  it('cuts off every step that hangs, each within its share of the one budget', async () => {
    const started = Date.now();
    const report = await close({ readSide: readSideStopping(never), stores: storesClosing(never), webhooks: webhooksStopping(never) }, 800).closing;
    expect(Date.now() - started).to.be.below(950);
    expect(report.cutOff).to.deep.equal(['webhooks', 'read side', 'stores']);
  });
});

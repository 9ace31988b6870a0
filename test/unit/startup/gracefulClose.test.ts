import { expect } from 'chai';
import type { Stores } from '../../../src/startup/Stores.js';
import type { ReadSide } from '../../../src/startup/readSide.js';
import type { ChronicleWebhooks } from '../../../src/startup/webhooks.js';
import { gracefulClose, type CloseReport } from '../../../src/startup/gracefulClose.js';
import { captureLogger } from '../../support/captureLogger.js';
import { FakeTime } from '../webhooks/delivery/support/fakeTime.js';

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

/** Closes with a clock that moves only when told (`time`), from 0. */
const close = (parts: { stores?: Stores; readSide?: ReadSide; webhooks?: ChronicleWebhooks | null }, timeoutMs: number) => {
  const logger = captureLogger();
  const time = new FakeTime(new Date(0));
  const closing = gracefulClose({
    server: null,
    readSide: parts.readSide ?? readSideStopping(done),
    webhooks: parts.webhooks ?? null,
    stores: parts.stores ?? storesClosing(done),
    logger,
    beginStopping: () => undefined,
    defaultTimeoutMs: timeoutMs,
    clock: time,
    sleep: time.sleep,
  })();
  return { closing, logger, time };
};

/** Moves the clock a millisecond at a time, letting the stop run between, until it ends: its report, and the time it ended at. */
const untilClosed = async ({ closing, time }: ReturnType<typeof close>, atMostMs: number): Promise<{ report: CloseReport; endedAtMs: number }> => {
  const outcome: { report?: CloseReport } = {};
  void closing.then((report) => (outcome.report = report));
  for (let ms = 0; ms <= atMostMs * 2 && outcome.report === undefined; ms += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    if (outcome.report === undefined) time.advance(1);
  }
  if (outcome.report === undefined) throw new Error(`not closed after ${atMostMs * 2} ms of its clock`);
  return { report: outcome.report, endedAtMs: time.now().getTime() };
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
      const closing = close(parts, 600);
      const { logger } = closing;
      const { report, endedAtMs } = await untilClosed(closing, 600);
      // Ended by its own clock within the budget (the CLI exits at the bound regardless).
      expect(endedAtMs).to.be.at.most(600);
      expect(report.ms).to.equal(endedAtMs);
      expect(report.complete).to.equal(false);
      expect(report.cutOff).to.deep.equal([step]);
      expect(logger.lines.map((line) => line.msg)).to.include(`shutdown: stopping the ${step} did not finish within the bound; cut off`);
      expect(logger.lines.find((line) => line.msg === 'stopped')?.obj).to.include({ complete: false });
    });
  }

  it('cuts off every step that hangs, each within its share of the one budget', async () => {
    const closing = close({ readSide: readSideStopping(never), stores: storesClosing(never), webhooks: webhooksStopping(never) }, 800);
    const { report, endedAtMs } = await untilClosed(closing, 800);
    expect(endedAtMs).to.be.at.most(800);
    expect(report.cutOff).to.deep.equal(['webhooks', 'read side', 'stores']);
  });
});

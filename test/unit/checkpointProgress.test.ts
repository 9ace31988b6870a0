import { expect } from 'chai';
import { LoopHealth } from '../../src/application/subscriptions/LoopHealth.js';
import { CheckpointProgress, FOLLOWER_LOOP } from '../../src/application/subscriptions/ReadModelProgress.js';
import { captureLogger } from '../support/captureLogger.js';
import { eventually } from '../support/events.js';

describe('CheckpointProgress (an API instance following another process’s projector)', () => {
  describe('given a store that fails for a while (a network error, an election)', () => {
    it('logs, shows the failure and retries with backoff, never rejecting anything, then follows again', async () => {
      let failuresLeft = 3;
      const health = new LoopHealth();
      const logger = captureLogger();
      const progress = new CheckpointProgress(
        async () => {
          if (failuresLeft-- > 0) throw new Error('server selection timed out');
          return '42';
        },
        5,
        { health, logger },
      );
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const waiting = progress.waitFor('42', 3000);
        await eventually(() => FOLLOWER_LOOP in health.snapshot(), 1000, 2);
        expect(health.snapshot()[FOLLOWER_LOOP]!.failures).to.be.at.least(1);
        expect(await waiting).to.equal(true);
        expect(health.snapshot()).to.deep.equal({});
        expect(logger.lines.filter((line) => line.msg === "cannot read the projector's checkpoint; retrying")).to.have.length(3);
        expect(logger.lines.some((line) => line.msg === "reading the projector's checkpoint again")).to.equal(true);
        await new Promise((resolve) => setImmediate(resolve));
        expect(unhandled).to.deep.equal([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
        progress.stop();
      }
    });
  });

  describe('given a checkpoint that advances', () => {
    it('releases a wait once the checkpoint reaches the position', async () => {
      let checkpoint: string | null = null;
      const progress = new CheckpointProgress(async () => checkpoint, 5);
      const waiting = progress.waitFor('42', 2000);
      setTimeout(() => (checkpoint = '41'), 10);
      setTimeout(() => (checkpoint = '42'), 30);
      expect(await waiting).to.equal(true);
      expect(progress.position).to.equal('42');
      progress.stop();
    });

    it('answers false when the checkpoint stays behind past the timeout, and stops polling', async () => {
      let loads = 0;
      const progress = new CheckpointProgress(async () => {
        loads++;
        return '1';
      }, 5);
      expect(await progress.waitFor('2', 40)).to.equal(false);
      const after = loads;
      await new Promise((resolve) => setTimeout(resolve, 40));
      expect(loads - after).to.be.at.most(1);
      progress.stop();
    });

    it('reads the checkpoint at once when told it moved (lookNow), not at its next poll', async () => {
      let checkpoint: string | null = '1';
      let loads = 0;
      // Polls a minute apart: only lookNow can release the wait within the test's time.
      const progress = new CheckpointProgress(async () => {
        loads++;
        return checkpoint;
      }, 60_000);
      try {
        // Nobody waits: nothing is read.
        progress.lookNow();
        expect(loads).to.equal(0);
        const waiting = progress.waitFor('2', 5_000);
        checkpoint = '2';
        progress.lookNow();
        expect(await waiting).to.equal(true);
        expect(progress.position).to.equal('2');
        expect(loads).to.equal(1);
      } finally {
        progress.stop();
      }
    });

    it('reads one at a time: told during a read, it reads once more after it', async () => {
      let checkpoint = '1';
      let inFlight = 0;
      let most = 0;
      let loads = 0;
      const progress = new CheckpointProgress(async () => {
        loads++;
        const read = checkpoint;
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 5));
        inFlight--;
        return read;
      }, 60_000);
      try {
        const waiting = progress.waitFor('3', 5_000);
        progress.lookNow();
        checkpoint = '3';
        // Three signals during the first read: one more read, after it.
        progress.lookNow();
        progress.lookNow();
        progress.lookNow();
        expect(await waiting).to.equal(true);
        expect(most).to.equal(1);
        expect(loads).to.equal(2);
      } finally {
        progress.stop();
      }
    });

    it('compares positions as numbers, not as text', async () => {
      const progress = new CheckpointProgress(async () => '10', 5);
      expect(await progress.waitFor('9', 100)).to.equal(true);
      progress.stop();
    });
  });
});

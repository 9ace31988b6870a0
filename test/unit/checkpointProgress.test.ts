import { expect } from 'chai';
import { CheckpointProgress } from '../../src/application/ReadModelProgress.js';

describe('CheckpointProgress (an API instance following another process’s projector)', () => {
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

    it('compares positions as numbers, not as text', async () => {
      const progress = new CheckpointProgress(async () => '10', 5);
      expect(await progress.waitFor('9', 100)).to.equal(true);
      progress.stop();
    });
  });
});

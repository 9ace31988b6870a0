import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEFT_RUNNING, runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/**
 * A start that fails part-way (the port taken, a store that cannot open) stops
 * what it had started (projections, webhook fan-out and dispatcher) and exits
 * non-zero within a few seconds, instead of running on without its port.
 */
describe('a failed start', function () {
  this.timeout(30_000);
  const dirs = [tempDir(), tempDir()];
  let holder: ServerProcess;

  before(async () => {
    holder = await startServer({ DATA_DIR: dirs[0]!.path });
  });
  after(async () => {
    await holder.stop();
    dirs.forEach((dir) => dir.dispose());
  });

  it('with the port in use: says so, stops everything it started and exits 1 by itself', async () => {
    const port = new URL(holder.baseUrl).port;
    // Every role runs (projections, webhooks, API), as with `npm start`.
    const run = await runCli(['serve'], { DATA_DIR: dirs[1]!.path, PORT: port, LOG_LEVEL: 'info' });
    expect(run.code).to.equal(1);
    expect(run.stderr + run.stdout).to.contain('EADDRINUSE');
    expect(run.stdout).to.contain('start failed; stopping what was started');
    // Ended by itself, not at the CLI's own 10 s bound on a failed command: the start stopped what it had started.
    expect(run.stderr).not.to.contain(LEFT_RUNNING);
  });

  it('with a store that cannot open (DATA_DIR is a file): exits non-zero and leaves nothing running', async () => {
    const file = join(dirs[1]!.path, 'not-a-folder');
    writeFileSync(file, 'x');
    const run = await runCli(['serve'], { DATA_DIR: file, PORT: '0' });
    expect(run.code).to.not.equal(0);
    expect(run.code).to.not.equal(null);
  });
});

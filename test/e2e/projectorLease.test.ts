import { expect } from 'chai';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import { READ_MODELS_CHECKPOINT } from '../../src/application/subscriptions/ProjectionRunner.js';
import { READ_MODELS_LEASE, WEBHOOKS_LEASE } from '../../src/application/subscriptions/Lease.js';
import { embeddedDatabaseFile, embeddedReadModelsFile } from '../../src/startup/adapters.js';
import { eventually } from '../support/events.js';
import { LEFT_RUNNING, runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/**
 * One projector per DATA_DIR: the read models' lease in read-models.sqlite,
 * with real `chronicle serve` processes.
 */
describe('the projector lease: one projector per DATA_DIR', function () {
  this.timeout(60_000);
  const dir = tempDir('chronicle-lease-');
  const env = { DATA_DIR: dir.path, RUN_API: 'false', RUN_WEBHOOKS: 'false' };
  let first: ServerProcess | null = null;
  let third: ServerProcess | null = null;

  /** The lease's holder and whether the read models have applied the whole log, as another process sees them. */
  const state = async () => {
    const log = SqliteEventStore.open(embeddedDatabaseFile(dir.path));
    const readModels = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path));
    try {
      const head = await log.headPosition();
      const checkpoint = await readModels.checkpoints.load(READ_MODELS_CHECKPOINT);
      return { holder: await readModels.leases.read(READ_MODELS_LEASE), caughtUp: head === checkpoint, head };
    } finally {
      await readModels.close();
      await log.close();
    }
  };
  /** A write through the CLI: one more event in the log, for the projector to apply. */
  const write = async (name: string) => {
    const run = await runCli(['companies', 'create', '--name', name, '--json'], { DATA_DIR: dir.path });
    expect(run.code, run.stderr).to.equal(0);
  };

  after(async () => {
    for (const server of [first, third]) if (server && server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    dir.dispose();
  });

  it('a second projector exits 1 naming the first, and the first keeps applying the log', async () => {
    first = await startServer(env);
    expect((await state()).holder?.pid).to.equal(first.child.pid);

    const second = await runCli(['serve'], { ...env, PORT: '0' });
    expect(second.code, second.stderr).to.equal(1);
    expect(second.stderr).to.contain(`the read models are written by another process: a projector, pid ${first.child.pid} on host`);
    expect(second.stderr).to.contain('stop that one first');
    // It stopped by itself, not at the CLI's 10 s bound on a failed command (`runCli` resolves once no process holds its output).
    expect(second.stderr).not.to.contain(LEFT_RUNNING);

    // API_WORKERS' own projector meets the same lease: the supervisor's start fails and stops its processes.
    const supervised = await runCli(['serve'], { DATA_DIR: dir.path, PORT: '0', API_WORKERS: '2' });
    expect(supervised.code).to.equal(1);
    expect(supervised.stderr).to.contain(`a projector, pid ${first.child.pid}`);
    expect(supervised.stderr).to.contain('background exited with code 1 before its start completed');
    expect(supervised.stderr).not.to.contain(LEFT_RUNNING);

    // The first still holds the lease and still applies what is written.
    await write('Acme');
    await eventually(async () => (await state()).caughtUp, 5_000, 50);
    expect((await state()).holder?.pid).to.equal(first.child.pid);
    expect(first.child.exitCode).to.equal(null);
  });

  it('after the first is killed (SIGKILL), a new projector takes the lease over at once and applies the log', async () => {
    const killed = first!.child.pid;
    const exited = new Promise((resolve) => first!.child.once('exit', resolve));
    first!.child.kill('SIGKILL');
    await exited;
    // Left behind: the dead process's lease.
    expect((await state()).holder?.pid).to.equal(killed);
    await write('Globex');

    third = await startServer({ ...env, LOG_LEVEL: 'info' });
    // On its own host a dead holder's lease is taken at once because its pid is gone, not after the 15 s stale bound.
    expect(third.output()).to.contain('taking over a lease its holder left behind');
    expect(third.output()).to.contain('"reason":"its process is gone"');
    expect((await state()).holder?.pid).to.equal(third.child.pid);
    await eventually(async () => (await state()).caughtUp, 5_000, 50);
    await write('Initech');
    await eventually(async () => (await state()).caughtUp, 5_000, 50);
  });

  it('chronicle replay refuses while a projector runs, and replays once it stopped (which frees the lease)', async () => {
    const refused = await runCli(['replay', '--json'], { DATA_DIR: dir.path });
    expect(refused.code).to.equal(1);
    expect(refused.stdout).to.equal('');
    expect(refused.stderr).to.contain(`a projector, pid ${third!.child.pid}`);

    const code = await third!.stop();
    expect(code, third!.output()).to.equal(0);
    expect((await state()).holder, 'a graceful stop frees the lease').to.equal(null);
    const replayed = await runCli(['replay', '--json'], { DATA_DIR: dir.path });
    expect(replayed.code, replayed.stderr).to.equal(0);
    expect(JSON.parse(replayed.stdout)).to.include({ position: (await state()).head });
    expect((await state()).holder, 'the replay frees it too').to.equal(null);
  });

  it('a projector whose lease another process took over stops its projections and exits 1', async () => {
    const projector = await startServer(env);
    const exited = new Promise<number | null>((resolve) => projector.child.once('exit', (code) => resolve(code)));
    // As a process on another host would once the projector had not renewed for the stale bound (here: at once).
    const readModels = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path));
    try {
      const held = (await readModels.leases.read(READ_MODELS_LEASE))!;
      expect(held.pid).to.equal(projector.child.pid);
      const taker = { owner: 'taker', role: 'projector', pid: process.pid, host: 'elsewhere', scope: null };
      expect((await readModels.leases.claim(READ_MODELS_LEASE, taker, { staleAfterMs: 15_000, replacing: held.owner })).taken).to.equal(true);
      // Its next renewal (every 2 s) finds the lease taken.
      expect(await exited).to.equal(1);
      expect(projector.output()).to.contain(`lost the "read-models" lease to a projector, pid ${process.pid} on host elsewhere`);
      expect((await readModels.leases.read(READ_MODELS_LEASE))?.owner, "its stop leaves the new holder's lease").to.equal('taker');
      await readModels.leases.release(READ_MODELS_LEASE, 'taker');
    } finally {
      await readModels.close();
    }
  });
});

/** One dispatcher per DATA_DIR: the webhooks' lease, beside the read models' one. */
describe('the webhooks lease: one dispatcher per DATA_DIR', function () {
  this.timeout(60_000);
  const dir = tempDir('chronicle-webhooks-lease-');
  const dispatcherOnly = { DATA_DIR: dir.path, RUN_API: 'false', RUN_PROJECTIONS: 'false' };
  const running: ServerProcess[] = [];

  const holder = async () => {
    const readModels = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path));
    try {
      return await readModels.leases.read(WEBHOOKS_LEASE);
    } finally {
      await readModels.close();
    }
  };

  after(async () => {
    for (const server of running) if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    dir.dispose();
  });

  it('a second dispatcher, alone or in a process with every role, exits 1 naming the first; a killed one is taken over', async () => {
    const first = await startServer(dispatcherOnly);
    running.push(first);
    expect((await holder())?.pid).to.equal(first.child.pid);
    expect((await holder())?.role).to.equal('dispatcher');

    const second = await runCli(['serve'], { ...dispatcherOnly, PORT: '0' });
    expect(second.code, second.stderr).to.equal(1);
    expect(second.stderr).to.contain(`the webhooks are fanned out and delivered by another process: a dispatcher, pid ${first.child.pid} on host`);

    // `npm start` beside it: its start fails at the webhooks, and it gives the projector's lease back on the way out.
    const everything = await runCli(['serve'], { DATA_DIR: dir.path, PORT: '0' });
    expect(everything.code, everything.stderr).to.equal(1);
    expect(everything.stderr).to.contain(`a dispatcher, pid ${first.child.pid}`);
    const readModels = SqliteReadModelStore.open(embeddedReadModelsFile(dir.path));
    try {
      expect(await readModels.leases.read(READ_MODELS_LEASE)).to.equal(null);
    } finally {
      await readModels.close();
    }

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;
    const next = await startServer(dispatcherOnly);
    running.push(next);
    expect((await holder())?.pid).to.equal(next.child.pid);
    expect(await next.stop()).to.equal(0);
    // A graceful stop gives the lease back.
    expect(await holder()).to.equal(null);
  });
});

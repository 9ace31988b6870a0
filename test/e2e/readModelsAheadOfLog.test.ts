import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { runCli, startServer, type ServerProcess } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';

/** The log's file and its WAL, as a copy taken of them (a backup) holds them. */
const LOG_PARTS = ['', '-wal'];
/** A backup of the log beside it. */
const backUp = (log: string) => {
  for (const part of LOG_PARTS) if (existsSync(log + part)) copyFileSync(log + part, `${log}${part}.copy`);
};
/** The log's files gone (its shared memory too). */
const deleteLog = (log: string) => {
  for (const part of [...LOG_PARTS, '-shm']) rmSync(log + part, { force: true });
};
/** The log put back to its backup. */
const restore = (log: string) => {
  deleteLog(log);
  for (const part of LOG_PARTS) if (existsSync(`${log}${part}.copy`)) copyFileSync(`${log}${part}.copy`, log + part);
};

describe('chronicle serve on read models ahead of their log (a log put back to an older copy)', function () {
  this.timeout(60_000);
  let dir: ReturnType<typeof tempDir>;
  let env: NodeJS.ProcessEnv;
  let server: ServerProcess | null = null;
  let key: string;

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server!.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as { data: { id: string }; meta?: { total: number } } };
  };
  const serve = async () => {
    server = await startServer(env);
  };
  /** The first start: the demo key it prints is the one every call uses. */
  const serveFirst = async () => {
    await serve();
    key = /API key (chr_\w+)/.exec(server!.output())![1]!;
  };
  const stop = async () => {
    expect(await server!.stop()).to.equal(0);
    server = null;
  };

  beforeEach(() => {
    dir = tempDir('chronicle-ahead-');
    env = { DATA_DIR: dir.path, RUN_WEBHOOKS: 'false' };
  });
  afterEach(async () => {
    await server?.stop();
    server = null;
    dir.dispose();
  });

  it('refuses to start, saying what to do; starts after `chronicle replay`, and what is written next is read back', async () => {
    await serveFirst();
    const kept = await call('POST', '/contacts', { name: 'Before the copy', phoneNumber: '+4930100001' });
    expect(kept.status).to.equal(201);
    await stop();
    const log = embeddedDatabaseFile(dir.path);
    backUp(log);

    await serve();
    const lost = await call('POST', '/contacts', { name: 'After the copy', phoneNumber: '+4930100002' });
    expect(lost.status).to.equal(201);
    await stop();
    // The log is put back to the copy; the read models stay as they were.
    restore(log);

    const refused = await runCli(['serve'], { ...env, PORT: '0' });
    expect(refused.code).to.not.equal(0);
    const said = refused.stdout + refused.stderr;
    expect(said).to.match(/the read models \(checkpoint "read-models"\) hold the log up to position \d+, but the log ends at position \d+/);
    expect(said).to.include('chronicle replay');

    const replay = await runCli(['replay', '--json'], env);
    expect(replay.code, replay.stderr).to.equal(0);

    await serve();
    expect((await call('GET', `/contacts/${kept.body.data.id}`)).status).to.equal(200);
    expect((await call('GET', `/contacts/${lost.body.data.id}`)).status).to.equal(404);
    // Its events take positions the read models had counted as applied before the replay.
    const next = await call('POST', '/contacts', { name: 'After the replay', phoneNumber: '+4930100003' });
    expect(next.status).to.equal(201);
    expect((await call('GET', `/contacts/${next.body.data.id}`)).status).to.equal(200);
    expect((await call('GET', '/contacts')).body.meta!.total).to.equal(2);
  });
  it('refuses to start when the log has another event at the checkpoint (an older copy that took new events since)', async () => {
    await serveFirst();
    expect((await call('POST', '/contacts', { name: 'Before the copy', phoneNumber: '+4930100005' })).status).to.equal(201);
    await stop();
    const log = embeddedDatabaseFile(dir.path);
    backUp(log);
    await serve();
    expect((await call('POST', '/contacts', { name: 'After the copy', phoneNumber: '+4930100006' })).status).to.equal(201);
    await stop();
    restore(log);
    // The copy takes new events (another process wrote to it before the projector started): as long as
    // the read models' checkpoint now, so positions alone cannot tell.
    const store = SqliteEventStore.open(log);
    let head: string | null;
    try {
      for (let i = 0; i < 4; i++) {
        await store.append(`probe-${i}`, [{ id: randomUUID(), type: 'Probed', data: {}, metadata: { source: 'system', correlationId: 'c' } }], 'no_stream');
      }
      head = await store.headPosition();
    } finally {
      await store.close();
    }

    const refused = await runCli(['serve'], { ...env, PORT: '0' });
    expect(refused.code).to.not.equal(0);
    const said = refused.stdout + refused.stderr;
    const stated = /hold the log up to event ([0-9a-f-]{36}) at position (\d+), but the log has event ([0-9a-f-]{36}) there/.exec(said);
    expect(stated, said).to.not.equal(null);
    expect(stated![1]).to.not.equal(stated![3]);
    expect(Number(stated![2])).to.be.at.most(Number(head!));
    expect(said).to.include('chronicle replay');
  });

  it('refuses to start beside an empty log (the log lost, or the wrong one) before writing anything to it, the demo included', async () => {
    await serveFirst();
    expect((await call('POST', '/contacts', { name: 'Kept', phoneNumber: '+4930100004' })).status).to.equal(201);
    await stop();
    const log = embeddedDatabaseFile(dir.path);
    deleteLog(log);

    const refused = await runCli(['serve'], { ...env, PORT: '0' });
    expect(refused.code).to.not.equal(0);
    expect(refused.stdout + refused.stderr).to.match(/hold the log up to position \d+, but the log is empty/);
    expect(refused.stdout + refused.stderr).to.not.include('API key');
    const store = SqliteEventStore.open(log);
    try {
      expect(await store.headPosition()).to.equal(null);
    } finally {
      await store.close();
    }
  });
});

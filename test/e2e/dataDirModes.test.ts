import { expect } from 'chai';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openStores } from '../../src/startup/adapters.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { closeStores } from '../../src/startup/Stores.js';
import { captureLogger } from '../support/captureLogger.js';
import { tempDir } from '../support/tempStore.js';

const modeOf = (path: string): number => statSync(path).mode & 0o777;

/** Every entry of `folder` with its mode, as `{name: '0600'}`. */
const modesIn = (folder: string): Record<string, string> =>
  Object.fromEntries(readdirSync(folder).map((name) => [name, `0${modeOf(join(folder, name)).toString(8)}`]));

/** Runs `use` with the process's umask set to `mask`, restoring it after. */
const withUmask = async <T>(mask: number, use: () => Promise<T>): Promise<T> => {
  const before = process.umask(mask);
  try {
    return await use();
  } finally {
    process.umask(before);
  }
};

/** A whole server on `dataDir` that wrote something (so each SQLite file has its -wal and -shm). */
const startWriting = async (dataDir: string, logger = captureLogger()): Promise<Chronicle> => {
  const chronicle = await startChronicle(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), logger);
  const res = await fetch(`http://127.0.0.1:${chronicle.port}/contacts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${chronicle.demo!.key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Private', phoneNumber: '+15550001111' }),
  });
  expect(res.status).to.equal(201);
  return chronicle;
};

describe('DATA_DIR is private to the server’s user', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => (dir = tempDir('chronicle-modes-')));
  afterEach(() => dir.dispose());

  it('a new DATA_DIR is 0700 and every file in it 0600, under a umask that would leave them open to all', async () => {
    const dataDir = join(dir.path, 'nested', 'data');
    await withUmask(0o000, async () => {
      const chronicle = await startWriting(dataDir);
      try {
        const modes = modesIn(dataDir);
        expect(Object.keys(modes)).to.include.members([
          'chronicle.sqlite',
          'chronicle.sqlite-wal',
          'chronicle.sqlite-shm',
          'read-models.sqlite',
          'read-models.sqlite-wal',
          'read-models.sqlite-shm',
        ]);
        for (const [name, mode] of Object.entries(modes)) expect(mode, name).to.equal('0600');
        expect(modeOf(dataDir)).to.equal(0o700);
      } finally {
        await chronicle.close();
      }
    });
  });

  it('the rate-limit counters’ file of an API process beside a projector, and the CLI’s stores, are private too', async () => {
    const dataDir = join(dir.path, 'data');
    await withUmask(0o000, async () => {
      const stores = await openStores(loadConfig({ DATA_DIR: dataDir, RUN_PROJECTIONS: 'false' }));
      try {
        // A count written, so the counters' file has its -wal and -shm.
        await stores.rateLimits.consume('key', new Date());
      } finally {
        await closeStores(stores);
      }
    });
    const modes = modesIn(dataDir);
    expect(Object.keys(modes)).to.include.members(['chronicle.sqlite', 'read-models.sqlite', 'rate-limits.sqlite']);
    for (const [name, mode] of Object.entries(modes)) expect(mode, name).to.equal('0600');
    expect(modeOf(dataDir)).to.equal(0o700);
  });

  it('tightens a DATA_DIR left open by an earlier release at start, and says so once', async () => {
    const dataDir = join(dir.path, 'data');
    await (await startWriting(dataDir)).close();
    // As an earlier release left it under the usual umask, with a file it wrote and a stray one.
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'chronicle.sqlite-shm'), '');
    writeFileSync(join(dataDir, 'notes.txt'), 'left here');
    for (const name of readdirSync(dataDir)) chmodSync(join(dataDir, name), 0o644);
    chmodSync(dataDir, 0o755);

    const logger = captureLogger();
    const chronicle = await startChronicle(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), logger);
    try {
      for (const [name, mode] of Object.entries(modesIn(dataDir))) expect(mode, name).to.equal('0600');
      expect(modeOf(dataDir)).to.equal(0o700);
      const told = logger.lines.filter((line) => line.msg === 'DATA_DIR made private to this user');
      expect(told).to.have.length(1);
      const { modes } = told[0]!.obj as { modes: Record<string, string> };
      expect(modes).to.deep.include({
        [dataDir]: '0755 → 0700',
        [join(dataDir, 'chronicle.sqlite')]: '0644 → 0600',
        [join(dataDir, 'notes.txt')]: '0644 → 0600',
      });
    } finally {
      await chronicle.close();
    }

    // Nothing left to tighten: nothing said.
    const again = captureLogger();
    await (await startChronicle(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), again)).close();
    expect(again.lines.filter((line) => line.msg?.startsWith('DATA_DIR'))).to.deep.equal([]);
  });

  it('never changes a shared folder such as /tmp (sticky bit): it warns instead', async () => {
    const shared = join(dir.path, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const logger = captureLogger();
    const chronicle = await startChronicle(loadConfig({ DATA_DIR: shared, PORT: '0' }), logger);
    await chronicle.close();
    expect(modeOf(shared)).to.equal(0o777);
    expect(statSync(shared).mode & 0o1000).to.equal(0o1000);
    const warned = logger.lines.filter((line) => line.level === 'warn' && line.msg?.startsWith('DATA_DIR'));
    expect(warned).to.have.length(1);
    expect(JSON.stringify(warned[0]!.obj)).to.include('sticky bit');
  });
});

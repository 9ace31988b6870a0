import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { loadConfig } from '../../src/config.js';
import { embeddedDatabaseFile, embeddedReadModelsFile } from '../../src/startup/adapters.js';
import { startChronicle, type Chronicle } from '../../src/startup/startChronicle.js';
import { captureLogger } from '../support/captureLogger.js';
import { tempDir } from '../support/tempStore.js';

describe('a restart on the same DATA_DIR (embedded)', function () {
  this.timeout(30_000);
  let dir: ReturnType<typeof tempDir>;
  let running: Chronicle | null = null;
  const start = async () => {
    const logger = captureLogger();
    running = await startChronicle(loadConfig({ DATA_DIR: dir.path, PORT: '0', RUN_WEBHOOKS: 'false' }), logger);
    return { chronicle: running, logger, url: `http://127.0.0.1:${running.port}` };
  };
  const stop = async () => {
    await running?.close();
    running = null;
  };

  beforeEach(() => {
    dir = tempDir('chronicle-restart-');
  });
  afterEach(async () => {
    await stop();
    dir.dispose();
  });

  it('resumes the read models from their checkpoint: nothing is applied again, and everything is still listed', async () => {
    const first = await start();
    const key = first.chronicle.demo!.key;
    const call = async (url: string, method: string, path: string, body?: unknown) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(response.status, path).to.be.lessThan(300);
      return (await response.json()) as { data: { id: string; name?: string }[] & { id: string }; meta?: { total: number } };
    };
    for (let i = 0; i < 12; i++) await call(first.url, 'POST', '/contacts', { name: `Contact ${i}`, phoneNumber: `+4930${String(1000 + i)}` });
    const contact = (await call(first.url, 'GET', '/contacts?search=contact%2011')).data[0]!;
    await call(first.url, 'POST', '/deals', { title: 'Engines', value: 10, contactId: contact.id, stage: 'proposal' });
    const appliedFirst = first.chronicle.projections!.eventsApplied;
    expect(appliedFirst).to.be.greaterThan(12);
    await stop();
    expect(existsSync(embeddedReadModelsFile(dir.path))).to.equal(true);
    expect(existsSync(embeddedDatabaseFile(dir.path))).to.equal(true);

    const second = await start();
    expect(second.chronicle.demo).to.equal(null);
    expect(second.chronicle.projections!.eventsApplied).to.equal(0);
    expect(second.logger.lines.map((line) => line.msg)).to.include('read models resumed at the head of the log');
    expect(second.logger.lines.map((line) => line.msg)).to.not.include('applying the log to the read models');
    const contacts = await call(second.url, 'GET', '/contacts?limit=200');
    expect(contacts.meta!.total).to.equal(12);
    expect((await call(second.url, 'GET', '/contacts?search=CONTACT%2011')).data.map((c) => c.id)).to.deep.equal([contact.id]);
    const deals = await call(second.url, 'GET', '/deals?stage=proposal');
    expect(deals.meta!.total).to.equal(1);
    // Writes after the restart are applied from there on.
    await call(second.url, 'POST', '/contacts', { name: 'After the restart', phoneNumber: '+4930999999' });
    expect((await call(second.url, 'GET', '/contacts?search=after')).meta!.total).to.equal(1);
    expect(second.chronicle.projections!.eventsApplied).to.be.greaterThan(0);
  });
});

import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { newId } from '../../src/shared/ids.js';
import { embeddedDatabaseFile } from '../../src/startup/adapters.js';
import { contactCreated } from '../support/legacyEvents.js';
import { CLI } from '../support/runCli.js';
import { tempDir } from '../support/tempStore.js';
import { seedCompanyWithKeys } from '../support/seedCompany.js';
import { freePort } from '../support/freePort.js';

const CONTACTS = 40_000;

/** A log with a company, a key, and many contacts written straight into the file (no fsync per event). */
const seedLog = async (dataDir: string): Promise<string> => {
  const store = SqliteEventStore.open(embeddedDatabaseFile(dataDir));
  try {
    const { companyId, keys } = await seedCompanyWithKeys(store, 1);
    const insert = store.db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata, recorded_at) VALUES (?, ?, 0, ?, ?, ?, ?)');
    store.db.transaction(() => {
      for (let i = 0; i < CONTACTS; i++) {
        const contactId = newId();
        const event = contactCreated(contactId, companyId, `Contact ${i}`);
        insert.run(event.id, `contact-${contactId}`, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), '2026-01-01T10:00:00.000Z');
      }
    })();
    return keys[0]!;
  } finally {
    await store.close();
  }
};

/**
 * While a start catches up with a long log, the process already listens:
 * /health answers, /ready says what it waits for, and resource routes answer
 * 503 STARTING (never a wrong 401: the API keys may not be in the read models yet).
 */
describe('a start catching up with a long log', function () {
  this.timeout(120_000);
  const dir = tempDir();
  after(() => dir.dispose());

  it('answers /health and /ready at once, resource routes 503 STARTING until the read models caught up', async () => {
    const key = await seedLog(dir.path);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, [CLI, 'serve'], { env: { ...process.env, DATA_DIR: dir.path, PORT: String(port), LOG_LEVEL: 'warn' } });
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const seen: string[] = [];
    try {
      const deadline = Date.now() + 90_000;
      let served = false;
      // Bounded in time: polls until the API serves, or the deadline.
      while (!served && Date.now() < deadline) {
        const health = await fetch(`${base}/health`).catch(() => null);
        if (health?.status === 200) {
          const ready = await fetch(`${base}/ready`);
          const contacts = await fetch(`${base}/contacts?limit=1`, { headers: { Authorization: `Bearer ${key}` } });
          const body = (await contacts.json()) as { code?: string; meta?: { total: number } };
          seen.push(`${ready.status}/${contacts.status}${body.code ? `:${body.code}` : ''}`);
          if (contacts.status === 200) {
            // /ready was asked before the routes: it may have been still starting then, never after.
            expect((await fetch(`${base}/ready`)).status).to.equal(200);
            expect(body.meta?.total).to.equal(CONTACTS);
            served = true;
          } else {
            expect(contacts.status, JSON.stringify(body)).to.equal(503);
            expect(body.code).to.equal('STARTING');
            expect(contacts.headers.get('retry-after')).to.equal('1');
            expect(ready.status).to.equal(503);
            // Not ready while starting, whatever the lag: the last events of a log written a moment ago are within READY_MAX_LAG_MS.
            const readiness = (await ready.json()) as { details: { checks: Record<string, { status: string }> } };
            expect(readiness.details.checks.start?.status).to.equal('waiting');
          }
        } else {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      expect(served, seen.join(' ')).to.equal(true);
      // Listening began before the catch-up ended: at least one answer came while starting.
      expect(seen[0], seen.join(' ')).to.equal('503/503:STARTING');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});

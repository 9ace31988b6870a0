// npm run bench:replay — `chronicle replay` beside the raw read + parse rate of the same log, in one run.
// Not a test: it prints figures and a ratio. Every loop is bounded by a count.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EventMetadata } from '../src/shared/EventMetadata.js';
import { newId } from '../src/shared/ids.js';
import { embeddedDatabaseFile } from '../src/startup/adapters.js';
import { companyDecider } from '../src/features/companies/domain/companyDecider.js';
import type { CompanyCommand } from '../src/features/companies/domain/companyCommands.js';
import { companyStream } from '../src/features/companies/domain/companyEvents.js';
import { userDecider } from '../src/features/users/domain/userDecider.js';
import type { UserCommand } from '../src/features/users/domain/userCommands.js';
import { userStream } from '../src/features/users/domain/userEvents.js';
import { contactDecider, type ContactState } from '../src/features/contacts/domain/contactDecider.js';
import { contactStream } from '../src/features/contacts/domain/contactEvents.js';
import { liveContactSummaryOf } from '../src/features/deals/domain/dealContactSummary.js';
import { dealDecider, type DealState } from '../src/features/deals/domain/dealDecider.js';
import { dealStream } from '../src/features/deals/domain/dealEvents.js';
import type { ReplaySummary } from '../src/application/replay/replayReadModels.js';
import { tempDir } from '../test/support/tempStore.js';
import { rawReadParse, readAllBatches } from './logReadRates.js';
import { rawLogWriter } from './support/rawLogWriter.js';
import { decided, fold } from './support/decided.js';
import { reservePhoneNumber } from './support/reservePhoneNumber.js';

const EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 100_000);
const COMPANIES = 20;
const CLI = fileURLToPath(new URL('../../bin/chronicle.js', import.meta.url));

/**
 * A log shaped like real use, written straight into the SQLite file (no fsync
 * per event): companies with a user each, then contacts (a phone reservation and
 * `ContactCreated`; a third of them updated), and a deal for every second contact
 * (with its contact and user summaries) whose stage moves and which is then won
 * or lost. Every event comes from the aggregates' own deciders, so the shapes
 * are exactly what the API writes.
 */
const seed = (file: string, target: number): number => {
  const { db, append, written } = rawLogWriter(file);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const meta = (companyId: string): EventMetadata => ({ source: 'api', correlationId: newId(), companyId, keyId: `key-${companyId}` });

  db.transaction(() => {
    const users: { companyId: string; summary: { id: string; name: string; email: string } }[] = [];
    for (let c = 0; c < COMPANIES; c++) {
      const companyId = newId();
      const at = new Date(start + c).toISOString();
      append(companyStream(companyId), decided(companyDecider, { type: 'CreateCompany', companyId, name: `Company ${c}`, at: new Date(at) } as CompanyCommand, companyDecider.initialState), meta(companyId), at);
      const userId = newId();
      const email = `owner${c}@example.com`;
      append(userStream(userId), decided(userDecider, { type: 'CreateUser', userId, companyId, name: `Owner ${c}`, email, at: new Date(at) } as UserCommand, userDecider.initialState), meta(companyId), at);
      users.push({ companyId, summary: { id: userId, name: `Owner ${c}`, email } });
    }
    const stages = ['qualification', 'proposal', 'negotiation'];
    // Bounded: every turn writes at least two events.
    for (let i = 0; written() < target; i++) {
      const { companyId, summary: owner } = users[i % COMPANIES]!;
      const metadata = meta(companyId);
      const at = (step: number) => new Date(start + 1000 * i + step).toISOString();
      const contactId = newId();
      const phoneNumber = `+49151${String(i).padStart(8, '0')}`;
      reservePhoneNumber(append, { companyId, phoneNumber, contactId }, metadata, at(0));
      const fields = {
        name: `Contact ${i}`,
        phoneNumber,
        email: `contact${i}@example.com`,
        firstName: 'Ada',
        lastName: `Number ${i}`,
        currentCompany: `Customer ${i % 997}`,
        city: 'Berlin',
        country: 'DE',
        tags: i % 2 === 0 ? ['lead'] : ['customer', 'vip'],
      };
      const created = decided(contactDecider, { type: 'CreateContact', contactId, companyId, fields, at: new Date(at(1)) }, contactDecider.initialState);
      append(contactStream(contactId), created, metadata, at(1));
      let contact: ContactState = fold(contactDecider, contactDecider.initialState, created);
      if (i % 3 === 0) {
        const changes = { email: `contact${i}@example.org`, tags: ['customer'] };
        const updated = decided(contactDecider, { type: 'UpdateContact', contactId, companyId, changes, at: new Date(at(2)) }, contact);
        append(contactStream(contactId), updated, metadata, at(2));
        contact = fold(contactDecider, contact, updated);
      }
      if (i % 2 === 0 && contact.status === 'active') {
        const dealId = newId();
        const summary = liveContactSummaryOf(contact.contact);
        const dealCreated = decided(
          dealDecider,
          {
            type: 'CreateDeal',
            dealId,
            companyId,
            fields: { title: `Deal ${i}`, value: 1000 + (i % 50) * 250, currency: 'EUR', stage: stages[0]!, source: 'web' },
            contact: summary,
            assignedTo: owner,
            at: new Date(at(3)),
          },
          dealDecider.initialState,
        );
        append(dealStream(dealId), dealCreated, metadata, at(3));
        let deal: DealState = fold(dealDecider, dealDecider.initialState, dealCreated);
        const change = (step: number, fieldsChanged: { status?: 'won' | 'lost'; stage?: string }) => {
          const events = decided(dealDecider, { type: 'ChangeDealStatus', dealId, companyId, change: fieldsChanged, contact: summary, at: new Date(at(step)) }, deal);
          append(dealStream(dealId), events, metadata, at(step));
          deal = fold(dealDecider, deal, events);
        };
        change(4, { stage: stages[1 + (i % 2)]! });
        if (i % 4 === 0) change(5, { status: i % 8 === 0 ? 'won' : 'lost' });
      }
    }
  })();
  db.close();
  return written();
};

/** `chronicle replay --json` on the data folder, as an operator runs it. */
const replayChild = (dataDir: string): Promise<{ summary: ReplaySummary; wallMs: number }> =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [CLI, 'replay', '--json'], { env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => {
      if (code !== 0) reject(new Error(`chronicle replay exited with ${code}:\n${stderr}`));
      else resolve({ summary: JSON.parse(stdout) as ReplaySummary, wallMs: performance.now() - started });
    });
  });

const row = (name: string, perSecond: number, note = ''): void => {
  console.log(`${name.padEnd(52)} ${String(perSecond).padStart(9)} events/s${note}`);
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-bench-replay-');
  try {
    const file = embeddedDatabaseFile(dir.path);
    const seededAt = performance.now();
    const events = seed(file, EVENTS);
    console.log(`Replay benchmark: a log of ${events} events (${COMPANIES} companies; contacts, updates, deals, stage and status changes), seeded in ${((performance.now() - seededAt) / 1000).toFixed(1)} s\n`);

    const raw = rawReadParse(file);
    const batches = await readAllBatches(file);
    if (batches.events !== events) throw new Error(`read ${batches.events} events, seeded ${events}`);
    const { summary, wallMs } = await replayChild(dir.path);
    if (summary.events !== events) throw new Error(`replayed ${summary.events} events, seeded ${events}`);

    row('raw better-sqlite3: SELECT iterate() + JSON.parse', raw);
    row('raw read + parse: readAll in batches of 1000', batches.perSecond);
    row(
      `chronicle replay --json (${summary.collections} read models)`,
      summary.eventsPerSecond,
      `  ${(summary.eventsPerSecond / batches.perSecond).toFixed(2)}× readAll; ${(summary.ms / 1000).toFixed(1)} s replaying, ${(wallMs / 1000).toFixed(1)} s with process start`,
    );
  } finally {
    dir.dispose();
  }
};

await main();

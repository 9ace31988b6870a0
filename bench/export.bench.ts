// npm run bench:export — a company's export (POST /admin/companies/:id/exports) on a large log:
// peak RSS while the archive is written against the RSS before it, the time and the size.
// Not a test: it prints figures. Every loop is bounded by a count.
import { loadConfig } from '../src/config.js';
import type { EventMetadata } from '../src/shared/EventMetadata.js';
import { newId } from '../src/shared/ids.js';
import { systemClock } from '../src/shared/Clock.js';
import { silentLogger } from '../src/application/ports/Logger.js';
import { CompanyExports } from '../src/application/companyExport/CompanyExports.js';
import { embeddedDatabaseFile, openStores } from '../src/startup/adapters.js';
import { closeStores } from '../src/startup/Stores.js';
import { catchUpReadModels } from '../src/cli/catchUpReadModels.js';
import { EXPORTED_RECORDS, SECRET_EVENT_FIELDS } from '../src/features/index.js';
import { companyDecider } from '../src/features/companies/domain/companyDecider.js';
import { companyStream } from '../src/features/companies/domain/companyEvents.js';
import { CompanyName } from '../src/features/companies/domain/CompanyName.js';
import { contactDecider, type ContactState } from '../src/features/contacts/domain/contactDecider.js';
import { contactStream } from '../src/features/contacts/domain/contactEvents.js';
import { tempDir } from '../test/support/tempStore.js';
import { rawLogWriter } from './support/rawLogWriter.js';
import { decided, fold } from './support/decided.js';
import { reservePhoneNumber } from './support/reservePhoneNumber.js';

const EVENTS = Number(process.env.BENCH_EXPORT_EVENTS ?? 1_000_000);
/** How often the RSS is sampled while the export runs. */
const SAMPLE_MS = 20;

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/**
 * One company's log written straight into the SQLite file: contacts, each with its
 * phone number's reservation and its creation, every third one updated, until
 * `target` events (the shapes the API writes, from the deciders).
 */
const nameOf = (name: string): CompanyName => {
  const decoded = CompanyName.decode(name);
  if (decoded._tag === 'Left') throw new Error(`not a company name: ${name}`);
  return decoded.right;
};

const seed = (file: string, target: number): { companyId: string; written: number } => {
  const { db, append, written } = rawLogWriter(file);
  const companyId = newId();
  const metadata: EventMetadata = { source: 'api', correlationId: newId(), companyId, keyId: 'bench-key' };
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  db.transaction(() => {
    const at0 = new Date(start).toISOString();
    append(companyStream(companyId), decided(companyDecider, { type: 'CreateCompany', companyId, name: nameOf('Exported'), at: new Date(at0) }, companyDecider.initialState), metadata, at0);
    // Bounded: every turn writes at least two events.
    for (let i = 0; written() < target; i++) {
      const at = (step: number) => new Date(start + 1000 * i + step).toISOString();
      const contactId = newId();
      const phoneNumber = `+49151${String(i).padStart(8, '0')}`;
      reservePhoneNumber(append, { companyId, phoneNumber, contactId }, metadata, at(0));
      const fields = { name: `Contact ${i}`, phoneNumber, email: `contact${i}@example.com`, city: 'Berlin', tags: ['lead'] };
      const created = decided(contactDecider, { type: 'CreateContact', contactId, companyId, fields, at: new Date(at(1)) }, contactDecider.initialState);
      append(contactStream(contactId), created, metadata, at(1));
      if (i % 3 === 0) {
        const contact: ContactState = fold(contactDecider, contactDecider.initialState, created);
        append(contactStream(contactId), decided(contactDecider, { type: 'UpdateContact', contactId, companyId, changes: { city: 'Hamburg' }, at: new Date(at(2)) }, contact), metadata, at(2));
      }
    }
  })();
  db.close();
  return { companyId, written: written() };
};

const main = async (): Promise<void> => {
  const dir = tempDir('chronicle-bench-export-');
  try {
    const config = loadConfig({ DATA_DIR: dir.path });
    const seeded = seed(embeddedDatabaseFile(dir.path), EVENTS);
    console.log(`seeded ${seeded.written.toLocaleString('en')} events of one company`);
    const stores = await openStores(config);
    try {
      const caughtUp = performance.now();
      await catchUpReadModels(stores);
      console.log(`read models built in ${((performance.now() - caughtUp) / 1000).toFixed(1)} s`);
      const exports = new CompanyExports({
        store: stores.companyExports,
        eventStore: stores.eventStore,
        readModels: stores.readModels,
        records: EXPORTED_RECORDS,
        secretFields: SECRET_EVENT_FIELDS,
        newId,
        clock: systemClock,
        logger: silentLogger,
      });
      global.gc?.();
      const before = process.memoryUsage().rss;
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), SAMPLE_MS);
      const started = performance.now();
      const asked = await exports.start({ id: seeded.companyId, name: 'Exported' });
      await exports.settled();
      const ms = performance.now() - started;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      const done = await exports.get(seeded.companyId, asked.id);
      if (done?.state !== 'ready') throw new Error(`the export ended ${done?.state ?? 'missing'}`);
      console.log(
        JSON.stringify(
          {
            events: done.progress.events,
            records: done.progress.records,
            seconds: Number((ms / 1000).toFixed(1)),
            archive: mib(done.size ?? 0),
            rssBefore: mib(before),
            rssPeak: mib(peak),
            rssGrowth: mib(peak - before),
          },
          null,
          2,
        ),
      );
    } finally {
      await closeStores(stores);
    }
  } finally {
    dir.dispose();
  }
};

await main();

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/SqliteReadModelStore.js';
import type { SqliteDocumentCollection } from '../../src/adapters/sqlite/SqliteDocumentCollection.js';
import type { PostgresDocumentCollection } from '../../src/adapters/postgres/PostgresDocumentCollection.js';
import type { RecordedEvent } from '../../src/application/ports/EventStore.js';
import type { Projection } from '../../src/application/ports/ReadModelStore.js';
import { createContact } from '../../src/features/contacts/application/createContact.js';
import { dealSearchOf, dealsProjection, type DealDoc } from '../../src/features/deals/index.js';
import { createDeal } from '../../src/features/deals/application/createDeal.js';
import { dealSearchQuery } from '../../src/features/deals/readModels/dealSearch.js';
import { newId } from '../../src/shared/ids.js';
import { skipLine } from '../support/integration.js';
import { postgresTestUrl } from '../support/postgres.js';
import { postgresReadModelStores } from '../support/postgresReadModels.js';
import { tempDir } from '../support/tempStore.js';

/** The `deals` read model as releases before the console's search laid it out: no searched fields. */
const earlierDeals: Projection<DealDoc> = { ...dealsProjection, search: [] };

const COMPANY = newId();

/** Thirty deals, and two more whose title holds "engine", one of them with Ada Lovelace as its contact: the log's events. */
const history = async (): Promise<RecordedEvent[]> => {
  const dir = tempDir('chronicle-deal-layout-');
  const log = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  try {
    const deps = { eventStore: log, newId, clock: { now: () => new Date('2026-03-01T10:00:00.000Z') } };
    const metadata = { source: 'api' as const, correlationId: 'layout', companyId: COMPANY };
    const ada = await createContact(deps, { companyId: COMPANY, fields: { name: 'Ada Lovelace', phoneNumber: '+442079460001' }, metadata });
    if (E.isLeft(ada)) throw new Error(JSON.stringify(ada.left));
    for (let i = 0; i < 30; i++) await createDeal(deps, { companyId: COMPANY, fields: { title: `Deal ${i}`, value: i, currency: 'EUR' }, metadata });
    await createDeal(deps, { companyId: COMPANY, fields: { title: 'Analytical Engine', value: 1, currency: 'GBP', contactId: ada.right.contact.id }, metadata });
    await createDeal(deps, { companyId: COMPANY, fields: { title: 'Difference engine', value: 1, currency: 'GBP' }, metadata });
    return await log.readAll({ after: null });
  } finally {
    await log.close();
    dir.dispose();
  }
};

/** What the search finds, by title (newest first). */
const titles = async (store: Parameters<typeof dealSearchOf>[0], text: string) =>
  (await dealSearchOf(store).dealsMatching({ companyId: COMPANY, text, limit: 50 })).items.map((deal) => deal.title);

/**
 * A release that adds the deals' searched fields, started on read models an
 * earlier one built: the engine lays the `deals` table out again when it binds
 * it (no replay, every document kept), and the search then reads the searched
 * texts (SQLite: the full-text table; PostgreSQL: the trigram-indexed columns).
 */
describe('the deals read model gains its searched fields on the read models of an earlier release', function () {
  this.timeout(60_000);
  let events: RecordedEvent[];
  before(async () => (events = await history()));

  it('SQLite (embedded): laid out again at open, every deal kept, searched through the full-text table', async () => {
    const dir = tempDir('chronicle-deal-layout-');
    try {
      const file = join(dir.path, 'read-models.sqlite');
      const earlier = SqliteReadModelStore.open(file);
      await earlier.collection(earlierDeals).apply(events);
      await earlier.close();

      const store = SqliteReadModelStore.open(file);
      try {
        const deals = store.collection(dealsProjection) as SqliteDocumentCollection<DealDoc>;
        await store.init();
        expect(await titles(store, 'ENGINE')).to.deep.equal(['Difference engine', 'Analytical Engine']);
        expect(await titles(store, 'lovelace')).to.deep.equal(['Analytical Engine']);
        expect((await deals.list({ companyId: COMPANY, filters: [], page: 1, limit: 1, order: 'asc' })).total).to.equal(32);
        expect(deals.explain(dealSearchQuery({ companyId: COMPANY, text: 'engine', limit: 50 })).page.join(' ')).to.contain('VIRTUAL TABLE');
        const layout = store.db.prepare("SELECT layout FROM read_model_tables WHERE name = 'deals'").get() as { layout: string };
        expect(JSON.parse(layout.layout).search).to.deep.equal([...dealsProjection.search!]);
      } finally {
        await store.close();
      }
    } finally {
      dir.dispose();
    }
  });

  const serverUrl = postgresTestUrl();
  if (serverUrl) {
    const stores = postgresReadModelStores(serverUrl);
    after(() => stores.dropDatabase());

    it('PostgreSQL: laid out again when bound, every deal kept, searched on the searched texts', async () => {
      const earlier = await stores.open();
      await earlier.store.collection(earlierDeals).apply(events);
      await earlier.store.close();
      const later = await stores.open({ schema: earlier.schema });
      try {
        const deals = later.store.collection(dealsProjection) as PostgresDocumentCollection<DealDoc>;
        await later.store.init();
        expect(await titles(later.store, 'ENGINE')).to.deep.equal(['Difference engine', 'Analytical Engine']);
        expect(await titles(later.store, 'lovelace')).to.deep.equal(['Analytical Engine']);
        expect((await deals.list({ companyId: COMPANY, filters: [], page: 1, limit: 1, order: 'asc' })).total).to.equal(32);
        const plan = (await deals.explain(dealSearchQuery({ companyId: COMPANY, text: 'engine', limit: 50 }))).join('\n');
        expect(plan).to.contain('s0 ~~').and.contain('s1 ~~');
      } finally {
        await later.dispose();
      }
    });
  } else {
    skipLine('the deals read model gains its searched fields: PostgreSQL', 'POSTGRES_TEST_URL');
  }
});

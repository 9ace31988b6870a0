import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import type { Document } from 'mongodb';
import { MongoReadModelStore } from '../../../src/adapters/mongodb/MongoReadModelStore.js';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { createContact } from '../../../src/features/contacts/application/createContact.js';
import { eraseContact } from '../../../src/features/contacts/application/eraseContact.js';
import { dealSearchOf, dealsProjection } from '../../../src/features/deals/index.js';
import { createDeal } from '../../../src/features/deals/application/createDeal.js';
import { newId } from '../../../src/shared/ids.js';
import { mongoStandIn } from '../../support/mongoStandIn.js';
import { tempDir } from '../../support/tempStore.js';

const COMPANY = newId();

/** A contact (Ada Lovelace), a deal linked to it, and the contact's erasure: the log's events, in two parts. */
const history = async (): Promise<{ created: RecordedEvent[]; erased: RecordedEvent[] }> => {
  const dir = tempDir('chronicle-mongo-deal-search-');
  const log = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
  try {
    const deps = { eventStore: log, newId, clock: { now: () => new Date('2026-03-01T10:00:00.000Z') } };
    const metadata = { source: 'api' as const, correlationId: 'mongo', companyId: COMPANY };
    const ada = await createContact(deps, { companyId: COMPANY, fields: { name: 'Ada Lovelace', phoneNumber: '+442079460001', email: 'Ada@Engines.example' }, metadata });
    if (E.isLeft(ada)) throw new Error(JSON.stringify(ada.left));
    await createDeal(deps, { companyId: COMPANY, fields: { title: 'Analytical ENGINE', value: 1, currency: 'GBP', contactId: ada.right.contact.id }, metadata });
    const created = await log.readAll({ after: null });
    await eraseContact(deps, { companyId: COMPANY, contactId: ada.right.contact.id, reason: 'requested', metadata });
    return { created, erased: await log.readAll({ after: created.at(-1)!.position }) };
  } finally {
    await log.close();
    dir.dispose();
  }
};

/** The layout this release records for `deals` once its documents have their search keys. */
const laidOut = { _id: 'deals', version: 1, search: dealsProjection.search, totals: dealsProjection.totals };

/**
 * The deals' search against a stand-in of the official MongoDB client (no server
 * runs here; the contract suite runs the same search on a real one with MONGODB_URL):
 * what the adapter writes into a deal's document for the searched fields, what it
 * rewrites when the contact is erased, and the query a search sends.
 */
describe('MongoDB: the deals’ search (stand-in of the MongoDB client)', () => {
  let events: Awaited<ReturnType<typeof history>>;
  before(async () => (events = await history()));

  it('writes each searched field lower-cased (_s0 title, _s1 name, _s2 e-mail, _s3 phone) and their grams into the deal', async () => {
    const standIn = mongoStandIn();
    await MongoReadModelStore.overDatabase(standIn.db).collection(dealsProjection).apply(events.created);
    const writes = standIn.calls.filter((call) => call.collection === 'deals' && call.op === 'bulkWrite');
    const inserted = (writes.flatMap((call) => call.args[0] as Document[]).find((op) => 'insertOne' in op)!.insertOne as { document: Document }).document;
    expect(inserted).to.include({ _s0: 'analytical engine', _s1: 'ada lovelace', _s2: 'ada@engines.example', _s3: '+442079460001' });
    expect(inserted._g).to.include.members(['0:ana', '0:gin', '1:ada', '1:ace', '2:ada', '3:+44']);
  });

  it('rewrites the deal without its contact’s search keys when the contact is erased', async () => {
    const stored = new Map<string, Document>();
    const standIn = mongoStandIn(({ collection, op, args }) => {
      if (collection !== 'deals') return undefined;
      if (op === 'find') return [...stored.values()];
      if (op === 'bulkWrite') {
        for (const operation of args[0] as Document[]) {
          if ('insertOne' in operation) stored.set(operation.insertOne.document._id, operation.insertOne.document);
          if ('replaceOne' in operation) stored.set(operation.replaceOne.filter._id, { ...operation.replaceOne.replacement, _id: operation.replaceOne.filter._id });
        }
      }
      return undefined;
    });
    const deals = MongoReadModelStore.overDatabase(standIn.db).collection(dealsProjection);
    await deals.apply(events.created);
    await deals.apply(events.erased);
    const [deal] = [...stored.values()];
    expect(deal!._s0).to.equal('analytical engine');
    for (const key of ['_s1', '_s2', '_s3']) expect(deal, key).not.to.have.property(key);
    expect((deal!._g as string[]).filter((gram) => !gram.startsWith('0:'))).to.deep.equal([]);
    expect(JSON.stringify(deal)).not.to.match(/lovelace|engines\.example|2079460001/i);
  });

  it('searches the title and the contact’s fields through the index of grams, each branch naming the company, never by a case-insensitive scan', async () => {
    const standIn = mongoStandIn(({ collection, op }) => (collection === 'readModelLayouts' && op === 'findOne' ? laidOut : undefined));
    await dealSearchOf(MongoReadModelStore.overDatabase(standIn.db)).dealsMatching({ companyId: COMPANY, text: 'Engine', limit: 25 });
    const [query] = standIn.calls.find((call) => call.collection === 'deals' && call.op === 'find')!.args as [Document];
    const text = JSON.stringify(query);
    for (const i of [0, 1, 2, 3]) {
      expect(text).to.contain(`"_g":{"$all":["${i}:eng","${i}:ngi","${i}:gin","${i}:ine"]}`);
      expect(text).to.contain(`"_s${i}":{"$regex":"engine"}`);
    }
    expect(text.split(`"companyId":"${COMPANY}"`).length - 1, 'the company in every branch').to.be.at.least(4);
    expect(text).not.to.contain('"$options":"i"');
  });

  it('answers the same from the documents of an earlier release (no search keys yet) by a case-insensitive scan of the company', async () => {
    const standIn = mongoStandIn(({ collection, op }) => (collection === 'readModelLayouts' && op === 'findOne' ? { ...laidOut, search: [] } : undefined));
    await dealSearchOf(MongoReadModelStore.overDatabase(standIn.db)).dealsMatching({ companyId: COMPANY, text: 'Engine', limit: 25 });
    const [query] = standIn.calls.find((call) => call.collection === 'deals' && call.op === 'find')!.args as [Document];
    const text = JSON.stringify(query);
    for (const field of ['deal.title', 'deal.contact.name', 'deal.contact.email', 'deal.contact.phoneNumber']) {
      expect(text).to.contain(`"${field}":{"$regex":"Engine","$options":"i"}`);
    }
  });
});

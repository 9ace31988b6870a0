import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../src/adapters/sqlite/SqliteEventStore.js';
import type { CommandDeps } from '../../src/application/commands/CommandDeps.js';
import type { DocumentCollection, ReadModelDocument } from '../../src/application/ports/ReadModelStore.js';
import { contactSearchOf, contactsProjection, type ContactSearch } from '../../src/features/contacts/index.js';
import { createContact } from '../../src/features/contacts/application/createContact.js';
import { deleteContact, restoreContact } from '../../src/features/contacts/application/deleteAndRestoreContact.js';
import { eraseContact } from '../../src/features/contacts/application/eraseContact.js';
import { updateContact } from '../../src/features/contacts/application/updateContact.js';
import { dealSearchOf, dealsProjection, type DealSearch } from '../../src/features/deals/index.js';
import { createDeal } from '../../src/features/deals/application/createDeal.js';
import { deleteDeal, restoreDeal } from '../../src/features/deals/application/deleteAndRestoreDeal.js';
import { newId } from '../../src/shared/ids.js';
import type { ReadModelEngineFixture } from '../support/readModelEngines.js';
import { tempDir } from '../support/tempStore.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The console's search of contacts and deals (`contactSearchOf`, `dealSearchOf`)
 * on a read-model store: the records are written by the features' commands to an
 * embedded log, whose events the store's `contacts` and `deals` read models then
 * apply, as the projector would. Deals are found by title and by their contact's
 * name, e-mail and phone number as the deal shows the contact now; only the
 * company's own; deleted and erased records, and an erased or deleted contact's
 * former values, are not found.
 */
export const recordSearchContract = (name: string, open: () => Promise<ReadModelEngineFixture>): void => {
  describe(`Record search (the console's): ${name}`, function () {
    this.timeout(30_000);
    let fixture: ReadModelEngineFixture;
    let dir: ReturnType<typeof tempDir>;
    let log: SqliteEventStore;
    let deps: CommandDeps;
    let collections: DocumentCollection<ReadModelDocument>[];
    let applied: string | null;
    let contacts: ContactSearch;
    let deals: DealSearch;
    let now: number;
    const [acme, other] = [newId(), newId()];

    /** Applies what the log has gained since the last sync, in one batch, as the projector would. */
    const sync = async () => {
      const events = await log.readAll({ after: applied });
      if (events.length === 0) return;
      await fixture.store.applyBatch(collections, events, 'test-record-search');
      applied = events.at(-1)!.position;
    };
    const meta = (companyId: string) => ({ source: 'api' as const, correlationId: 'search', companyId });
    const tick = () => (now += 1000);
    const contact = async (companyId: string, fields: { name: string; phoneNumber: string; email?: string }) => {
      tick();
      const made = await createContact(deps, { companyId, fields, metadata: meta(companyId) });
      if (E.isLeft(made)) return expect.fail(JSON.stringify(made.left));
      return made.right.contact.id;
    };
    const deal = async (companyId: string, title: string, contactId?: string) => {
      tick();
      const made = await createDeal(deps, { companyId, fields: { title, value: 100, currency: 'EUR', ...(contactId ? { contactId } : {}) }, metadata: meta(companyId) });
      if (E.isLeft(made)) return expect.fail(JSON.stringify(made.left));
      return made.right.deal.id;
    };
    const ok = <L, R>(result: E.Either<L, R>): R => (E.isLeft(result) ? expect.fail(JSON.stringify(result.left)) : result.right);
    const dealTitles = async (text: string, companyId = acme, limit = 50) => {
      const found = await deals.dealsMatching({ companyId, text, limit });
      return { titles: found.items.map((item) => item.title), total: found.total };
    };
    const contactNames = async (text: string, companyId = acme, limit = 50) => {
      const found = await contacts.contactsMatching({ companyId, text, limit });
      return { names: found.items.map((item) => item.name), total: found.total };
    };

    beforeEach(async () => {
      fixture = await open();
      dir = tempDir('chronicle-record-search-');
      log = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      now = Date.parse('2026-03-01T10:00:00.000Z');
      deps = { eventStore: log, newId, clock: { now: () => new Date(now) } };
      collections = [fixture.store.collection(contactsProjection), fixture.store.collection(dealsProjection)] as unknown as DocumentCollection<ReadModelDocument>[];
      await fixture.store.init();
      applied = null;
      contacts = contactSearchOf(fixture.store);
      deals = dealSearchOf(fixture.store);
    });
    afterEach(async () => {
      await log.close();
      await fixture.dispose();
      dir.dispose();
    });

    it('finds deals by title and by their contact’s name, e-mail or phone number, any case, newest first, within the limit', async () => {
      const ada = await contact(acme, { name: 'Ada Lovelace', phoneNumber: '+442079460001', email: 'Ada@Engines.example' });
      await deal(acme, 'Analytical Engine', ada);
      await deal(acme, 'Difference ENGINE');
      await deal(acme, 'Jacquard loom');
      await sync();
      expect(await dealTitles('engine')).to.deep.equal({ titles: ['Difference ENGINE', 'Analytical Engine'], total: 2 });
      expect(await dealTitles('LOVELACE')).to.deep.equal({ titles: ['Analytical Engine'], total: 1 });
      expect(await dealTitles('ada@engines')).to.deep.equal({ titles: ['Analytical Engine'], total: 1 });
      expect(await dealTitles('2079460001')).to.deep.equal({ titles: ['Analytical Engine'], total: 1 });
      // Two letters: no trigram to look up, found all the same.
      expect(await dealTitles('lo')).to.deep.equal({ titles: ['Jacquard loom', 'Analytical Engine'], total: 2 });
      expect(await dealTitles('n', acme, 1)).to.deep.equal({ titles: ['Difference ENGINE'], total: 2 });
      expect(await dealTitles('babbage')).to.deep.equal({ titles: [], total: 0 });
      // Nothing asked: nothing found (not every deal).
      expect(await dealTitles('  ')).to.deep.equal({ titles: [], total: 0 });
      const [found] = (await deals.dealsMatching({ companyId: acme, text: 'analytical', limit: 5 })).items;
      expect(found).to.include({ title: 'Analytical Engine', status: 'open', value: 100, currency: 'EUR', contactName: 'Ada Lovelace', stage: null });
    });

    it('takes the text literally: %, _, quotes and full-text syntax match only themselves', async () => {
      await deal(acme, '100% "done" deal_1 AND NEAR(x)');
      await deal(acme, '1000 done deals');
      await sync();
      for (const text of ['100%', '"done"', 'deal_1', 'and near(', '%', '_']) {
        expect(await dealTitles(text), text).to.deep.equal({ titles: ['100% "done" deal_1 AND NEAR(x)'], total: 1 });
      }
    });

    it('finds only the company’s own contacts and deals, whatever another company has', async () => {
      const ours = await contact(acme, { name: 'Grace Hopper', phoneNumber: '+15555550101', email: 'grace@navy.example' });
      const theirs = await contact(other, { name: 'Grace Hopper', phoneNumber: '+15555550101', email: 'grace@navy.example' });
      await deal(acme, 'COBOL compiler', ours);
      await deal(other, 'COBOL compiler (theirs)', theirs);
      await sync();
      expect(await dealTitles('cobol')).to.deep.equal({ titles: ['COBOL compiler'], total: 1 });
      expect(await dealTitles('grace')).to.deep.equal({ titles: ['COBOL compiler'], total: 1 });
      expect(await dealTitles('theirs', acme)).to.deep.equal({ titles: [], total: 0 });
      expect(await dealTitles('cobol', other)).to.deep.equal({ titles: ['COBOL compiler (theirs)'], total: 1 });
      expect((await contacts.contactsMatching({ companyId: acme, text: 'grace', limit: 10 })).items.map((item) => item.id)).to.deep.equal([ours]);
      expect((await contacts.contactsMatching({ companyId: other, text: '+1555', limit: 10 })).items.map((item) => item.id)).to.deep.equal([theirs]);
    });

    it('follows the contact: found by its new name after a rename, not by its values while deleted or once erased', async () => {
      const id = await contact(acme, { name: 'Katherine Johnson', phoneNumber: '+15555550102', email: 'kj@nasa.example' });
      await deal(acme, 'Orbital mechanics', id);
      await sync();
      expect(await dealTitles('katherine')).to.deep.equal({ titles: ['Orbital mechanics'], total: 1 });

      tick();
      ok(await updateContact(deps, { companyId: acme, contactId: id, changes: { name: 'Katherine Goble', email: 'goble@nasa.example' }, metadata: meta(acme) }));
      await sync();
      expect(await dealTitles('johnson')).to.deep.equal({ titles: [], total: 0 });
      expect(await dealTitles('kj@nasa')).to.deep.equal({ titles: [], total: 0 });
      expect(await dealTitles('goble')).to.deep.equal({ titles: ['Orbital mechanics'], total: 1 });

      tick();
      ok(await deleteContact(deps, { companyId: acme, contactId: id, retentionMs: DAY_MS, metadata: meta(acme) }));
      await sync();
      expect(await dealTitles('goble')).to.deep.equal({ titles: [], total: 0 });
      expect(await contactNames('goble')).to.deep.equal({ names: [], total: 0 });
      // The deal itself is still there, by its title.
      expect(await dealTitles('orbital')).to.deep.equal({ titles: ['Orbital mechanics'], total: 1 });

      tick();
      ok(await restoreContact(deps, { companyId: acme, contactId: id, metadata: meta(acme) }));
      await sync();
      expect(await dealTitles('goble')).to.deep.equal({ titles: ['Orbital mechanics'], total: 1 });
      expect(await contactNames('goble')).to.deep.equal({ names: ['Katherine Goble'], total: 1 });

      tick();
      ok(await eraseContact(deps, { companyId: acme, contactId: id, reason: 'requested', metadata: meta(acme) }));
      await sync();
      for (const text of ['goble', 'katherine', '5550102', 'nasa']) {
        expect(await dealTitles(text), text).to.deep.equal({ titles: [], total: 0 });
        expect(await contactNames(text), text).to.deep.equal({ names: [], total: 0 });
      }
      expect(await dealTitles('orbital')).to.deep.equal({ titles: ['Orbital mechanics'], total: 1 });
    });

    it('leaves a deleted deal out until it is restored', async () => {
      const id = await deal(acme, 'Punched cards');
      await sync();
      tick();
      ok(await deleteDeal(deps, { companyId: acme, dealId: id, retentionMs: DAY_MS, metadata: meta(acme) }));
      await sync();
      expect(await dealTitles('punched')).to.deep.equal({ titles: [], total: 0 });
      tick();
      ok(await restoreDeal(deps, { companyId: acme, dealId: id, metadata: meta(acme) }));
      await sync();
      expect(await dealTitles('punched')).to.deep.equal({ titles: ['Punched cards'], total: 1 });
    });

    it('finds contacts by name, e-mail or phone number as GET /contacts?search= does, newest first', async () => {
      await contact(acme, { name: 'Alan Turing', phoneNumber: '+441234500001', email: 'alan@bletchley.example' });
      await contact(acme, { name: 'Joan Clarke', phoneNumber: '+441234500002', email: 'joan@bletchley.example' });
      await sync();
      expect(await contactNames('BLETCHLEY')).to.deep.equal({ names: ['Joan Clarke', 'Alan Turing'], total: 2 });
      expect(await contactNames('turing')).to.deep.equal({ names: ['Alan Turing'], total: 1 });
      expect(await contactNames('+4412345000')).to.deep.equal({ names: ['Joan Clarke', 'Alan Turing'], total: 2 });
      expect(await contactNames('500002')).to.deep.equal({ names: ['Joan Clarke'], total: 1 });
      expect(await contactNames('bletchley', acme, 1)).to.deep.equal({ names: ['Joan Clarke'], total: 2 });
      expect(await contactNames('')).to.deep.equal({ names: [], total: 0 });
    });
  });
};

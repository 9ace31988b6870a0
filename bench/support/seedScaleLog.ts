import type { CompanyName } from '../../src/features/companies/domain/CompanyName.js';
import { companyDecider } from '../../src/features/companies/domain/companyDecider.js';
import { companyStream } from '../../src/features/companies/domain/companyEvents.js';
import { contactDecider, type ContactState } from '../../src/features/contacts/domain/contactDecider.js';
import { contactStream } from '../../src/features/contacts/domain/contactEvents.js';
import { liveContactSummaryOf } from '../../src/features/deals/domain/dealContactSummary.js';
import { dealDecider, type DealState } from '../../src/features/deals/domain/dealDecider.js';
import { dealStream } from '../../src/features/deals/domain/dealEvents.js';
import type { EventMetadata } from '../../src/shared/EventMetadata.js';
import { newId } from '../../src/shared/ids.js';
import { rawLogWriter } from './rawLogWriter.js';
import { decided, fold } from './decided.js';
import { reservePhoneNumber } from './reservePhoneNumber.js';

/** A word in one contact's name of eight (the searches of many matches look for it). */
export const COMMON_WORD = 'Harrington';

/**
 * The log, scaled: one company; per contact a phone reservation,
 * `ContactCreated`, a `ContactUpdated`, and a deal that moves to a stage and is
 * won (three in four; the rest lost). Written straight into the SQLite file.
 */
export const seedScaleLog = (file: string, contacts: number): { events: number; companyId: string } => {
  const { db, append, written } = rawLogWriter(file);
  const start = Date.parse('2026-01-01T00:00:00.000Z');
  const companyId = newId();
  const metadata: EventMetadata = { source: 'api', correlationId: newId(), companyId, keyId: 'key' };
  db.transaction(() => {
    const at0 = new Date(start).toISOString();
    append(companyStream(companyId), decided(companyDecider, { type: 'CreateCompany', companyId, name: 'Bench' as CompanyName, at: new Date(at0) }, companyDecider.initialState), metadata, at0);
    const stages = ['qualification', 'proposal', 'negotiation'];
    for (let i = 0; i < contacts; i++) {
      const at = (step: number) => new Date(start + 1000 * i + step).toISOString();
      const contactId = newId();
      const phoneNumber = `+49151${String(i).padStart(8, '0')}`;
      reservePhoneNumber(append, { companyId, phoneNumber, contactId }, metadata, at(0));
      const fields = { name: i % 8 === 0 ? `Contact ${i} ${COMMON_WORD}` : `Contact ${i}`, phoneNumber, email: `contact${i}@example.com`, city: 'Berlin', tags: ['lead'] };
      const created = decided(contactDecider, { type: 'CreateContact', contactId, companyId, fields, at: new Date(at(1)) }, contactDecider.initialState);
      append(contactStream(contactId), created, metadata, at(1));
      let contact: ContactState = fold(contactDecider, contactDecider.initialState, created);
      const updated = decided(contactDecider, { type: 'UpdateContact', contactId, companyId, changes: { email: `contact${i}@example.org` }, at: new Date(at(2)) }, contact);
      append(contactStream(contactId), updated, metadata, at(2));
      contact = fold(contactDecider, contact, updated);
      if (contact.status !== 'active') throw new Error('no contact');
      const dealId = newId();
      const summary = liveContactSummaryOf(contact.contact);
      const dealCreated = decided(
        dealDecider,
        { type: 'CreateDeal', dealId, companyId, fields: { title: `Deal ${i}`, value: 1000, currency: 'EUR', stage: stages[0]! }, contact: summary, assignedTo: null, at: new Date(at(3)) },
        dealDecider.initialState,
      );
      append(dealStream(dealId), dealCreated, metadata, at(3));
      let deal: DealState = fold(dealDecider, dealDecider.initialState, dealCreated);
      for (const [step, change] of [
        [4, { stage: stages[1]! }],
        [5, { status: i % 4 === 3 ? ('lost' as const) : ('won' as const) }],
      ] as const) {
        const events = decided(dealDecider, { type: 'ChangeDealStatus', dealId, companyId, change, contact: summary, at: new Date(at(step)) }, deal);
        append(dealStream(dealId), events, metadata, at(step));
        deal = fold(dealDecider, deal, events);
      }
    }
  })();
  db.close();
  return { events: written(), companyId };
};

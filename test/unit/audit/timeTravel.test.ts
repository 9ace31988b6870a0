import { expect } from 'chai';
import { MemoryReadModelStore } from '../../../src/adapters/memory/MemoryReadModelStore.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { eventsAsOf } from '../../../src/application/audit/timeTravel.js';
import { contactAsOf } from '../../../src/features/contacts/readModels/contactAsOf.js';
import { dealAsOf } from '../../../src/features/deals/readModels/dealAsOf.js';
import type { DealContactSummary } from '../../../src/features/deals/domain/dealEvents.js';
import { dealOf, dealsProjection } from '../../../src/features/deals/readModels/dealsProjection.js';
import { StoredHistory } from '../../features/webhookEvents/storedHistory.js';

const at = (minutes: number): string => new Date(Date.parse('2024-05-01T10:00:00.000Z') + minutes * 60_000).toISOString();

/** The stored events, each recorded at its own business time (as the store would stamp them). */
const recorded = (history: StoredHistory): RecordedEvent[] =>
  history.events.map((event) => {
    const data = event.data as { createdAt?: string; updatedAt?: string };
    return { ...event, recordedAt: data.createdAt ?? data.updatedAt ?? event.recordedAt };
  });

/** The one method time travel needs, over a fixed log. */
const storeOf = (events: readonly RecordedEvent[]) => ({
  readStream: async (stream: string) => events.filter((event) => event.stream === stream),
});

const event = (position: string, recordedAt: string): RecordedEvent => ({
  id: `e-${position}`,
  stream: 's',
  revision: 0,
  position,
  type: 'Something',
  data: {},
  metadata: { source: 'api', correlationId: 'c' },
  recordedAt,
});

describe('time travel', () => {
  describe('the events that make up a past state (eventsAsOf)', () => {
    it('takes events of several streams in log order, up to and including the instant', () => {
      const events = [event('10', at(3)), event('2', at(1)), event('9', at(2))];
      expect(eventsAsOf(events, at(2)).map((e) => e.position)).to.deep.equal(['2', '9']);
      expect(eventsAsOf(events, at(0))).to.deep.equal([]);
      expect(eventsAsOf(events, at(60)).map((e) => e.position)).to.deep.equal(['2', '9', '10']);
    });

    it('stops at the first event recorded after the instant, even if a later one carries an earlier time', () => {
      // A clock stepped back between the appends: the state after 11 never existed without 10.
      const events = [event('9', at(1)), event('10', at(5)), event('11', at(2))];
      expect(eventsAsOf(events, at(3)).map((e) => e.position)).to.deep.equal(['9']);
    });
  });

  describe('contacts and deals as they were', () => {
    let history: StoredHistory;
    let log: RecordedEvent[];
    let summary: DealContactSummary;

    beforeEach(() => {
      history = new StoredHistory();
      history.contact({ type: 'CreateContact', contactId: 'c-1', companyId: 'co-1', fields: { name: 'Ada', phoneNumber: '+441000', email: 'ada@example.com', tags: [] }, at: new Date(at(0)) });
      summary = { id: 'c-1', name: 'Ada', email: 'ada@example.com', phoneNumber: '+441000', currentCompany: null };
      history.deal({ type: 'CreateDeal', dealId: 'd-1', companyId: 'co-1', fields: { title: 'Engines', value: 100, stage: 'Lead' }, contact: summary, assignedTo: { id: 'u-1', name: 'Sam', email: 'sam@example.com' }, at: new Date(at(10)) });
      history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { name: 'Ada Lovelace', city: 'London' }, at: new Date(at(20)) });
      summary = { ...summary, name: 'Ada Lovelace' };
      history.deal({ type: 'ChangeDealStatus', dealId: 'd-1', companyId: 'co-1', change: { status: 'won', stage: 'Closed' }, contact: summary, at: new Date(at(30)) });
      history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { email: 'ada@lovelace.example' }, at: new Date(at(40)) });
      log = recorded(history);
    });

    const contact = (asOf: string, companyId = 'co-1') => contactAsOf(storeOf(log), { companyId, id: 'c-1', asOf });
    const deal = (asOf: string, companyId = 'co-1') => dealAsOf(storeOf(log), { companyId, id: 'd-1', asOf });

    it('folds a contact up to the instant: null before it existed, then each version', async () => {
      expect(await contact('2024-05-01T09:59:59.999Z')).to.equal(null);
      expect(await contact(at(0))).to.include({ name: 'Ada', city: null, updatedAt: at(0) });
      expect(await contact(at(25))).to.include({ name: 'Ada Lovelace', city: 'London', email: 'ada@example.com', updatedAt: at(20) });
      expect(await contact('2999-01-01T00:00:00.000Z')).to.include({ email: 'ada@lovelace.example', updatedAt: at(40) });
    });

    it('never shows another company\'s contact or deal', async () => {
      expect(await contact(at(60), 'co-2')).to.equal(null);
      expect(await deal(at(60), 'co-2')).to.equal(null);
      expect(await contactAsOf(storeOf(log), { companyId: 'co-1', id: 'nobody', asOf: at(60) })).to.equal(null);
      expect(await dealAsOf(storeOf(log), { companyId: 'co-1', id: 'nobody', asOf: at(60) })).to.equal(null);
    });

    it('folds a deal with its contact as the contact was at the same instant', async () => {
      expect(await deal(at(9))).to.equal(null);
      const created = await deal(at(15));
      expect(created).to.include({ status: 'open', stage: 'Lead', actualCloseDate: null, updatedAt: at(10) });
      expect(created!.contact).to.deep.equal({ id: 'c-1', name: 'Ada', email: 'ada@example.com', phoneNumber: '+441000', currentCompany: null });
      expect(created!.assignedTo).to.deep.equal({ id: 'u-1', name: 'Sam', email: 'sam@example.com' });
      const renamed = await deal(at(25));
      expect(renamed).to.include({ status: 'open', updatedAt: at(10) });
      expect(renamed!.contact).to.include({ name: 'Ada Lovelace', email: 'ada@example.com' });
      const won = await deal(at(35));
      expect(won).to.include({ status: 'won', stage: 'Closed', actualCloseDate: at(30), updatedAt: at(30) });
      expect(won!.contact).to.include({ name: 'Ada Lovelace', email: 'ada@example.com' });
      expect((await deal(at(45)))!.contact).to.include({ email: 'ada@lovelace.example' });
    });

    it('gives, for an instant after the last event, exactly what the read model holds', async () => {
      const deals = new MemoryReadModelStore().collection(dealsProjection);
      await deals.apply(log);
      expect(await deal('2999-01-01')).to.deep.equal(dealOf((await deals.get('co-1', 'd-1'))!));
    });
  });
});

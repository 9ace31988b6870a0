import { expect } from 'chai';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import { CONTACT_HISTORY, DEAL_HISTORY, historyEntryOf, readEntityHistory } from '../../../src/application/audit/entityHistory.js';
import { StoredHistory } from '../webhooks/derive/storedHistory.js';

const storeOf = (events: readonly RecordedEvent[]) => ({
  readStream: async (stream: string) => events.filter((event) => event.stream === stream),
});

describe('entity history', () => {
  let history: StoredHistory;

  beforeEach(() => {
    history = new StoredHistory();
    history.contact({ type: 'CreateContact', contactId: 'c-1', companyId: 'co-1', fields: { name: 'Ada', phoneNumber: '+441000', tags: [] }, at: new Date('2024-05-01T10:00:00.000Z') });
    for (let i = 1; i <= 4; i++) {
      history.contact({ type: 'UpdateContact', contactId: 'c-1', companyId: 'co-1', changes: { city: `City ${i}` }, at: new Date(`2024-05-01T10:0${i}:00.000Z`) });
    }
    history.deal({ type: 'CreateDeal', dealId: 'd-1', companyId: 'co-1', fields: { title: 'Deal', value: 1 }, contact: null, assignedTo: null, at: new Date('2024-05-01T11:00:00.000Z') });
  });

  const read = (id: string, page = 1, limit = 50, companyId = 'co-1') =>
    readEntityHistory(storeOf(history.events), CONTACT_HISTORY, { companyId, id, page, limit });

  it('pages a contact\'s events oldest first, with the stream\'s total', async () => {
    const first = await read('c-1', 1, 2);
    expect(first!.total).to.equal(5);
    expect(first!.entries.map((e) => [e.type, e.revision])).to.deep.equal([
      ['ContactCreated', 0],
      ['ContactUpdated', 1],
    ]);
    expect((await read('c-1', 3, 2))!.entries.map((e) => e.revision)).to.deep.equal([4]);
    expect(await read('c-1', 4, 2)).to.deep.equal({ entries: [], total: 5 });
  });

  it('answers an unknown id and another company\'s alike: null', async () => {
    expect(await read('nobody')).to.equal(null);
    expect(await read('c-1', 1, 50, 'co-2')).to.equal(null);
    const deal = (companyId: string) => readEntityHistory(storeOf(history.events), DEAL_HISTORY, { companyId, id: 'd-1', page: 1, limit: 50 });
    expect((await deal('co-1'))!.entries.map((e) => e.type)).to.deep.equal(['DealCreated']);
    expect(await deal('co-2')).to.equal(null);
  });

  it('shows type, revision, position, recorded time, data as stored, and who caused it (never the company or anything else)', () => {
    const stored: RecordedEvent = {
      ...history.events[1]!,
      metadata: { source: 'api', correlationId: 'req-7', companyId: 'co-1', keyId: 'key-9', causationId: 'cause' },
      recordedAt: '2024-05-01T10:01:00.004Z',
    };
    expect(historyEntryOf(stored)).to.deep.equal({
      type: 'ContactUpdated',
      revision: 1,
      position: '2',
      timestamp: '2024-05-01T10:01:00.004Z',
      data: stored.data,
      metadata: { source: 'api', keyId: 'key-9', correlationId: 'req-7' },
    });
    expect(historyEntryOf({ ...stored, metadata: { source: 'cli', correlationId: 'x', userId: 'u-1' } }).metadata).to.deep.equal({
      source: 'cli',
      userId: 'u-1',
      correlationId: 'x',
    });
  });
});

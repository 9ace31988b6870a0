import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { join } from 'node:path';
import { SqliteEventStore } from '../../../src/adapters/sqlite/SqliteEventStore.js';
import { UpcastingEventStore } from '../../../src/application/versioning/UpcastingEventStore.js';
import { DealStatusChanged, dealStream, type DealCreated } from '../../../src/features/deals/domain/dealEvents.js';
import { DealContactRefreshed } from '../../../src/features/deals/domain/dealEvents.js';
import {
  DealContactRefreshedV1,
  upcastDealContactRefreshedV1,
  DealStatusChangedV1,
  DealStatusChangedV2,
  upcastDealStatusChangedV1,
  upcastDealStatusChangedV2,
} from '../../../src/features/deals/domain/dealEventVersions.js';
import { dealFromCreated } from '../../../src/features/deals/domain/dealRecord.js';
import { STORED_EVENT_TYPES } from '../../../src/features/index.js';
import { newId } from '../../../src/shared/ids.js';
import { tempDir } from '../../support/tempStore.js';

const summary = { id: 'c-1', name: 'Ada', email: 'ada@example.org', phoneNumber: '+441000', currentCompany: null };
const goneContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };

const createdData: DealCreated['data'] = {
  dealId: 'd-1',
  companyId: 'co-1',
  title: 'Engines',
  description: null,
  value: 100,
  currency: 'EUR',
  stage: 'Lead',
  priority: 'high',
  probability: 20,
  expectedCloseDate: null,
  source: null,
  contact: summary,
  assignedTo: null,
  createdAt: '2026-01-01T10:00:00.000Z',
};

const deal = {
  id: 'd-1',
  title: 'Engines',
  description: null,
  value: 100,
  currency: 'EUR',
  stage: 'Lead',
  priority: 'high',
  probability: 20,
  status: 'won',
  expectedCloseDate: null,
  actualCloseDate: '2026-01-05T00:00:00.000Z',
  source: null,
  contact: summary,
  assignedTo: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-05T00:00:00.000Z',
};

/** The data of a `DealStatusChanged` version 2 (what releases up to 283063c wrote). */
const v2Data = {
  dealId: 'd-1',
  companyId: 'co-1',
  status: { from: 'open', to: 'won' },
  actualCloseDate: '2026-01-05T00:00:00.000Z',
  updatedAt: '2026-01-05T00:00:00.000Z',
  deal,
};

describe('DealStatusChanged versions', () => {
  it('v2 → v3 (pure): the identity; version 3 accepts what version 2 holds', () => {
    const v2 = { type: 'DealStatusChanged' as const, data: v2Data } as DealStatusChangedV2;
    expect(DealStatusChangedV2.is(v2)).to.equal(true);
    const upcast = upcastDealStatusChangedV2(v2);
    expect(upcast).to.deep.equal({ type: 'DealStatusChanged', data: v2Data });
    expect(DealStatusChanged.is(upcast)).to.equal(true);
  });

  it('v3 holds a deleted contact (its id, every other field null), which version 2 refuses', () => {
    const v3 = { type: 'DealStatusChanged', data: { ...v2Data, deal: { ...deal, contact: goneContact } } };
    expect(DealStatusChanged.is(v3)).to.equal(true);
    expect(DealStatusChangedV2.is(v3)).to.equal(false);
    expect(DealStatusChanged.is({ ...v3, data: { ...v3.data, deal: { ...deal, contact: { ...goneContact, id: null } } } })).to.equal(false);
  });

  it('v1 → v2 still gives version 2; a contact erased since shows as null, which only the current version holds', () => {
    const { deal: _snapshot, ...v1Data } = v2Data;
    const v1 = { type: 'DealStatusChanged', data: v1Data } as DealStatusChangedV1;
    expect(DealStatusChangedV1.is(v1)).to.equal(true);
    const created = dealFromCreated({ type: 'DealCreated', data: createdData });
    const upcast = upcastDealStatusChangedV1(v1, { status: 'active', deal: created }, null);
    expect(E.isRight(upcast) && DealStatusChangedV2.is(upcast.right)).to.equal(true);
    const erased = upcastDealStatusChangedV1(v1, { status: 'active', deal: { ...created, contact: goneContact } }, null);
    expect(E.isRight(erased) && !DealStatusChangedV2.is(erased.right) && DealStatusChanged.is(erased.right)).to.equal(true);
  });

  describe('read through the versioning decorator', () => {
    let dir: ReturnType<typeof tempDir>;
    let raw: SqliteEventStore;
    let store: UpcastingEventStore;
    const metadata = { source: 'api' as const, correlationId: 'c', companyId: 'co-1' };
    beforeEach(async () => {
      dir = tempDir('chronicle-deal-versions-');
      raw = SqliteEventStore.open(join(dir.path, 'events.sqlite'));
      store = new UpcastingEventStore(raw, { types: STORED_EVENT_TYPES });
      await raw.append(dealStream('d-1'), [{ id: newId(), type: 'DealCreated', data: createdData, metadata: { ...metadata, schemaVersion: 1 } }], 'no_stream');
    });
    afterEach(async () => {
      await store.close();
      dir.dispose();
    });

    it('reads a v2 event, recorded as version 2 or stored before versions were, as the current version, unchanged', async () => {
      await raw.append(dealStream('d-1'), [
        { id: newId(), type: 'DealStatusChanged', data: v2Data, metadata: { ...metadata, schemaVersion: 2 } },
        { id: newId(), type: 'DealStatusChanged', data: { ...v2Data, status: { from: 'won', to: 'lost' } }, metadata },
      ], 0);
      const [, recorded, unmarked] = await store.readStream(dealStream('d-1'));
      expect(recorded!.data).to.deep.equal(v2Data);
      expect(recorded!.version).to.deep.equal({ current: 4, stored: 2, recorded: true });
      expect(unmarked!.version).to.deep.equal({ current: 4, stored: 2, recorded: false });
    });

    it('records the current version (4) on a new event, and reads one with a deleted contact as written', async () => {
      const data = { ...v2Data, deal: { ...deal, contact: goneContact } };
      await store.append(dealStream('d-1'), [{ id: newId(), type: 'DealStatusChanged', data, metadata }], 0);
      const [, event] = await store.readStream(dealStream('d-1'));
      expect(event!.metadata.schemaVersion).to.equal(4);
      expect(event!.data).to.deep.equal(data);
    });

    it('stops at a version-2 event whose contact shows as deleted: version 2 never held one', async () => {
      const data = { ...v2Data, deal: { ...deal, contact: goneContact } };
      await raw.append(dealStream('d-1'), [{ id: newId(), type: 'DealStatusChanged', data, metadata: { ...metadata, schemaVersion: 2 } }], 0);
      let error: unknown;
      await store.readStream(dealStream('d-1')).catch((e: unknown) => (error = e));
      expect(String(error)).to.match(/version 2 of DealStatusChanged refuses it/);
    });
  });
});

describe('DealContactRefreshed versions', () => {
  const v1: DealContactRefreshedV1 = { type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact: summary } };

  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    expect(upcastDealContactRefreshedV1(v1)).to.deep.equal(v1);
    expect(E.isRight(DealContactRefreshed.decode(v1))).to.equal(true);
  });

  it('v2 holds a contact deleted since (its id, every other field null), which version 1 refuses', () => {
    const gone = { type: 'DealContactRefreshed', data: { dealId: 'd-1', companyId: 'co-1', contact: goneContact } };
    expect(E.isRight(DealContactRefreshed.decode(gone))).to.equal(true);
    expect(E.isLeft(DealContactRefreshedV1.decode(gone))).to.equal(true);
  });
});

import { expect } from 'chai';
import { DealContactRefreshed, DealCreated, DealRestored, DealStatusChanged, dealStream } from '../../../src/features/deals/domain/dealEvents.js';
import {
  DealContactRefreshedV2,
  DealCreatedV1,
  DealRestoredV1,
  DealStatusChangedV3,
  upcastDealContactRefreshedV2,
  upcastDealCreatedV1,
  upcastDealRestoredV1,
  upcastDealStatusChangedV3,
} from '../../../src/features/deals/domain/dealEventVersions.js';
import { dealPersonalData } from '../../../src/features/deals/domain/dealPersonalData.js';
import { erased, expectNullablePersonalFields, expectReadThroughDecorator } from '../../support/personalFieldsNull.js';

const T0 = '2026-01-01T10:00:00.000Z';
const T1 = '2026-01-05T00:00:00.000Z';

const contact = { id: 'c-1', name: 'Ada', email: 'ada@example.org', phoneNumber: '+441000', currentCompany: 'Engines Ltd' };
const goneContact = { id: 'c-1', name: null, email: null, phoneNumber: null, currentCompany: null };
const user = { id: 'u-1', name: 'Dana Seller', email: 'dana@example.com' };

/** The data of a `DealCreated` version 1 (what releases up to bf089fc wrote), with a contact and a user. */
const createdV1 = {
  dealId: 'd-1',
  companyId: 'co-1',
  title: 'Engines',
  description: 'Three engines',
  value: 100,
  currency: 'EUR',
  stage: 'Lead',
  priority: 'high',
  probability: 20,
  expectedCloseDate: '2026-03-01T00:00:00.000Z',
  source: 'website',
  contact,
  assignedTo: user,
  createdAt: T0,
};

/** The deal a `DealStatusChanged` version 3 and a `DealRestored` version 1 carry. */
const deal = {
  id: 'd-1',
  title: 'Engines',
  description: 'Three engines',
  value: 100,
  currency: 'EUR',
  stage: 'Won',
  priority: 'high',
  probability: 20,
  status: 'won',
  expectedCloseDate: '2026-03-01T00:00:00.000Z',
  actualCloseDate: T1,
  source: 'website',
  contact,
  assignedTo: user,
  createdAt: T0,
  updatedAt: T1,
};

/** The data of a `DealStatusChanged` version 3: both moves, and the deal after them. */
const statusChangedV3 = {
  dealId: 'd-1',
  companyId: 'co-1',
  status: { from: 'open', to: 'won' },
  stage: { from: 'Lead', to: 'Won' },
  actualCloseDate: T1,
  updatedAt: T1,
  deal,
};

/** The data of a `DealContactRefreshed` version 2. */
const refreshedV2 = { dealId: 'd-1', companyId: 'co-1', contact };

/** The data of a `DealRestored` version 1. */
const restoredV1 = { dealId: 'd-1', companyId: 'co-1', restoredAt: T1, deal };

const declared = dealPersonalData.events;

describe('DealCreated versions', () => {
  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    const v1 = { type: 'DealCreated', data: createdV1 } as DealCreatedV1;
    expect(DealCreatedV1.is(v1)).to.equal(true);
    expect(upcastDealCreatedV1(v1)).to.deep.equal(v1);
    expect(DealCreated.is(v1)).to.equal(true);
  });

  it('v2 accepts each personal field of the contact and the user null (erased), which version 1 refuses; the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'DealCreated', previous: DealCreatedV1, current: DealCreated, declaration: declared.DealCreated!, sample: createdV1 });
    expect(DealCreatedV1.is({ type: 'DealCreated', data: { ...createdV1, assignedTo: { ...user, name: null } } })).to.equal(false);
    expect(DealCreated.is({ type: 'DealCreated', data: { ...createdV1, title: null } })).to.equal(false);
    expect(DealCreated.is({ type: 'DealCreated', data: { ...createdV1, assignedTo: { ...user, id: null } } })).to.equal(false);
  });

  it('reads a v1 event through the versioning decorator as v2, unchanged; records version 2 on a new one', () =>
    expectReadThroughDecorator({ stream: dealStream('d-1'), type: 'DealCreated', stored: 1, data: createdV1, declaration: declared.DealCreated! }));
});

describe('DealStatusChanged versions: v3 → v4', () => {
  it('v3 → v4 (pure): the identity; version 4 accepts what version 3 holds, a deleted contact included', () => {
    const v3 = { type: 'DealStatusChanged', data: statusChangedV3 } as DealStatusChangedV3;
    expect(DealStatusChangedV3.is(v3)).to.equal(true);
    expect(upcastDealStatusChangedV3(v3)).to.deep.equal(v3);
    expect(DealStatusChanged.is(v3)).to.equal(true);
    expect(DealStatusChanged.is({ ...v3, data: { ...statusChangedV3, deal: { ...deal, contact: goneContact } } })).to.equal(true);
  });

  it('v4 accepts each personal field of the deal\'s contact and user null (erased); version 3 refuses the user\'s; the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'DealStatusChanged', previous: DealStatusChangedV3, current: DealStatusChanged, declaration: declared.DealStatusChanged!, sample: statusChangedV3 });
    const erasedUser = { type: 'DealStatusChanged', data: { ...statusChangedV3, deal: { ...deal, assignedTo: { ...user, name: null, email: null } } } };
    expect(DealStatusChanged.is(erasedUser)).to.equal(true);
    expect(DealStatusChangedV3.is(erasedUser)).to.equal(false);
    expect(DealStatusChanged.is({ type: 'DealStatusChanged', data: { ...statusChangedV3, deal: { ...deal, title: null } } })).to.equal(false);
  });

  it('reads a v3 event through the versioning decorator as v4, unchanged; records version 4 on a new one', () =>
    expectReadThroughDecorator({ stream: dealStream('d-1'), type: 'DealStatusChanged', stored: 3, data: statusChangedV3, declaration: declared.DealStatusChanged! }));
});

describe('DealContactRefreshed versions: v2 → v3', () => {
  it('v2 → v3 (pure): the identity', () => {
    const v2 = { type: 'DealContactRefreshed', data: refreshedV2 } as DealContactRefreshedV2;
    expect(upcastDealContactRefreshedV2(v2)).to.deep.equal(v2);
    expect(DealContactRefreshed.is(v2)).to.equal(true);
  });

  it('v3 has version 2\'s shape: its nulls may also be erased fields, which a release that knows only version 2 would read as a deleted contact', () => {
    expectNullablePersonalFields({ type: 'DealContactRefreshed', previous: DealContactRefreshedV2, current: DealContactRefreshed, declaration: declared.DealContactRefreshed!, sample: refreshedV2 });
    const samples = [refreshedV2, erased(refreshedV2, declared.DealContactRefreshed!), { ...refreshedV2, contact: { ...contact, id: null } }, { ...refreshedV2, dealId: null }];
    for (const data of samples) {
      const event = { type: 'DealContactRefreshed', data };
      expect(DealContactRefreshed.is(event), JSON.stringify(data)).to.equal(DealContactRefreshedV2.is(event));
    }
  });

  it('reads a v2 event through the versioning decorator as v3, unchanged; records version 3 on a new one', () =>
    expectReadThroughDecorator({ stream: dealStream('d-1'), type: 'DealContactRefreshed', stored: 2, data: refreshedV2, declaration: declared.DealContactRefreshed! }));
});

describe('DealRestored versions', () => {
  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    const v1 = { type: 'DealRestored', data: restoredV1 } as DealRestoredV1;
    expect(DealRestoredV1.is(v1)).to.equal(true);
    expect(upcastDealRestoredV1(v1)).to.deep.equal(v1);
    expect(DealRestored.is(v1)).to.equal(true);
  });

  it('v2 accepts each personal field of the deal\'s contact and user null (erased); version 1 refuses the user\'s; the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'DealRestored', previous: DealRestoredV1, current: DealRestored, declaration: declared.DealRestored!, sample: restoredV1 });
    expect(DealRestoredV1.is({ type: 'DealRestored', data: erased(restoredV1, declared.DealRestored!) })).to.equal(false);
    expect(DealRestored.is({ type: 'DealRestored', data: { ...restoredV1, deal: { ...deal, id: null } } })).to.equal(false);
  });

  it('reads a v1 event through the versioning decorator as v2, unchanged; records version 2 on a new one', () =>
    expectReadThroughDecorator({ stream: dealStream('d-1'), type: 'DealRestored', stored: 1, data: restoredV1, declaration: declared.DealRestored! }));
});

import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { CompanyName } from '../../../src/features/companies/domain/CompanyName.js';
import { companyDecider } from '../../../src/features/companies/domain/companyDecider.js';
import type { CompanyEvent } from '../../../src/features/companies/domain/companyEvents.js';
import { specFor } from '../../support/givenWhenThen.js';
import { valid } from '../apiKeys/decode.js';

const spec = specFor(companyDecider);
const at = new Date('2026-03-01T10:00:00.000Z');
const created: CompanyEvent = {
  type: 'CompanyCreated',
  data: { companyId: 'co-1', name: 'Acme', createdAt: '2026-03-01T10:00:00.000Z' },
};
const create = { type: 'CreateCompany', companyId: 'co-1', name: valid(CompanyName, 'Acme'), at } as const;

describe('company decider', () => {
  describe('given no company', () => {
    it('creates it', () => spec.given().when(create).then(created));
  });
  describe('given a created company', () => {
    it('refuses to create it again', () =>
      spec.given(created).when(create).thenError({ kind: 'CompanyAlreadyExists', companyId: 'co-1' }));
  });
});

describe('CompanyName', () => {
  it('trims', () => expect(valid(CompanyName, '  Acme Ltd ')).to.equal('Acme Ltd'));
  it('refuses an empty, blank, too long or control-character name', () => {
    for (const bad of ['', '   ', 'x'.repeat(201), 'a\nb', 42]) expect(E.isLeft(CompanyName.decode(bad)), String(bad)).to.equal(true);
  });
});

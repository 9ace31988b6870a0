import { expect } from 'chai';
import * as E from 'fp-ts/lib/Either.js';
import { Email } from '../../../src/features/users/domain/Email.js';
import { UserName } from '../../../src/features/users/domain/UserName.js';
import type { UserEvent } from '../../../src/features/users/domain/userEvents.js';
import { userDecider } from '../../../src/features/users/domain/userDecider.js';
import { specFor } from '../../support/givenWhenThen.js';
import { valid } from '../apiKeys/decode.js';

const spec = specFor(userDecider);
const at = new Date('2026-03-01T10:00:00.000Z');
const created: UserEvent = {
  type: 'UserCreated',
  data: { userId: 'u-1', companyId: 'co-1', name: 'Ada Lovelace', email: 'ada@example.com', createdAt: '2026-03-01T10:00:00.000Z' },
};
const create = {
  type: 'CreateUser',
  userId: 'u-1',
  companyId: 'co-1',
  name: valid(UserName, 'Ada Lovelace'),
  email: valid(Email, 'ada@example.com'),
  at,
} as const;

const erase = { type: 'EraseUser', userId: 'u-1', companyId: 'co-1', at: new Date('2026-03-02T10:00:00.000Z') } as const;
const erased: UserEvent = { type: 'UserErased', data: { userId: 'u-1', companyId: 'co-1', erasedAt: '2026-03-02T10:00:00.000Z' } };
/** `created` as it reads once the user is erased (their key gone). */
const createdErased: UserEvent = { type: 'UserCreated', data: { ...created.data, name: null, email: null } };

describe('user decider', () => {
  describe('given no user', () => {
    it('creates the user', () => spec.given().when(create).then(created));
    it('refuses to erase it: not found', () => spec.given().when(erase).thenError({ kind: 'UserNotFound', userId: 'u-1' }));
  });
  describe('given a created user', () => {
    it('refuses to create it again', () => spec.given(created).when(create).thenError({ kind: 'UserAlreadyExists', userId: 'u-1' }));
    it('erases it, recording when and nothing personal', () => spec.given(created).when(erase).then(erased));
    it('refuses to erase it for another company: not found', () =>
      spec.given(created).when({ ...erase, companyId: 'co-2' }).thenError({ kind: 'UserNotFound', userId: 'u-1' }));
  });
  describe('given an erased user (its created event reading as null)', () => {
    it('records nothing when erased again', () => spec.given(createdErased, erased).when({ ...erase, at: new Date('2026-04-01T00:00:00.000Z') }).then());
    it('refuses to create it again', () => spec.given(createdErased, erased).when(create).thenError({ kind: 'UserAlreadyExists', userId: 'u-1' }));
    it('refuses to erase it for another company: not found', () =>
      spec.given(createdErased, erased).when({ ...erase, companyId: 'co-2' }).thenError({ kind: 'UserNotFound', userId: 'u-1' }));
    it('folds to the erased state, with when it was erased', () =>
      expect([createdErased, erased].reduce(userDecider.evolve, userDecider.initialState)).to.deep.equal({
        status: 'erased',
        userId: 'u-1',
        companyId: 'co-1',
        erasedAt: '2026-03-02T10:00:00.000Z',
      }));
  });
});

describe('Email', () => {
  it('accepts ordinary addresses, trimmed, with the domain lower-cased', () => {
    expect(valid(Email, ' Ada.Lovelace+crm@Example.CO.uk ')).to.equal('Ada.Lovelace+crm@example.co.uk');
    expect(valid(Email, 'a@b.io')).to.equal('a@b.io');
  });
  it('refuses what is not an email address', () => {
    for (const bad of ['', 'ada', 'ada@', '@example.com', 'ada@example', 'ada lovelace@example.com', 'ada@@example.com', 'ada@-x.com', `${'a'.repeat(250)}@b.io`, 7]) {
      expect(E.isLeft(Email.decode(bad)), String(bad)).to.equal(true);
    }
  });
});

describe('UserName', () => {
  it('refuses an empty name', () => expect(E.isLeft(UserName.decode(' '))).to.equal(true));
});

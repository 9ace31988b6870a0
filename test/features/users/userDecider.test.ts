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

describe('user decider', () => {
  describe('given no user', () => {
    it('creates the user', () => spec.given().when(create).then(created));
  });
  describe('given a created user', () => {
    it('refuses to create it again', () => spec.given(created).when(create).thenError({ kind: 'UserAlreadyExists', userId: 'u-1' }));
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

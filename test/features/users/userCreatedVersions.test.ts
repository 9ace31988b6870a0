import { expect } from 'chai';
import { UserCreated, userStream } from '../../../src/features/users/domain/userEvents.js';
import { UserCreatedV1, upcastUserCreatedV1 } from '../../../src/features/users/domain/userEventVersions.js';
import { userPersonalData } from '../../../src/features/users/domain/userPersonalData.js';
import { erased, expectNullablePersonalFields, expectReadThroughDecorator } from '../../support/personalFieldsNull.js';

/** The data of a `UserCreated` version 1 (what releases up to bf089fc wrote). */
const createdV1 = { userId: 'u-1', companyId: 'co-1', name: 'Dana Seller', email: 'dana@example.com', createdAt: '2026-01-01T10:00:00.000Z' };
const declaration = userPersonalData.events.UserCreated!;

describe('UserCreated versions', () => {
  it('v1 → v2 (pure): the identity; version 2 accepts what version 1 holds', () => {
    const v1 = { type: 'UserCreated' as const, data: createdV1 };
    expect(upcastUserCreatedV1(v1)).to.deep.equal(v1);
    expect(UserCreated.is(v1)).to.equal(true);
  });

  it('v2 accepts the name and the e-mail null (erased), which version 1 refuses; the others stay refused as null', () => {
    expectNullablePersonalFields({ type: 'UserCreated', previous: UserCreatedV1, current: UserCreated, declaration, sample: createdV1 });
    expect(UserCreatedV1.is({ type: 'UserCreated', data: erased(createdV1, declaration) })).to.equal(false);
    expect(UserCreated.is({ type: 'UserCreated', data: { ...createdV1, userId: null } })).to.equal(false);
  });

  it('reads a v1 event through the versioning decorator as v2, unchanged; records version 2 on a new one', () =>
    expectReadThroughDecorator({ stream: userStream('u-1'), type: 'UserCreated', stored: 1, data: createdV1, declaration }));
});

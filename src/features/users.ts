import { userAggregate } from '../application/aggregates/userAggregate.js';
import { usersCheck } from '../../projections/users/usersCheck.js';
import { usersProjection } from '../../projections/users/usersProjection.js';
import { adminUsersResource } from '../http/routes/admin/users.js';
import { readModel, type Feature } from './Feature.js';

/** The users of a company (deals are assigned to them). */
export const users: Feature = {
  name: 'users',
  aggregates: [userAggregate],
  readModels: [readModel(usersProjection, usersCheck)],
  adminResources: [adminUsersResource],
};

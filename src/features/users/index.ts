import { userAggregate } from './application/userAggregate.js';
import { usersCheck } from './readModels/usersCheck.js';
import { usersProjection } from './readModels/usersProjection.js';
import { documentFields, exportedRecords } from '../../application/companyExport/ExportedRecords.js';
import { adminUsersResource } from './admin/userAdminRoutes.js';
import { userEraser } from './admin/userErasure.js';
import { readModel, type Feature } from '../Feature.js';
import { userPersonalData } from './domain/userPersonalData.js';

/** The users of a company (deals are assigned to them). */
export const users: Feature = {
  name: 'users',
  aggregates: [userAggregate],
  personalData: userPersonalData,
  readModels: [readModel(usersProjection, usersCheck)],
  adminResources: [adminUsersResource],
  subjectErasers: [userEraser],
  exports: [exportedRecords('users', usersProjection, documentFields)],
};

// What other features use of this one.
export { UserErased, UserEvent, userStream } from './domain/userEvents.js';

// What the CLI and the start-up use of this one.
export { createUser } from './application/createUser.js';
export { Email } from './domain/Email.js';
export { UserName } from './domain/UserName.js';
export { describeUserError } from './domain/userErrors.js';
export { usersProjection } from './readModels/usersProjection.js';
export { userNotFound } from './admin/userErasure.js';

import { DOCUMENT_FIELDS, personalOf, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A user is a person of the company: their name and e-mail are theirs (deals embed copies, see `dealPersonalData`). */
export const userPersonalData: PersonalDataDeclaration = {
  events: {
    UserCreated: { personal: [personalOf('user', 'userId', ['name', 'email'])], notPersonal: ['userId', 'companyId', 'createdAt'] },
    UserErased: { personal: [], notPersonal: ['userId', 'companyId', 'erasedAt'] },
  },
  readModels: {
    users: { personal: [personalOf('user', 'id', ['name', 'email'])], notPersonal: [...DOCUMENT_FIELDS, 'createdAt'] },
  },
};

import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A company's name is a business's, not a person's. */
export const companyPersonalData: PersonalDataDeclaration = {
  events: { CompanyCreated: nothingPersonal('companyId', 'name', 'createdAt') },
  readModels: { companies: nothingPersonal(...DOCUMENT_FIELDS, 'company.id', 'company.name', 'company.createdAt') },
};

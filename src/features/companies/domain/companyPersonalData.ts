import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A company's name is a business's, not a person's; its deletion and erasure hold ids, times and counts. */
export const companyPersonalData: PersonalDataDeclaration = {
  events: {
    CompanyCreated: nothingPersonal('companyId', 'name', 'createdAt'),
    CompanyDeletionRequested: nothingPersonal('companyId', 'requestedAt', 'eraseAfter', 'requestedBy'),
    CompanyDeletionCancelled: nothingPersonal('companyId', 'cancelledAt'),
    CompanyErasureStarted: nothingPersonal('companyId', 'startedAt'),
    CompanyErased: nothingPersonal('companyId', 'erasedAt'),
  },
  readModels: {
    companies: nothingPersonal(...DOCUMENT_FIELDS, 'deletion.requestedAt', 'deletion.eraseAfter', 'deletion.erasingSince', 'company.id', 'company.name', 'company.createdAt'),
  },
};

import { DOCUMENT_FIELDS, nothingPersonal, personalOf, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/**
 * A company's name is a business's, not a person's. The reason of a suspension
 * is free text the platform writes about its customer, which may name people:
 * it is the company's (sealed under `company:<id>`), unreadable once the
 * company's key is destroyed. Its deletion and erasure hold ids, times and counts.
 */
export const companyPersonalData: PersonalDataDeclaration = {
  events: {
    CompanyCreated: nothingPersonal('companyId', 'name', 'createdAt'),
    CompanySuspended: { personal: [personalOf('company', 'companyId', ['reason'])], notPersonal: ['companyId', 'suspendedAt', 'by.adminTokenId'] },
    CompanyResumed: nothingPersonal('companyId', 'resumedAt', 'by.adminTokenId'),
    CompanyDeletionRequested: nothingPersonal('companyId', 'requestedAt', 'eraseAfter', 'by.adminTokenId'),
    CompanyDeletionCancelled: nothingPersonal('companyId', 'cancelledAt'),
    CompanyErasureStarted: nothingPersonal('companyId', 'startedAt'),
    CompanyErased: nothingPersonal('companyId', 'erasedAt'),
  },
  readModels: {
    companies: {
      personal: [personalOf('company', 'company.id', ['company.suspensionReason'])],
      notPersonal: [
        ...DOCUMENT_FIELDS,
        'company.id',
        'company.name',
        'company.createdAt',
        'company.status',
        'company.suspendedAt',
        'deletion.requestedAt',
        'deletion.eraseAfter',
        'deletion.erasingSince',
      ],
    },
  },
};

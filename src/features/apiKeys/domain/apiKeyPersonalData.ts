import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A key's name is a label the company chose for a system, not a person; its hash and hint are no one's data. */
export const apiKeyPersonalData: PersonalDataDeclaration = {
  events: {
    ApiKeyIssued: nothingPersonal('keyId', 'companyId', 'name', 'expiresAt', 'keyHash', 'keyHint', 'createdAt'),
    ApiKeyRevoked: nothingPersonal('keyId', 'companyId', 'revokedAt'),
  },
  readModels: {
    api_keys: nothingPersonal(...DOCUMENT_FIELDS, 'name', 'type', 'permissions[]', 'keyHint', 'expiresAt', 'revokedAt', 'createdAt'),
    api_key_directory: nothingPersonal(...DOCUMENT_FIELDS, 'keyId', 'ownerCompanyId', 'permissions[]', 'expiresAt'),
  },
};

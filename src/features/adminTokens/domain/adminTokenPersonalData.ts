import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** An admin token's name labels a system of the platform; its hash and hint are no one's data. */
export const adminTokenPersonalData: PersonalDataDeclaration = {
  events: {
    AdminTokenIssued: nothingPersonal('tokenId', 'name', 'tokenHash', 'tokenHint', 'createdAt'),
    AdminTokenRevoked: nothingPersonal('tokenId', 'revokedAt'),
  },
  readModels: { admin_tokens: nothingPersonal(...DOCUMENT_FIELDS, 'tokenId', 'name', 'tokenHint', 'createdAt', 'revokedAt') },
};

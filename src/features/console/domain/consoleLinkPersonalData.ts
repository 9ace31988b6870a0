import { nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A console link and its session are ids and times. */
export const consoleLinkPersonalData: PersonalDataDeclaration = {
  events: {
    ConsoleLinkIssued: nothingPersonal('linkId', 'companyId', 'tokenHash', 'issuedAt', 'expiresAt'),
    ConsoleLinkRedeemed: nothingPersonal('linkId', 'companyId', 'sessionId', 'redeemedAt'),
  },
};

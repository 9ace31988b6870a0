import {
  DOCUMENT_FIELDS,
  nestedUnder,
  personalOf,
  under,
  type FieldsDeclaration,
  type PersonalDataDeclaration,
} from '../../../shared/PersonalData.js';

/**
 * A deal holds other people's data only in the summaries it embeds: its
 * contact's (name, email, phone number, employer) and its assigned user's (name,
 * email). Its own fields, free text included (title, description, source), are
 * the company's business record and not declared personal: erasing a person does
 * not change them.
 */
const CONTACT_SUMMARY = ['name', 'email', 'phoneNumber', 'currentCompany'];
const USER_SUMMARY = ['name', 'email'];
const DEAL_FIELDS = ['id', 'title', 'description', 'currency', 'stage', 'expectedCloseDate', 'actualCloseDate', 'source', 'createdAt', 'updatedAt'];

/** The summaries inside a deal at `prefix` (`''`: the data itself, `deal`: its `deal` view). */
const summariesAt = (prefix: string): FieldsDeclaration['personal'] => {
  const at = (path: string) => (prefix === '' ? path : `${prefix}.${path}`);
  return [
    personalOf('contact', at('contact.id'), under(at('contact'), CONTACT_SUMMARY)),
    personalOf('user', at('assignedTo.id'), under(at('assignedTo'), USER_SUMMARY)),
  ];
};

const summaryIds = (prefix: string): string[] => under(prefix, ['contact.id', 'assignedTo.id']);

/** The Deal as the API shows it (responses, the read model's `deal`, webhook payloads). */
export const DEAL_VIEW: FieldsDeclaration = {
  personal: summariesAt(''),
  notPersonal: [...DEAL_FIELDS, 'priority', 'status', 'contact.id', 'assignedTo.id'],
};

/** The record of `deal.won`: the deal's contact's name and email. */
export const DEAL_WON_VIEW: FieldsDeclaration = {
  personal: [personalOf('contact', 'contact.id', under('contact', ['name', 'email']))],
  notPersonal: ['id', 'title', 'currency', 'stage', 'status', 'wonAt', 'contact.id'],
};

/** The personal data deals store, by stored event type. */
export const dealPersonalData: PersonalDataDeclaration = {
  events: {
    DealCreated: {
      personal: summariesAt(''),
      notPersonal: [
        'dealId',
        'companyId',
        ...DEAL_FIELDS.filter((field) => !['id', 'actualCloseDate', 'updatedAt'].includes(field)),
        'contact.id',
        'assignedTo.id',
      ],
    },
    DealStatusChanged: {
      personal: summariesAt('deal'),
      notPersonal: ['dealId', 'companyId', 'actualCloseDate', 'updatedAt', 'stage.from', 'stage.to', ...under('deal', DEAL_FIELDS), ...summaryIds('deal')],
    },
    DealContactRefreshed: {
      personal: [personalOf('contact', 'contact.id', under('contact', CONTACT_SUMMARY))],
      notPersonal: ['dealId', 'companyId', 'contact.id'],
    },
    DealDeleted: { personal: [], notPersonal: ['dealId', 'companyId', 'deletedAt', 'restorableUntil'] },
    DealRestored: {
      personal: summariesAt('deal'),
      notPersonal: ['dealId', 'companyId', 'restoredAt', ...under('deal', DEAL_FIELDS), ...summaryIds('deal')],
    },
  },
  readModels: {
    deals: nestedUnder('deal', DEAL_VIEW, DOCUMENT_FIELDS),
  },
};

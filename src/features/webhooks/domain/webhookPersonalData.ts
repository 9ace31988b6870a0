import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/** A subscription names a receiver and the tags it filters on: settings of the company, no person's data. */
export const webhookPersonalData: PersonalDataDeclaration = {
  events: {
    WebhookSubscribed: nothingPersonal('subscriptionId', 'companyId', 'targetUrl', 'filters.tags[]', 'createdAt'),
    WebhookUnsubscribed: nothingPersonal('subscriptionId', 'companyId', 'at'),
    WebhookPaused: nothingPersonal('subscriptionId', 'companyId', 'failingSince', 'at'),
    WebhookDisabled: nothingPersonal('subscriptionId', 'companyId', 'failingSince', 'at'),
    WebhookEnabled: nothingPersonal('subscriptionId', 'companyId', 'at'),
    WebhookEndedByImport: nothingPersonal('subscriptionId', 'companyId', 'at'),
    WebhookSecretRotated: nothingPersonal('subscriptionId', 'companyId', 'previousSecretExpiresAt', 'at'),
  },
  readModels: {
    webhooks: nothingPersonal(
      ...DOCUMENT_FIELDS,
      ...['id', 'event', 'targetUrl', 'filters.tags[]', 'createdAt', 'deliveryStatus', 'failingSince'].map((field) => `subscription.${field}`),
    ),
  },
};

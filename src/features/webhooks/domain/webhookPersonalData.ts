import { DOCUMENT_FIELDS, nothingPersonal, type PersonalDataDeclaration } from '../../../shared/PersonalData.js';

/**
 * A subscription names a receiver and the tags it filters on: settings of the company, no
 * person's data. Its delivery log (the webhook outbox) does hold people's data: each
 * delivery's body is a record, and a receiver's response may echo it back.
 */
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
  stores: {
    webhook_outbox: {
      personal: ['envelope', 'attempts[].response.headers', 'attempts[].response.body'],
      notPersonal: [
        'subscriptionId',
        'companyId',
        'eventId',
        'eventType',
        'position',
        'occurredAt',
        'state',
        'attempts[].at',
        'attempts[].statusCode',
        'attempts[].error',
        'attempts[].errorKind',
        'attempts[].request.url',
        'attempts[].request.headers',
        'nextAttemptAt',
        'completedAt',
        'failureReason',
        'createdAt',
      ],
      erasedBy: 'WebhookOutbox.eraseMentions',
    },
  },
};

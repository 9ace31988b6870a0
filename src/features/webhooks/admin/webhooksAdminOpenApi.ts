import { errorCase, idParameter, json, jsonResponse, schemaRef, type ApiModule } from '../../../http/openapi/common.js';
import { adminBodyErrors, adminOperation, adminWritten, companyIdParameter } from '../../../http/openapi/admin/common.js';
import { ROTATE_SECRET_SCHEMAS } from '../api/webhooksOpenApi.js';

const notFound = {
  ...jsonResponse(
    'No company with this id (`Company not found`), or no active webhook subscription with this id in it (`Webhook subscription not found`).',
    'AdminWebhookNotFoundError',
    'admin',
  ),
  content: json({ oneOf: [schemaRef('CompanyNotFoundError'), schemaRef('AdminWebhookNotFoundError')] }),
};

/** `/admin/companies/{id}/webhooks`: a company's webhook subscriptions. */
export const adminWebhooksOpenApi: ApiModule = {
  tags: [{ name: 'Webhooks', description: 'A company\'s webhook subscriptions (which its API keys manage under `/webhooks`).' }],
  paths: {
    '/admin/companies/{id}/webhooks/{subscriptionId}/rotate-secret': {
      post: adminOperation({
        operationId: 'rotateWebhookSecret',
        tags: ['Webhooks'],
        summary: 'Rotate a subscription\'s signing secret',
        description:
          'As `POST /webhooks/{id}/rotate-secret` of the customer API: the new secret is returned once, and the previous ' +
          'one signs every delivery too (a second signature in `webhook-signature`) for `overlapHours` (default 24, at ' +
          'most 168). Recorded as `WebhookSecretRotated` with `metadata.source` `admin`.',
        parameters: [companyIdParameter, { ...idParameter('subscription'), name: 'subscriptionId' }],
        requestBody: { required: true, content: json(schemaRef('WebhookRotateSecretRequest')) },
        responses: {
          '200': adminWritten('The new secret (shown only here), and when the previous one stops signing.', 'WebhookRotateSecretResponse', true),
          ...adminBodyErrors('`overlapHours` is not a whole number from 0 to 168, or another field is sent'),
          '404': notFound,
        },
      }),
    },
  },
  schemas: {
    // The customer API's shapes: one shape on both APIs.
    ...ROTATE_SECRET_SCHEMAS,
    AdminWebhookNotFoundError: errorCase({ const: 'Webhook subscription not found' }),
  },
};

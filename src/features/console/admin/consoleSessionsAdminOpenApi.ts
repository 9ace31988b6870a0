import { bodyErrorsOf, itemEnvelope, json, jsonResponse, schemaRef, type ApiModule } from '../../../http/openapi/common.js';
import {
  adminBodyErrors,
  adminCreate,
  adminOperation,
  adminWritten,
  companyIdParameter,
  companyNotFound,
  companySuspendedConflict,
} from '../../../http/openapi/admin/common.js';

/** `/admin/companies/{id}/console-sessions`: single-use links into a company's customer console. */
export const adminConsoleSessions: ApiModule = {
  tags: [
    {
      name: 'Console',
      description:
        "Links into the customer console (`/console`): the platform asks for one when its customer opens the console from the platform's dashboard, and sends the customer to it.",
    },
  ],
  paths: {
    '/admin/companies/{id}/console-sessions': {
      post: adminCreate({
        operationId: 'createConsoleSession',
        tags: ['Console'],
        summary: "Issue a link into a company's console",
        description:
          "A single-use link, valid for 15 minutes, that signs its holder into this company's console (a `ConsoleLinkIssued` event; only the hash of the link's secret is stored). " +
          'Hand it to the customer at once (a redirect from the platform\'s dashboard): opening it shows a page that signs in with one button, and then the link is used. ' +
          'The link points at `CONSOLE_PUBLIC_URL` when it is set, else at the origin this request came to. ' +
          'The body is a JSON object, `{}`: it has no fields yet. Each call issues a new link; a link never used expires by itself. ' +
          'A replay of an `Idempotency-Key` answers the same `expiresAt` with `url: null`: the link is shown once (its secret is stored nowhere); ask for another.',
        parameters: [companyIdParameter],
        requestBody: { required: true, content: json({ type: 'object', description: 'Empty (`{}`): no options yet.' }) },
        responses: {
          '201': adminWritten('The link, shown once.', 'ConsoleSessionResponse', true),
          ...adminBodyErrors('The body is not a JSON object'),
          '404': companyNotFound,
          '409': companySuspendedConflict('no link is issued until it is resumed (`POST /admin/companies/{id}/resume`).'),
        },
      }),
      delete: adminOperation({
        operationId: 'endConsoleSessions',
        tags: ['Console'],
        summary: "End every console session of a company",
        description:
          "Ends every open console session of this company at once, on every API process: each browser is signed out at its next request. " +
          'Call it when the customer loses access (offboarding, its keys revoked). Ending sessions is not an event of the log; ' +
          'links already issued and not yet used still open a session until they expire (15 minutes at most), so stop asking for links first. ' +
          'Sessions also end when the admin token that asked for their link is revoked (`chronicle admin-tokens revoke`), ' +
          'and when the company is suspended (`POST /admin/companies/{id}/suspend`, which also refuses new links and signs out a session opened meanwhile).',
        parameters: [companyIdParameter],
        responses: {
          '200': jsonResponse('How many sessions were ended (0 when none was open).', 'EndedConsoleSessionsResponse', 'admin'),
          // A DELETE needs no body; one that carries a body must send JSON.
          ...bodyErrorsOf('admin'),
          '404': companyNotFound,
        },
      }),
    },
  },
  schemas: {
    ConsoleSession: {
      type: 'object',
      required: ['url', 'expiresAt'],
      additionalProperties: false,
      properties: {
        url: {
          type: ['string', 'null'],
          format: 'uri',
          description:
            '`<origin><BASE_PATH>/console/login?token=<token>`: single-use; the token in it is shown only here. `null` in a replay of an `Idempotency-Key`.',
        },
        expiresAt: { ...schemaRef('Timestamp'), description: 'When the link stops working if it was not used: 15 minutes after it was issued.' },
      },
    },
    ConsoleSessionResponse: itemEnvelope('ConsoleSession'),
    EndedConsoleSessions: {
      type: 'object',
      required: ['companyId', 'ended'],
      additionalProperties: false,
      properties: {
        companyId: { type: 'string', format: 'uuid', description: 'The company.' },
        ended: { type: 'integer', minimum: 0, description: 'How many sessions were open (or ended but not yet pruned) and are now ended.' },
      },
    },
    EndedConsoleSessionsResponse: itemEnvelope('EndedConsoleSessions'),
  },
};

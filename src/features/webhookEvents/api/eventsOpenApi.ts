import type { WebhookEventCatalogue } from '../application/webhookEventCatalogue.js';
import { capitalised, inWords } from './inWords.js';
import { DEFAULT_FEED_LIMIT, MAX_FEED_LIMIT } from '../readModels/webhookEventFeed.js';
import {
  DECIMAL_POSITION,
  authenticatedPerItem,
  badMinLogPosition,
  jsonResponse,
  minLogPosition,
  schemaRef,
  validationFailed,
  type ApiModule,
} from '../../../http/openapi/common.js';
import type { JsonSchema } from '../../../http/openapi/types.js';

/** `/events`: the company's webhook events in log order, for integrators catching up without webhooks. */

const FEED_DESCRIPTION = `
The company's webhook events (the same envelopes, \`data\` and \`metadata.eventId\` as
deliveries) in log order, each with the \`position\` of the stored event it derives
from. An integrator that was offline catches up without webhooks: start without
\`after\` (or from a position it kept), then pass \`meta.nextAfter\` as \`after\` until
\`hasMore\` is false; keep \`nextAfter\` for the next time.

- **Order**: by \`position\`; one stored event can derive several webhook events (a
  won deal that moves stage: \`deal.won\`, \`deal.stage_changed\`, \`deal.updated\`),
  which share its position and keep that order. A page never splits them, so
  \`after\` is an exact cursor; a page may hold more than \`limit\` events only when
  the first position alone derives more.
- **Consistency**: only events every read model has applied are served, so a page
  never skips an event that is still being projected; \`X-Min-Log-Position\` waits
  for a write first.
- **Permissions**: each event type needs its resource's read permission
  (\`contacts:read\` for \`contact.*\`, \`deals:read\` for \`deal.*\`). Without \`types\`,
  the feed holds the types the key may read (\`meta.types\`; a key that may read
  neither: 403 naming \`contacts:read\`); a \`types\` entry the key may not read: 403.
`.trim();

/** One `{event, data}` pairing of the feed: the envelope's data shape by event type. */
const eventCase = (events: readonly string[], data: string): JsonSchema => ({
  type: 'object',
  properties: { event: { enum: [...events] }, data: schemaRef(data) },
});

/** The OpenAPI part of `/events`, for the event types of `catalogue`. */
export const eventsOpenApi = (catalogue: WebhookEventCatalogue): ApiModule => {
  const shapes = catalogue.triggerRecords.flatMap((source) => source.shapes);
  return {
    tags: [{ name: 'Events', description: 'The company\'s event feed: webhook events in log order, from any position.' }],
    paths: {
      '/events': {
        get: authenticatedPerItem(['contacts:read', 'deals:read'], {
          operationId: 'listCompanyEvents',
          tags: ['Events'],
          summary: 'The company\'s webhook events after a log position',
          description: FEED_DESCRIPTION,
          parameters: [
            {
              name: 'after',
              in: 'query',
              required: false,
              description:
                'Only events of stored events after this log position (`meta.nextAfter` of the previous page, or an ' +
                '`X-Log-Position`); absent: from the start. Not a log position: 422.',
              schema: { type: 'string', pattern: DECIMAL_POSITION },
            },
            {
              name: 'types',
              in: 'query',
              required: false,
              description:
                'A comma-separated list of webhook event types; absent: every type the key may read. An unknown type: 422.',
              schema: { type: 'string' },
              example: 'deal.won,deal.lost',
            },
            {
              name: 'limit',
              in: 'query',
              required: false,
              description: `Events per page, 1–${MAX_FEED_LIMIT}; out of range or not an integer: 422.`,
              schema: { type: 'integer', minimum: 1, maximum: MAX_FEED_LIMIT, default: DEFAULT_FEED_LIMIT },
            },
            minLogPosition,
          ],
          responses: {
            '200': jsonResponse('A page of the feed.', 'EventFeed', 'authenticated'),
            '400': badMinLogPosition(),
            '422': validationFailed('`after`, `types` or `limit` is malformed or out of bounds'),
          },
        }),
      },
    },
    schemas: {
      EventFeedItem: {
        type: 'object',
        description: 'A webhook envelope (`event`, `timestamp`, `data`, `metadata`) and the log position it derives from.',
        required: ['position', 'event', 'timestamp', 'data', 'metadata'],
        additionalProperties: false,
        properties: {
          position: { ...schemaRef('LogPosition'), description: 'Position of the stored event this webhook event derives from.' },
          event: { type: 'string', enum: [...catalogue.types] },
          timestamp: { ...schemaRef('Timestamp'), description: 'When the change happened.' },
          data: { type: 'object', description: `${capitalised(inWords(shapes.map((shape) => shape.described.feed)))}.` },
          metadata: {
            type: 'object',
            required: ['companyId', 'eventId', 'source'],
            additionalProperties: false,
            properties: {
              companyId: { type: 'string' },
              eventId: { type: 'string', format: 'uuid', description: 'The webhook event\'s id, as in deliveries: de-duplicate on it.' },
              source: { type: 'string', enum: ['api', 'cli', 'console', 'system'] },
            },
          },
        },
        oneOf: shapes.map((shape) => eventCase(shape.types, shape.schema)),
      },
      EventFeed: {
        type: 'object',
        required: ['success', 'data', 'meta'],
        additionalProperties: false,
        properties: {
          success: { const: true },
          data: { type: 'array', items: schemaRef('EventFeedItem') },
          meta: {
            type: 'object',
            required: ['limit', 'types', 'hasMore', 'nextAfter'],
            additionalProperties: false,
            properties: {
              limit: { type: 'integer', minimum: 1, maximum: MAX_FEED_LIMIT },
              types: {
                type: 'array',
                items: schemaRef('WebhookEventType'),
                description: 'The event types this page was read from.',
              },
              hasMore: { type: 'boolean', description: 'More events already follow `nextAfter`: ask again at once.' },
              nextAfter: {
                oneOf: [schemaRef('LogPosition'), { type: 'null' }],
                description:
                  'The `after` of the next request: the position of the last event of this page; when the page is ' +
                  'empty, the request\'s own `after` (null when it had none).',
              },
            },
          },
        },
      },
    },
  };
};

import { apiKeyDecider } from '../../domain/apiKeys/apiKeyDecider.js';
import { ApiKeyEvent, ApiKeyIssued, ApiKeyRevoked, apiKeyStream } from '../../domain/apiKeys/apiKeyEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** An API key of a company (only its hash is stored): `apikey-<id>`. */
export const apiKeyAggregate = describeAggregate({
  name: 'apikey',
  streamPrefix: apiKeyStream(''),
  eventCodec: ApiKeyEvent,
  decider: apiKeyDecider,
  storedEvents: [storedEventType('ApiKeyIssued', [ApiKeyIssued]), storedEventType('ApiKeyRevoked', [ApiKeyRevoked])],
});

import { apiKeyDecider } from '../domain/apiKeyDecider.js';
import * as E from 'fp-ts/lib/Either.js';
import { ApiKeyEvent, ApiKeyIssued, ApiKeyRevoked, apiKeyStream } from '../domain/apiKeyEvents.js';
import { ApiKeyIssuedV1, ApiKeyIssuedV2, upcastApiKeyIssuedV1, upcastApiKeyIssuedV2 } from '../domain/apiKeyEventVersions.js';
import { storedAs, storedEventType, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** ApiKeyIssued v1 → v2: the event alone decides (no name). */
const apiKeyIssuedV1toV2: UpcastStep = async (event) => E.right(upcastApiKeyIssuedV1(storedAs(ApiKeyIssuedV1, event)).data);

/** ApiKeyIssued v2 → v3: the event alone decides (version 2's permissions are all ones version 3 knows). */
const apiKeyIssuedV2toV3: UpcastStep = async (event) => E.right(upcastApiKeyIssuedV2(storedAs(ApiKeyIssuedV2, event)).data);

/** An API key of a company (only its hash is stored): `apikey-<id>`. */
export const apiKeyAggregate = describeAggregate({
  name: 'apikey',
  streamPrefix: apiKeyStream(''),
  eventCodec: ApiKeyEvent,
  decider: apiKeyDecider,
  storedEvents: [
    // Events stored before versions were recorded are all version 1 (the default rule): versions 2 and 3 came later.
    storedEventType('ApiKeyIssued', [ApiKeyIssuedV1, ApiKeyIssuedV2, ApiKeyIssued], [apiKeyIssuedV1toV2, apiKeyIssuedV2toV3]),
    storedEventType('ApiKeyRevoked', [ApiKeyRevoked]),
  ],
});

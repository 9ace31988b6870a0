import { adminTokenDecider } from '../domain/adminTokenDecider.js';
import { AdminTokenEvent, AdminTokenIssued, AdminTokenRevoked, adminTokenStream } from '../domain/adminTokenEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** A token of the platform's backend for the admin API (only its hash is stored): `admintoken-<id>`. */
export const adminTokenAggregate = describeAggregate({
  name: 'admintoken',
  streamPrefix: adminTokenStream(''),
  eventCodec: AdminTokenEvent,
  decider: adminTokenDecider,
  storedEvents: [storedEventType('AdminTokenIssued', [AdminTokenIssued]), storedEventType('AdminTokenRevoked', [AdminTokenRevoked])],
});

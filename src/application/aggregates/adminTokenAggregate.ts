import { adminTokenDecider } from '../../domain/adminTokens/adminTokenDecider.js';
import { AdminTokenEvent, AdminTokenIssued, AdminTokenRevoked, adminTokenStream } from '../../domain/adminTokens/adminTokenEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** A token of the platform's backend for the admin API (only its hash is stored): `admintoken-<id>`. */
export const adminTokenAggregate = describeAggregate({
  name: 'admintoken',
  streamPrefix: adminTokenStream(''),
  eventCodec: AdminTokenEvent,
  decider: adminTokenDecider,
  storedEvents: [storedEventType('AdminTokenIssued', [AdminTokenIssued]), storedEventType('AdminTokenRevoked', [AdminTokenRevoked])],
});

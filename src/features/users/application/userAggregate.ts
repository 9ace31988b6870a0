import { userDecider } from '../domain/userDecider.js';
import { UserCreated, UserEvent, userStream } from '../domain/userEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** A user of a company (deals are assigned to users): `user-<id>`. */
export const userAggregate = describeAggregate({
  name: 'user',
  streamPrefix: userStream(''),
  eventCodec: UserEvent,
  decider: userDecider,
  storedEvents: [storedEventType('UserCreated', [UserCreated])],
});

import { userDecider } from '../../domain/users/userDecider.js';
import { UserCreated, UserEvent, userStream } from '../../domain/users/userEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** A user of a company (deals are assigned to users): `user-<id>`. */
export const userAggregate = describeAggregate({
  name: 'user',
  streamPrefix: userStream(''),
  eventCodec: UserEvent,
  decider: userDecider,
  storedEvents: [storedEventType('UserCreated', [UserCreated])],
});

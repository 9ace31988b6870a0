import * as E from 'fp-ts/lib/Either.js';
import { userDecider } from '../domain/userDecider.js';
import { UserCreated, UserErased, UserEvent, userStream } from '../domain/userEvents.js';
import { UserCreatedV1, upcastUserCreatedV1 } from '../domain/userEventVersions.js';
import { storedEventType, storedAs, type UpcastStep } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** UserCreated v1 → v2: the event alone decides (version 1's data fits version 2 as it is). */
const userCreatedV1toV2: UpcastStep = async (event) => E.right(upcastUserCreatedV1(storedAs(UserCreatedV1, event)).data);

/** A user of a company (deals are assigned to users): `user-<id>`. */
export const userAggregate = describeAggregate({
  name: 'user',
  streamPrefix: userStream(''),
  eventCodec: UserEvent,
  decider: userDecider,
  storedEvents: [storedEventType('UserCreated', [UserCreatedV1, UserCreated], [userCreatedV1toV2]), storedEventType('UserErased', [UserErased])],
});

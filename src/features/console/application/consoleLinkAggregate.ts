import { consoleLinkDecider } from '../domain/consoleLinkDecider.js';
import { ConsoleLinkEvent, ConsoleLinkIssued, ConsoleLinkRedeemed, consoleLinkStream } from '../domain/consoleLinkEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** A single-use link into the customer console (only its secret's hash is stored): `consolelink-<id>`. */
export const consoleLinkAggregate = describeAggregate({
  name: 'consolelink',
  streamPrefix: consoleLinkStream(''),
  eventCodec: ConsoleLinkEvent,
  decider: consoleLinkDecider,
  storedEvents: [storedEventType('ConsoleLinkIssued', [ConsoleLinkIssued]), storedEventType('ConsoleLinkRedeemed', [ConsoleLinkRedeemed])],
});

import { consoleLinkDecider } from '../../domain/consoleLinks/consoleLinkDecider.js';
import { ConsoleLinkEvent, ConsoleLinkIssued, ConsoleLinkRedeemed, consoleLinkStream } from '../../domain/consoleLinks/consoleLinkEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** A single-use link into the customer console (only its secret's hash is stored): `consolelink-<id>`. */
export const consoleLinkAggregate = describeAggregate({
  name: 'consolelink',
  streamPrefix: consoleLinkStream(''),
  eventCodec: ConsoleLinkEvent,
  decider: consoleLinkDecider,
  storedEvents: [storedEventType('ConsoleLinkIssued', [ConsoleLinkIssued]), storedEventType('ConsoleLinkRedeemed', [ConsoleLinkRedeemed])],
});

import { companyDecider } from '../domain/companyDecider.js';
import {
  CompanyCreated,
  CompanyDeletionCancelled,
  CompanyDeletionRequested,
  CompanyErased,
  CompanyErasureStarted,
  CompanyEvent,
  CompanyResumed,
  CompanySuspended,
  companyStream,
} from '../domain/companyEvents.js';
import { storedEventType } from '../../../application/versioning/storedEventTypes.js';
import { describeAggregate } from '../../../application/aggregates/AggregateDescriptor.js';

/** A customer company of the platform: `company-<id>`. */
export const companyAggregate = describeAggregate({
  name: 'company',
  streamPrefix: companyStream(''),
  eventCodec: CompanyEvent,
  decider: companyDecider,
  storedEvents: [
    storedEventType('CompanyCreated', [CompanyCreated]),
    storedEventType('CompanySuspended', [CompanySuspended]),
    storedEventType('CompanyResumed', [CompanyResumed]),
    storedEventType('CompanyDeletionRequested', [CompanyDeletionRequested]),
    storedEventType('CompanyDeletionCancelled', [CompanyDeletionCancelled]),
    storedEventType('CompanyErasureStarted', [CompanyErasureStarted]),
    storedEventType('CompanyErased', [CompanyErased]),
  ],
});

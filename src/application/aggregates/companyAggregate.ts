import { companyDecider } from '../../domain/companies/companyDecider.js';
import { CompanyCreated, CompanyEvent, companyStream } from '../../domain/companies/companyEvents.js';
import { storedEventType } from '../versioning/storedEventTypes.js';
import { describeAggregate } from './AggregateDescriptor.js';

/** A customer company of the platform: `company-<id>`. */
export const companyAggregate = describeAggregate({
  name: 'company',
  streamPrefix: companyStream(''),
  eventCodec: CompanyEvent,
  decider: companyDecider,
  storedEvents: [storedEventType('CompanyCreated', [CompanyCreated])],
});

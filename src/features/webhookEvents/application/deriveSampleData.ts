import * as E from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../../../application/ports/EventStore.js';
import { contactDecider } from '../../contacts/index.js';
import type { ContactCommand } from '../../contacts/index.js';
import type { ContactEvent } from '../../contacts/index.js';
import { contactSummaryOf } from '../../deals/index.js';
import type { DealCommand } from '../../deals/index.js';
import { dealDecider, type DealState } from '../../deals/index.js';
import type { DealEvent } from '../../deals/index.js';
import type { WebhookEventType } from '../domain/eventTypes.js';
import type { Decider, DomainEvent } from '../../../shared/Decider.js';
import type { WebhookEventData } from '../domain/derivedWebhookEvent.js';
import { deriveWebhookEvents } from './deriveWebhookEvents.js';

/**
 * Example `data` of each webhook event type, for `GET /triggers/:type/sample`
 * when the company has no real record of that type yet (Zapier and Make show it
 * while a user maps fields). The examples are not written by hand: a made-up
 * history is decided by the real deciders and mapped by `deriveWebhookEvents`, so
 * an example always has exactly the shape of a real record. Values are plainly
 * fake: ids `00000000-0000-4000-8000-00000000000n`, `example.com` addresses, a
 * 555-01xx phone number.
 */

const CONTACT_ID = '00000000-0000-4000-8000-000000000001';
const DEAL_ID = '00000000-0000-4000-8000-000000000002';
const USER_ID = '00000000-0000-4000-8000-000000000003';
const COMPANY_ID = '00000000-0000-4000-8000-000000000000';

const decideAll = <C, Ev extends DomainEvent, S, Err>(decider: Decider<C, Ev, S, Err>, state: S, command: C): readonly Ev[] => {
  const decided = decider.decide(command, state);
  if (E.isLeft(decided)) throw new Error(`sample history refused: ${JSON.stringify(decided.left)}`);
  return decided.right;
};

/** A stored event around a decided one (ids and positions as fake as the rest). */
const recorded = (sequence: number, stream: string, revision: number, event: DomainEvent): RecordedEvent => ({
  id: `00000000-0000-4000-8000-${String(100 + sequence).padStart(12, '0')}`,
  stream,
  revision,
  position: String(sequence),
  type: event.type,
  data: event.data,
  metadata: { source: 'api', correlationId: 'sample' },
  recordedAt: '2024-01-15T09:30:00.000Z',
});

interface Sample {
  readonly data: WebhookEventData;
  readonly eventId: string;
}

const buildSamples = (): ReadonlyMap<WebhookEventType, Sample> => {
  const samples = new Map<WebhookEventType, Sample>();
  let sequence = 0;
  const keep = (stream: string, revision: number, event: DomainEvent): void => {
    for (const derived of deriveWebhookEvents(recorded(++sequence, stream, revision, event))) {
      if (!samples.has(derived.type)) samples.set(derived.type, { data: derived.data, eventId: derived.eventId });
    }
  };

  // A contact, created and then updated.
  const contactStream = `contact-${CONTACT_ID}`;
  const contactCommands: ContactCommand[] = [
    {
      type: 'CreateContact',
      contactId: CONTACT_ID,
      companyId: COMPANY_ID,
      fields: {
        name: 'Jane Doe',
        firstName: 'Jane',
        lastName: 'Doe',
        phoneNumber: '+15555550100',
        email: 'jane.doe@example.com',
        position: 'Head of Operations',
        currentCompany: 'Example Corp',
        industrySector: 'Software',
        city: 'Springfield',
        country: 'United States',
        tags: ['vip', 'newsletter'],
      },
      at: new Date('2024-01-15T09:30:00.000Z'),
    },
    {
      type: 'UpdateContact',
      contactId: CONTACT_ID,
      companyId: COMPANY_ID,
      changes: { city: 'Shelbyville', tags: ['vip', 'newsletter', 'partner'] },
      at: new Date('2024-01-16T14:05:00.000Z'),
    },
  ];
  let contactState = contactDecider.initialState;
  let contactRevision = 0;
  for (const command of contactCommands) {
    for (const event of decideAll<ContactCommand, ContactEvent, typeof contactState, unknown>(contactDecider, contactState, command)) {
      keep(contactStream, contactRevision++, event);
      contactState = contactDecider.evolve(contactState, event);
    }
  }
  if (contactState.status !== 'active') throw new Error('sample contact missing');

  // A deal of that contact: created, moved to another stage, then (alternatives of one history) won or lost.
  const dealStream = `deal-${DEAL_ID}`;
  const create: DealCommand = {
    type: 'CreateDeal',
    dealId: DEAL_ID,
    companyId: COMPANY_ID,
    fields: {
      title: 'Annual subscription - Example Corp',
      description: 'Renewal of the platform subscription for 25 seats.',
      value: 12000,
      currency: 'USD',
      stage: 'Proposal',
      priority: 'high',
      probability: 60,
      expectedCloseDate: '2024-03-31T00:00:00.000Z',
      source: 'Website',
    },
    contact: contactSummaryOf(contactState.contact),
    assignedTo: { id: USER_ID, name: 'Sam Seller', email: 'sam.seller@example.com' },
    at: new Date('2024-01-17T10:00:00.000Z'),
  };
  const change = (fields: Extract<DealCommand, { type: 'ChangeDealStatus' }>['change'], at: string): DealCommand => ({
    type: 'ChangeDealStatus',
    dealId: DEAL_ID,
    companyId: COMPANY_ID,
    change: fields,
    contact: contactSummaryOf(contactState.contact),
    at: new Date(at),
  });
  const apply = (state: DealState, revision: number, command: DealCommand): DealState => {
    let next = state;
    for (const event of decideAll<DealCommand, DealEvent, DealState, unknown>(dealDecider, state, command)) {
      keep(dealStream, revision, event);
      next = dealDecider.evolve(next, event);
    }
    return next;
  };
  const created = apply(dealDecider.initialState, 0, create);
  const negotiating = apply(created, 1, change({ stage: 'Negotiation' }, '2024-02-01T16:45:00.000Z'));
  apply(negotiating, 2, change({ status: 'won', stage: 'Closed' }, '2024-02-20T11:15:00.000Z'));
  apply(negotiating, 2, change({ status: 'lost', actualCloseDate: '2024-02-20T00:00:00.000Z' }, '2024-02-20T11:15:00.000Z'));
  return samples;
};

let samples: ReadonlyMap<WebhookEventType, Sample> | null = null;

const sampleOf = (type: WebhookEventType): Sample => {
  samples ??= buildSamples();
  const sample = samples.get(type);
  if (sample === undefined) throw new Error(`no sample for ${type}`);
  return sample;
};

/** The example `data` of a webhook event type (a fresh copy each time). */
export const deriveSampleData = (type: WebhookEventType): WebhookEventData => structuredClone(sampleOf(type).data);

/** The (made-up, fixed) event id of the example of a webhook event type. */
export const sampleEventId = (type: WebhookEventType): string => sampleOf(type).eventId;

import * as E from 'fp-ts/lib/Either.js';
import type * as t from 'io-ts';
import { AgentCreated, AgentUpdated } from '../../domain/agents/agentEvents.js';
import { ApiKeyIssued, ApiKeyRevoked } from '../../domain/apiKeys/apiKeyEvents.js';
import { CompanyCreated } from '../../domain/companies/companyEvents.js';
import { contactDecider } from '../../domain/contacts/contactDecider.js';
import { ContactCreated, ContactEvent, ContactUpdated, contactStream } from '../../domain/contacts/contactEvents.js';
import {
  ContactUpdatedV1,
  unmarkedContactUpdatedVersion,
  upcastContactUpdatedV1,
} from '../../domain/contacts/contactEventVersions.js';
import { contactSummaryOf } from '../../domain/deals/dealContactSummary.js';
import { dealDecider } from '../../domain/deals/dealDecider.js';
import { DealContactRefreshed, DealCreated, DealEvent, DealStatusChanged } from '../../domain/deals/dealEvents.js';
import {
  DealStatusChangedV1,
  unmarkedDealStatusChangedVersion,
  upcastDealStatusChangedV1,
} from '../../domain/deals/dealEventVersions.js';
import { PhoneNumberReleased, PhoneNumberReserved } from '../../domain/phoneReservation/phoneReservationEvents.js';
import { UserCreated } from '../../domain/users/userEvents.js';
import { WebhookSubscribed, WebhookUnsubscribed } from '../../domain/webhooks/webhookEvents.js';
import type { DomainEvent } from '../../shared/Decider.js';
import type { Position } from '../../shared/Position.js';
import type { RecordedEvent } from '../ports/EventStore.js';

/** How an aggregate folds its stream: the codec of its events (current versions) and its decider's `evolve`. */
export interface StreamFolding<Event extends DomainEvent, State> {
  readonly eventCodec: t.Type<Event, unknown, unknown>;
  readonly decider: { readonly initialState: State; evolve(state: State, event: Event): State };
}

/**
 * What an upcast may ask of the log: answered by the one place on each read path
 * that upcasts (`EventUpcaster`), from the stream's events in their current shapes.
 */
export interface UpcastLog {
  /** The state of the event's own stream just before it (its earlier events folded). */
  stateBefore<Event extends DomainEvent, State>(event: RecordedEvent, folding: StreamFolding<Event, State>): Promise<State>;
  /** The state of a stream as of a log position: its events before `position`, folded. */
  stateAt<Event extends DomainEvent, State>(stream: string, position: Position, folding: StreamFolding<Event, State>): Promise<State>;
}

/**
 * Reads a stored event whose `data` is in version n (accepted by that version's
 * codec) and gives its `data` in version n + 1, or Left with the reason it cannot.
 * The domain's upcasters are pure; a step only fetches what one needs and calls it.
 */
export type UpcastStep = (event: RecordedEvent, log: UpcastLog) => Promise<E.Either<string, unknown>>;

/** One stored event type: the codec of every version it was ever stored in, and how each version reads as the next. */
export interface StoredEventType {
  readonly type: string;
  /**
   * The codec of each version, oldest first (`versions[0]` is version 1); the
   * last is the current one, the codec the code writes with. A released
   * version's codec never changes (the schema snapshot test holds them).
   */
  readonly versions: readonly t.Mixed[];
  /** `upcasts[i]` reads version i + 1 as version i + 2. */
  readonly upcasts: readonly UpcastStep[];
  /** The version of an event stored without `metadata.schemaVersion` (written before versions were recorded). */
  readonly unmarkedVersion: (data: unknown) => number;
}

const storedEventType = (
  type: string,
  versions: readonly t.Mixed[],
  upcasts: readonly UpcastStep[] = [],
  unmarkedVersion: (data: unknown) => number = () => 1,
): StoredEventType => {
  if (versions.length === 0 || upcasts.length !== versions.length - 1) {
    throw new Error(`${type}: ${versions.length} versions need ${Math.max(0, versions.length - 1)} upcasters, not ${upcasts.length}`);
  }
  return { type, versions, upcasts, unmarkedVersion };
};

/** `data` of an event its version's codec accepted, typed as that version (the codecs transform nothing). */
const as = <C extends t.Mixed>(_codec: C, event: RecordedEvent): t.TypeOf<C> => ({ type: event.type, data: event.data }) as t.TypeOf<C>;

export const CONTACT_FOLDING: StreamFolding<ContactEvent, typeof contactDecider.initialState> = {
  eventCodec: ContactEvent,
  decider: contactDecider,
};
export const DEAL_FOLDING: StreamFolding<DealEvent, typeof dealDecider.initialState> = { eventCodec: DealEvent, decider: dealDecider };

/** ContactUpdated v1 → v2: the contact after the change, from the contact's stream before the event. */
const contactUpdatedV1toV2: UpcastStep = async (event, log) => {
  const before = await log.stateBefore(event, CONTACT_FOLDING);
  return E.map((upcast: ContactUpdated) => upcast.data)(upcastContactUpdatedV1(as(ContactUpdatedV1, event), before));
};

/**
 * DealStatusChanged v1 → v2: the deal after the change, from the deal's stream
 * before the event, with its contact as the contact's stream was at the event's
 * log position (what the decider embeds: the contact as it was when the change
 * was decided).
 */
const dealStatusChangedV1toV2: UpcastStep = async (event, log) => {
  const before = await log.stateBefore(event, DEAL_FOLDING);
  const contactId = before.status === 'active' ? before.deal.contact?.id : undefined;
  const contact = contactId === undefined ? null : await log.stateAt(contactStream(contactId), event.position, CONTACT_FOLDING);
  const contactThen = contact?.status === 'active' ? contactSummaryOf(contact.contact) : null;
  return E.map((upcast: DealStatusChanged) => upcast.data)(upcastDealStatusChangedV1(as(DealStatusChangedV1, event), before, contactThen));
};

/**
 * Every stored event type this code declares, with every version it was ever
 * stored in. A change of a stored event's shape adds a version here (the new
 * codec last), an upcaster from the one before, and the golden log of the release
 * before the change (docs/contributors/changing-an-event.md).
 */
export const STORED_EVENT_TYPES: ReadonlyMap<string, StoredEventType> = new Map(
  [
    storedEventType('CompanyCreated', [CompanyCreated]),
    storedEventType('UserCreated', [UserCreated]),
    storedEventType('ApiKeyIssued', [ApiKeyIssued]),
    storedEventType('ApiKeyRevoked', [ApiKeyRevoked]),
    storedEventType('AgentCreated', [AgentCreated]),
    storedEventType('AgentUpdated', [AgentUpdated]),
    storedEventType('PhoneNumberReserved', [PhoneNumberReserved]),
    storedEventType('PhoneNumberReleased', [PhoneNumberReleased]),
    storedEventType('ContactCreated', [ContactCreated]),
    storedEventType('ContactUpdated', [ContactUpdatedV1, ContactUpdated], [contactUpdatedV1toV2], unmarkedContactUpdatedVersion),
    storedEventType('DealCreated', [DealCreated]),
    storedEventType(
      'DealStatusChanged',
      [DealStatusChangedV1, DealStatusChanged],
      [dealStatusChangedV1toV2],
      unmarkedDealStatusChangedVersion,
    ),
    storedEventType('DealContactRefreshed', [DealContactRefreshed]),
    storedEventType('WebhookSubscribed', [WebhookSubscribed]),
    storedEventType('WebhookUnsubscribed', [WebhookUnsubscribed]),
  ].map((entry) => [entry.type, entry]),
);

/** The current version of each declared type (what a new event records). */
export const currentVersionOf = (type: StoredEventType): number => type.versions.length;

import * as E from 'fp-ts/lib/Either.js';
import type { RecordedEvent } from '../../../src/application/ports/EventStore.js';
import type { ContactCommand } from '../../../src/features/contacts/domain/contactCommands.js';
import { contactDecider, type ContactState } from '../../../src/features/contacts/domain/contactDecider.js';
import { contactStream } from '../../../src/features/contacts/domain/contactEvents.js';
import type { DealCommand } from '../../../src/features/deals/domain/dealCommands.js';
import { dealDecider, type DealState } from '../../../src/features/deals/domain/dealDecider.js';
import { dealStream } from '../../../src/features/deals/domain/dealEvents.js';
import type { EventSource } from '../../../src/shared/EventMetadata.js';
import type { Decider, DomainEvent } from '../../../src/shared/Decider.js';

interface StreamState<S> {
  state: S;
  revision: number;
}

/**
 * A log of stored events written by the real deciders (so their data is what
 * production stores), with predictable ids (`…-<position>`) and positions 1, 2, …
 */
export class StoredHistory {
  readonly events: RecordedEvent[] = [];
  private readonly contacts = new Map<string, StreamState<ContactState>>();
  private readonly deals = new Map<string, StreamState<DealState>>();

  /** Decides a contact command on its stream and records the events. */
  contact(command: ContactCommand, source: EventSource = 'api'): RecordedEvent[] {
    const stream = contactStream(command.contactId);
    return this.record(contactDecider, this.contacts, command.contactId, stream, command, command.companyId, source);
  }

  /** Decides a deal command on its stream and records the events. */
  deal(command: DealCommand, source: EventSource = 'api'): RecordedEvent[] {
    return this.record(dealDecider, this.deals, command.dealId, dealStream(command.dealId), command, command.companyId, source);
  }

  /** The one event a command recorded. */
  one(events: RecordedEvent[]): RecordedEvent {
    if (events.length !== 1) throw new Error(`expected one stored event, got ${events.length}`);
    return events[0]!;
  }

  /** A stored event of another kind (API keys, users, …), as the log holds it. */
  other(type: string, data: unknown, stream = `other-${this.events.length}`): RecordedEvent {
    return this.push(stream, 0, { type, data }, 'co-1', 'cli');
  }

  private record<C, Ev extends DomainEvent, S, Err>(
    decider: Decider<C, Ev, S, Err>,
    streams: Map<string, StreamState<S>>,
    id: string,
    stream: string,
    command: C,
    companyId: string,
    source: EventSource,
  ): RecordedEvent[] {
    const current = streams.get(id) ?? { state: decider.initialState, revision: -1 };
    const decided = decider.decide(command, current.state);
    if (E.isLeft(decided)) throw new Error(`refused: ${JSON.stringify(decided.left)}`);
    const recorded = decided.right.map((event) => this.push(stream, ++current.revision, event, companyId, source));
    current.state = decided.right.reduce(decider.evolve, current.state);
    streams.set(id, current);
    return recorded;
  }

  private push(stream: string, revision: number, event: DomainEvent, companyId: string, source: EventSource): RecordedEvent {
    const position = this.events.length + 1;
    const recorded: RecordedEvent = {
      id: `0190c0de-0000-7000-8000-${String(position).padStart(12, '0')}`,
      stream,
      revision,
      position: String(position),
      type: event.type,
      data: event.data,
      metadata: { source, correlationId: `req-${position}`, companyId, keyId: 'key-1' },
      recordedAt: '2024-05-01T12:00:00.000Z',
    };
    this.events.push(recorded);
    return recorded;
  }
}

import type { Clock } from '../../shared/Clock.js';
import type { EventStore } from '../ports/EventStore.js';

/** What every write needs: the log, new ids (of entities and events) and the time. */
export interface CommandDeps {
  readonly eventStore: EventStore;
  /** Ids of new entities and events; injected so that tests can make them predictable. */
  readonly newId: () => string;
  readonly clock: Clock;
}

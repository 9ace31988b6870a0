import type { CommandDeps } from '../application/commands/CommandDeps.js';
import type { EventStore } from '../application/ports/EventStore.js';
import type { WriteMetadata } from '../application/commands/WriteMetadata.js';
import { systemClock } from '../shared/Clock.js';
import { newId } from '../shared/ids.js';

/** What a CLI write runs with: the store it opened, fresh ids and the system clock. */
export const cliCommandDeps = (eventStore: EventStore): CommandDeps => ({ eventStore, newId, clock: systemClock });

/** A CLI write's events: caused by the CLI, each command with a correlation id of its own. */
export const cliMetadata = (): WriteMetadata => ({ source: 'cli', correlationId: newId() });

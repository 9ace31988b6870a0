import type { RecordedEvent } from '../../application/ports/EventStore.js';
import { UndecodableEventError } from '../../application/versioning/UndecodableEventError.js';
import type { CliContext, RegisterCommands } from '../CliContext.js';
import { withStores } from '../withStores.js';

/** Which events `events tail` prints: every condition given must hold. */
export interface TailFilter {
  /** Exact stream name. */
  readonly stream?: string;
  readonly companyId?: string;
}

/**
 * The company an event belongs to: its metadata's `companyId` (every command
 * records it), else the `companyId` of its data (older events), else none.
 */
export const companyOf = (event: RecordedEvent): string | null => {
  if (event.metadata.companyId !== undefined) return event.metadata.companyId;
  const data = event.data;
  if (typeof data === 'object' && data !== null && 'companyId' in data) {
    const companyId = (data as { companyId: unknown }).companyId;
    if (typeof companyId === 'string') return companyId;
  }
  return null;
};

export const matchesTail = (filter: TailFilter, event: RecordedEvent): boolean =>
  (filter.stream === undefined || event.stream === filter.stream) &&
  (filter.companyId === undefined || companyOf(event) === filter.companyId);

/**
 * Field names that would hold a secret. Stored events carry none (API keys are
 * kept as a hash and a hint, webhook secrets only in the secret store); this is
 * the second line of defence should one ever be added.
 */
const SECRET_FIELDS = new Set(['key', 'apikey', 'secret', 'password', 'authorization', 'token']);

/** A copy of a JSON value with the value of every secret-named field replaced. */
export const withoutSecrets = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value).map(([field, inner]) => [field, SECRET_FIELDS.has(field.toLowerCase()) ? '[redacted]' : withoutSecrets(inner)]),
  );
};

/** One readable line: position, stream, revision, type, time. */
export const formatTailLine = (event: RecordedEvent): string =>
  `${event.position}  ${event.stream}  rev ${event.revision}  ${event.type}  ${event.recordedAt}`;

/** One JSON line (NDJSON): the whole stored event. */
export const formatTailJson = (event: RecordedEvent): string =>
  JSON.stringify({
    position: event.position,
    stream: event.stream,
    revision: event.revision,
    type: event.type,
    id: event.id,
    recordedAt: event.recordedAt,
    data: withoutSecrets(event.data),
    metadata: withoutSecrets(event.metadata),
  });

/** Resolves with the first of SIGINT or SIGTERM. */
const untilInterrupted = (): Promise<NodeJS.Signals> =>
  new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });

const describeFilter = (filter: TailFilter): string => {
  const parts = [
    ...(filter.stream !== undefined ? [`stream ${filter.stream}`] : []),
    ...(filter.companyId !== undefined ? [`company ${filter.companyId}`] : []),
  ];
  return parts.length === 0 ? 'every event' : `events of ${parts.join(' and ')}`;
};

export const registerEvents: RegisterCommands = (program, context: CliContext) => {
  const events = program.command('events').description('read the event log');

  events
    .command('tail')
    .description('print events as they are appended, until Ctrl-C (SIGINT) or SIGTERM')
    .option('--stream <name>', 'only this stream (exact name, e.g. contact-<id>)')
    .option('--company <id>', "only this company's events")
    .option('--from-start', 'print the whole log first, then follow it')
    .option('--json', 'one JSON document per line: the whole stored event')
    .action(async (options: { stream?: string; company?: string; fromStart?: boolean; json?: boolean }) => {
      const filter: TailFilter = {
        ...(options.stream !== undefined ? { stream: options.stream } : {}),
        ...(options.company !== undefined ? { companyId: options.company } : {}),
      };
      const format = options.json === true ? formatTailJson : formatTailLine;
      // Listen before anything else, so that a signal during start-up also ends the tail.
      const interrupted = untilInterrupted();
      await withStores(context, async ({ eventStore }) => {
        const after = options.fromStart === true ? null : await eventStore.headPosition();
        // An event this release cannot read ends the tail (exit 1) instead of being retried forever.
        let unreadable!: (error: UndecodableEventError) => void;
        const stopped = new Promise<UndecodableEventError>((resolve) => (unreadable = resolve));
        const subscription = eventStore.subscribeToAll({
          after,
          handle: async (batch) => {
            for (const event of batch) if (matchesTail(filter, event)) context.out(format(event));
          },
          onError: (error) => {
            if (error instanceof UndecodableEventError) unreadable(error);
          },
        });
        context.err(`Following ${describeFilter(filter)} after position ${after ?? '(start of the log)'}; Ctrl-C stops`);
        const ended = await Promise.race([interrupted, stopped]);
        await subscription.stop();
        if (ended instanceof UndecodableEventError) throw ended;
      });
    });
};

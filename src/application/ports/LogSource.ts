import type { EventStore } from './EventStore.js';

/** Something that hands over the log in batches, shaped like `EventStore.subscribeToAll`. */
export type LogSource = Pick<EventStore, 'subscribeToAll'>;

/**
 * `source` with `subscribeToAll` replaced, everything else it offers (preparing it,
 * its group) as it is, bound to the source: how a decorator of the event store
 * wraps another source of the log (the EventStoreDB fan-out) as it wraps its own.
 */
export const withSubscribeToAll = <S extends LogSource>(source: S, subscribeToAll: LogSource['subscribeToAll']): S =>
  new Proxy(source, {
    get(target, key) {
      if (key === 'subscribeToAll') return subscribeToAll;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });

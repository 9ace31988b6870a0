import type { Db, Document } from 'mongodb';

/** One call the stand-in was asked, with the round trip it belongs to. */
export interface StandInCall {
  readonly collection: string;
  readonly op: string;
  readonly args: readonly unknown[];
  /** 1 + the latest round trip that had ended when this call began: calls made together share one. */
  readonly roundTrip: number;
}

/**
 * A stand-in of the MongoDB driver's `Db`, for counting the round trips an adapter
 * makes, never for what a server answers (the contract suites check that against a
 * real server, MONGODB_URL). Every call answers on the next turn of the event loop
 * with what `answer` gives (default: nothing found, every write applied; an Error
 * fails the call).
 */
export const mongoStandIn = (answer: (call: Omit<StandInCall, 'roundTrip'>) => unknown = () => undefined) => {
  const calls: StandInCall[] = [];
  let ended = 0;
  let pending = 0;
  const call = (collection: string, op: string, args: unknown[], fallback: unknown): Promise<unknown> => {
    const entry: StandInCall = { collection, op, args, roundTrip: ended + 1 };
    calls.push(entry);
    pending += 1;
    return new Promise((resolve, reject) =>
      setImmediate(() => {
        ended = Math.max(ended, entry.roundTrip);
        pending -= 1;
        const given = answer({ collection, op, args });
        if (given instanceof Error) reject(given);
        else resolve(given === undefined ? fallback : given);
      }),
    );
  };
  const cursor = (collection: string, op: string, args: unknown[]) => {
    const all = () => call(collection, op, args, []) as Promise<Document[]>;
    return {
      toArray: all,
      async *[Symbol.asyncIterator]() {
        yield* await all();
      },
    };
  };
  const written = (operations: Document[]) => {
    const count = (kind: string) => operations.filter((operation) => kind in operation).length;
    return {
      insertedCount: count('insertOne'),
      matchedCount: count('updateOne') + count('replaceOne'),
      deletedCount: count('deleteOne'),
      upsertedCount: 0,
      modifiedCount: count('updateOne') + count('replaceOne'),
    };
  };
  const collection = (name: string) => ({
    find: (...args: unknown[]) => cursor(name, 'find', args),
    aggregate: (...args: unknown[]) => cursor(name, 'aggregate', args),
    findOne: (...args: unknown[]) => call(name, 'findOne', args, null),
    countDocuments: (...args: unknown[]) => call(name, 'countDocuments', args, 0),
    bulkWrite: (operations: Document[], ...rest: unknown[]) => call(name, 'bulkWrite', [operations, ...rest], written(operations)),
    updateOne: (...args: unknown[]) => call(name, 'updateOne', args, { matchedCount: 1, modifiedCount: 1 }),
    replaceOne: (...args: unknown[]) => call(name, 'replaceOne', args, { matchedCount: 1 }),
    deleteMany: (...args: unknown[]) => call(name, 'deleteMany', args, { deletedCount: 0 }),
    findOneAndUpdate: (...args: unknown[]) => call(name, 'findOneAndUpdate', args, null),
    createIndexes: (...args: unknown[]) => call(name, 'createIndexes', args, []),
    createIndex: (...args: unknown[]) => call(name, 'createIndex', args, 'index'),
  });
  const db = { collection, databaseName: 'stand-in' } as unknown as Db;
  return {
    db,
    calls,
    /** Calls asked and not answered yet. */
    pending: (): number => pending,
    /** The round trips made since `from` (a count of calls earlier in `calls`). */
    roundTripsSince: (from: number): number => {
      const later = calls.slice(from);
      return later.length === 0 ? 0 : Math.max(...later.map((c) => c.roundTrip)) - Math.min(...later.map((c) => c.roundTrip)) + 1;
    },
  };
};

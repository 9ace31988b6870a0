import { createRequire } from 'node:module';
import type * as MongoDb from 'mongodb';

type MongoDbModule = typeof MongoDb;

/** The driver, loaded only when a MongoDB URL is checked (the embedded mode never loads it). */
const driver = (): MongoDbModule => createRequire(import.meta.url)('mongodb') as MongoDbModule;

/**
 * Why the MongoDB driver refuses `url`, or null when it takes it. The driver's
 * own parser reads it (`new MongoClient`): a seed list
 * (`mongodb://m1:27017,m2:27017/?replicaSet=rs0`), `mongodb+srv://`, credentials
 * and every option, exactly as the connection will. A client connects only when
 * asked to (an SRV name is looked up then), so none is made.
 */
export const mongoDbUrlProblem = (url: string): string | null => {
  try {
    void new (driver().MongoClient)(url).close();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

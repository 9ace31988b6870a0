import { loadConfig, type Config } from '../config.js';
import { openStores } from '../startup/adapters.js';
import { closeStores, type Stores } from '../startup/Stores.js';
import type { CliContext } from './CliContext.js';

/**
 * Opens the stores the server uses (same environment: DATA_DIR, EVENTSTORE_URL,
 * MONGODB_URL), runs `use`, and always closes every one of them. The embedded
 * SQLite file may be open in a running server at the same time (WAL, busy timeout).
 */
export const withStores = async <T>(context: CliContext, use: (stores: Stores, config: Config) => Promise<T>): Promise<T> => {
  const config = loadConfig(context.env);
  const stores = await openStores(config);
  try {
    return await use(stores, config);
  } finally {
    await closeStores(stores);
  }
};

import { createRequire } from 'node:module';
import type * as EventStoreDbClient from '@eventstore/db-client';

type EventStoreDbClientModule = typeof EventStoreDbClient;

/** The client, loaded only when an EventStoreDB URL is checked (the embedded mode never loads it). */
const client = (): EventStoreDbClientModule => createRequire(import.meta.url)('@eventstore/db-client') as EventStoreDbClientModule;

/**
 * Why the EventStoreDB client refuses `url`, or null when it takes it. The
 * client's own parser reads it (`EventStoreDBClient.connectionString`): a single
 * node, a cluster's gossip seeds (`esdb://n1:2113,n2:2113,n3:2113?tls=true`), DNS
 * discovery (`esdb+discover://`), credentials, settings and certificate files,
 * exactly as the connection will. The client connects lazily, so none is made.
 */
export const eventStoreDbUrlProblem = (url: string): string | null => {
  try {
    void client().EventStoreDBClient.connectionString(url).dispose();
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
};

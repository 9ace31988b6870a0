import { randomUUID } from 'node:crypto';
import pg from 'pg';

/** The server the PostgreSQL suites run against (scripts/postgres-test-cluster.sh prints it), or null: they are skipped. */
export const postgresTestUrl = (): string | null => process.env.POSTGRES_TEST_URL || null;

/** An empty database of its own on the test server, for one fixture. */
export interface FreshDatabase {
  readonly url: string;
  readonly name: string;
  /** Drops it, closing whatever is still connected to it. */
  drop(): Promise<void>;
}

const onServer = async <T>(serverUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
};

/** Creates a new empty database on the POSTGRES_TEST_URL server (or `serverUrl`) and answers its URL. */
export const freshPostgresDatabase = async (serverUrl: string | null = postgresTestUrl()): Promise<FreshDatabase> => {
  if (!serverUrl) throw new Error('freshPostgresDatabase: POSTGRES_TEST_URL is not set');
  const name = `chronicle_test_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
};

/** Counts the statements starting with `start` that `pool`'s connections send, from now on (what a change saves, in tests). */
export const countStatements = (pool: pg.Pool, start: string): { count: number } => {
  const counter = { count: 0 };
  const counted = new WeakSet<pg.PoolClient>();
  pool.on('acquire', (client) => {
    if (counted.has(client)) return;
    counted.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    client.query = ((config: unknown, ...rest: unknown[]) => {
      const text = typeof config === 'string' ? config : (config as { text?: string } | null)?.text;
      if (text?.startsWith(start)) counter.count += 1;
      return query(config, ...rest);
    }) as never;
  });
  return counter;
};

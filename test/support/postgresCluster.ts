import pg from 'pg';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from './freePort.js';

const SCRIPT = fileURLToPath(new URL('../../../scripts/postgres-test-cluster.sh', import.meta.url));
const run = promisify(execFile);

/** Whether a PostgreSQL server is installed where the cluster script looks (Debian's layout). */
export const postgresServerInstalled = (): boolean => {
  const root = '/usr/lib/postgresql';
  return existsSync(root) && readdirSync(root).some((version) => existsSync(join(root, version, 'bin', 'initdb')));
};

/** A private PostgreSQL cluster of one test (scripts/postgres-test-cluster.sh), which it may restart. */
export interface TestCluster {
  readonly port: number;
  /** Its data directory (the cluster's own folder's `data`). */
  readonly dataDir: string;
  /** A URL of one of its databases (`postgres` by default), reached at `host`. */
  url(host?: string, database?: string): string;
  /** `pg_ctl restart -m fast`: every session is cut, as a failover would cut them. */
  restart(): Promise<void>;
  /** Stops it and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

export interface TestClusterOptions {
  /** Addresses to listen on besides 127.0.0.1. */
  readonly listen?: readonly string[];
  /** A network (CIDR) whose connections it trusts besides loopback. */
  readonly trust?: string;
}

export const startPostgresCluster = async (options: TestClusterOptions = {}): Promise<TestCluster> => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-pg-cluster-'));
  const port = await freePort();
  const env = {
    ...process.env,
    ...(options.listen?.length ? { POSTGRES_TEST_LISTEN: options.listen.join(',') } : {}),
    ...(options.trust ? { POSTGRES_TEST_TRUST: options.trust } : {}),
  };
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await run(SCRIPT, ['stop', dir]);
  };
  try {
    await run(SCRIPT, ['start', dir, String(port)], { env });
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    port,
    dataDir: join(dir, 'data'),
    url: (host = '127.0.0.1', database = 'postgres') => `postgres://postgres@${host}:${port}/${database}`,
    restart: async () => void (await run(SCRIPT, ['restart', dir])),
    stop,
  };
};

/** A streaming replica of a test cluster (scripts/postgres-test-cluster.sh replica), which a test may pause and stop. */
export interface TestReplica {
  readonly port: number;
  /** A URL of one of its databases (the primary's, replicated). */
  url(database?: string): string;
  /** Stops replaying the primary's WAL (`pg_wal_replay_pause`): it keeps answering, with what it had. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops it and removes its folder; safe to call twice. */
  stop(): Promise<void>;
}

export const startPostgresReplica = async (primary: TestCluster): Promise<TestReplica> => {
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-pg-replica-'));
  const port = await freePort();
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    await run(SCRIPT, ['stop', dir]);
  };
  try {
    await run(SCRIPT, ['replica', String(primary.port), dir, String(port)]);
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const sql = async (statement: string): Promise<void> => {
    const client = new pg.Client({ connectionString: url() });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  };
  return { port, url, pauseReplay: () => sql('SELECT pg_wal_replay_pause()'), resumeReplay: () => sql('SELECT pg_wal_replay_resume()'), stop };
};

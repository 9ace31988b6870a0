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

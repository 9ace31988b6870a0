// A private PostgreSQL cluster for the benchmarks that set Chronicle beside a plain
// PostgreSQL server (bench:crud, bench:pair): scripts/postgres-test-cluster.sh, server
// defaults, a database for the plain server and one for Chronicle on PostgreSQL.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from '../../test/support/freePort.js';
import { processTree } from './processCpu.js';

const CLUSTER_SCRIPT = fileURLToPath(new URL('../../../scripts/postgres-test-cluster.sh', import.meta.url));

export interface BenchCluster {
  /** The plain server's database (`crud`). */
  readonly url: string;
  /** Chronicle's database (`chronicle`). */
  readonly chronicleUrl: string;
  /** A database more, made now (another Chronicle on PostgreSQL beside the first: bench:pair). */
  readonly createDatabase: (name: string) => Promise<string>;
  /** The cluster's processes now (the postmaster and its children). */
  readonly pids: () => number[];
  readonly stop: () => void;
}

export const startCluster = async (): Promise<BenchCluster> => {
  const port = await freePort();
  // The script makes the cluster's folder itself (one the server's user may enter).
  const said = execFileSync(CLUSTER_SCRIPT, ['start', '', String(port)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const dir = /POSTGRES_TEST_DIR=(.+)/.exec(said)?.[1];
  if (!dir) throw new Error(`no cluster folder in: ${said}`);
  const stopCluster = () => execFileSync(CLUSTER_SCRIPT, ['stop', dir], { stdio: 'ignore' });
  try {
    const server = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ connectionString: server });
    await client.connect();
    await client.query('CREATE DATABASE crud');
    // Chronicle on PostgreSQL keeps its log and stores in a database of its own.
    await client.query('CREATE DATABASE chronicle');
    await client.end();
    const postmaster = Number(readFileSync(join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const createDatabase = async (name: string): Promise<string> => {
      const admin = new pg.Client({ connectionString: server });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`);
      } finally {
        await admin.end();
      }
      return server.replace(/\/postgres$/, `/${name}`);
    };
    return {
      url: server.replace(/\/postgres$/, '/crud'),
      chronicleUrl: server.replace(/\/postgres$/, '/chronicle'),
      createDatabase,
      pids: () => processTree(postmaster),
      stop: stopCluster,
    };
  } catch (error) {
    stopCluster();
    throw error;
  }
};

import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';

const SCRIPT = fileURLToPath(new URL('../../../scripts/ha-cluster.sh', import.meta.url));
const run = promisify(execFile);

/** One Patroni-managed PostgreSQL node of the cluster, as `NODES=` names it. */
export interface HaNode {
  readonly name: string;
  /** Patroni's REST API, reachable from this machine. */
  readonly restUrl: string;
  readonly dataDir: string;
  readonly patroniPid: number;
}

/** A member of the cluster as Patroni's `GET /cluster` describes it. */
export interface ClusterMember {
  readonly name: string;
  readonly role: 'leader' | 'sync_standby' | 'replica' | string;
  readonly state: string;
  readonly host: string;
  readonly port: number;
  readonly timeline?: number;
}

/** The cluster scripts/ha-cluster.sh started: its URLs, its nodes, and what stop must remove. */
export interface HaCluster {
  readonly dir: string;
  readonly writeUrl: string;
  readonly readUrl: string;
  readonly nodes: readonly HaNode[];
  readonly patronictlConfig: string;
  /** Namespaces and links the script made (its state file), for checking that stop removed them. */
  readonly namespaces: readonly string[];
  readonly links: readonly string[];
  /** What `start` printed. */
  readonly output: string;
  /** The members as the first node that answers sees them. */
  members(): Promise<ClusterMember[]>;
  /** `patronictl switchover --leader … --candidate … --force`; resolves with its output. */
  switchover(leader: string, candidate: string): Promise<string>;
  /** Cuts a node off the network (its link down), as a partition would; `restore` joins it again. */
  cut(node: string): Promise<void>;
  restore(node: string): Promise<void>;
  /** Copies the daemons' logs (Patroni with its PostgreSQL, etcd, HAProxy) into `dest`, a folder per node. */
  saveLogs(dest: string): void;
  /** Stops it (scripts/ha-cluster.sh stop); safe to call twice. */
  stop(): Promise<void>;
}

/** Why the HA suite cannot run here, or null when it can (root, ip netns, Patroni, etcd and HAProxy installed). */
export const haClusterUnavailable = (): string | null => {
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (the nodes are network namespaces)';
  for (const command of ['patroni', 'patronictl', 'etcd', 'haproxy', 'ip', 'psql']) {
    try {
      execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore', env: { ...process.env, PATH: `${process.env.PATH ?? ''}:/usr/sbin:/sbin` } });
    } catch {
      return `${command} is not installed`;
    }
  }
  if (!existsSync('/usr/lib/postgresql')) return 'no PostgreSQL server under /usr/lib/postgresql';
  return null;
};

const line = (output: string, name: string): string => {
  const found = new RegExp(`^${name}=(.*)$`, 'm').exec(output)?.[1];
  if (found === undefined) throw new Error(`ha-cluster.sh printed no ${name}= line:\n${output}`);
  return found;
};

/** Parses `NODES=name|rest-url|data-dir|pid,…`. */
export const parseNodes = (value: string): HaNode[] =>
  value.split(',').map((entry) => {
    const [name, restUrl, dataDir, pid] = entry.split('|');
    if (!name || !restUrl || !dataDir || !pid || !/^\d+$/.test(pid)) throw new Error(`a malformed NODES entry: ${entry}`);
    return { name, restUrl, dataDir, patroniPid: Number(pid) };
  });

/** Starts the cluster in a new temporary folder; a failed start leaves nothing behind (the script cleans up). */
export const startHaCluster = async (): Promise<HaCluster> => {
  // An empty folder of its own (the script accepts an empty one, and removes it on stop).
  const dir = mkdtempSync(join(tmpdir(), 'chronicle-ha-'));
  const { stdout } = await run('bash', [SCRIPT, 'start', dir], { timeout: 300_000, maxBuffer: 1 << 20 });
  const state = readFileSync(join(dir, 'state'), 'utf8').split('\n');
  const named = (kind: string) => state.filter((entry) => entry.startsWith(`${kind} `)).map((entry) => entry.slice(kind.length + 1));
  const nodes = parseNodes(line(stdout, 'NODES'));
  const patronictlConfig = line(stdout, 'PATRONICTL_CONFIG');
  let stopped = false;
  return {
    dir,
    writeUrl: line(stdout, 'POSTGRES_URL'),
    readUrl: line(stdout, 'POSTGRES_READ_URL'),
    nodes,
    patronictlConfig,
    namespaces: named('ns'),
    links: [...named('link'), ...named('bridge')],
    output: stdout,
    members: async () => {
      let last: unknown;
      for (const node of nodes) {
        try {
          const res = await fetch(`${node.restUrl}/cluster`, { signal: AbortSignal.timeout(2_000) });
          if (res.ok) return ((await res.json()) as { members: ClusterMember[] }).members;
        } catch (error) {
          last = error;
        }
      }
      throw new Error(`no Patroni node answered GET /cluster: ${String(last)}`);
    },
    switchover: async (leader, candidate) => {
      const { stdout: said } = await run('patronictl', ['-c', patronictlConfig, 'switchover', '--leader', leader, '--candidate', candidate, '--force'], {
        timeout: 120_000,
      });
      return said;
    },
    saveLogs: (dest) => {
      mkdirSync(dest, { recursive: true });
      for (const log of ['haproxy.log', ...nodes.flatMap((node) => [`${node.name}/patroni.log`, `${node.name}/etcd.log`])]) {
        if (!existsSync(join(dir, log))) continue;
        mkdirSync(dirname(join(dest, log)), { recursive: true });
        copyFileSync(join(dir, log), join(dest, log));
      }
    },
    cut: async (node) => void (await run('bash', [SCRIPT, 'cut', dir, node])),
    restore: async (node) => void (await run('bash', [SCRIPT, 'restore', dir, node])),
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await run('bash', [SCRIPT, 'stop', dir], { timeout: 120_000 });
    },
  };
};

/** One query on a connection of its own, which is closed after (a bounded connect and statement). */
export const queryOnce = async <T extends pg.QueryResultRow>(url: string, sql: string, values: unknown[] = []): Promise<T[]> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000, statement_timeout: 5_000, query_timeout: 6_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
};

/** Whether a process runs (and is no zombie). */
export const processRuns = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/** The real uid a process runs as. */
export const processUid = (pid: number): number => Number(/^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? -1);

/** The postmaster's pid of a data directory (the first line of postmaster.pid), or null. */
export const postmasterPid = (dataDir: string): number | null => {
  try {
    const pid = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
};

/** Every running process whose command line mentions `text`. */
export const processesMentioning = (text: string): { pid: number; command: string }[] => {
  const found: { pid: number; command: string }[] = [];
  for (const entry of execFileSync('ls', ['/proc'], { encoding: 'utf8' }).split('\n')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ');
      if (command.includes(text) && processRuns(Number(entry))) found.push({ pid: Number(entry), command });
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
};

/** iproute2's names: namespaces, and links. */
export const namespaceNames = (): string[] =>
  execFileSync(existsSync('/usr/sbin/ip') ? '/usr/sbin/ip' : 'ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((entry) => entry.split(' ')[0]!)
    .filter(Boolean);

export const linkNames = (): string[] =>
  execFileSync(existsSync('/usr/sbin/ip') ? '/usr/sbin/ip' : 'ip', ['-o', 'link', 'show'], { encoding: 'utf8' })
    .split('\n')
    .map((entry) => /^\d+: ([^:@]+)/.exec(entry)?.[1] ?? '')
    .filter(Boolean);

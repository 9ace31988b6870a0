import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { isRunning } from '../../src/startup/localProcess.js';
import { startCutProxy, type CutProxy } from './cutProxy.js';

/** iproute2's `ip` (in /usr/sbin, which a non-root PATH may lack). */
const IP = existsSync('/usr/sbin/ip') ? '/usr/sbin/ip' : 'ip';

/** A test host: where a process runs, the address its servers listen on, and how it reaches the database. */
export interface TestHost {
  readonly name: string;
  /** The address its servers listen on (their HOST), reachable from this machine. */
  readonly address: string;
  /** Runs a command on it (`ip netns exec <namespace>`; nothing on loopback). */
  readonly prefix: readonly string[];
  /** Where it reaches a server of this machine listening on `network.gateway` (the PostgreSQL server). */
  readonly postgresAt: { readonly host: string; readonly port: number };
}

/**
 * Test hosts for a topology spread over machines. With network namespaces (root,
 * `ip netns`), each host is a namespace joined by a veth pair to a bridge on this
 * machine, whose address (`gateway`) is where PostgreSQL and a webhook receiver
 * listen; cutting a host takes its link down. Without them, every host is this
 * machine's loopback, and a host that may be cut reaches PostgreSQL through a proxy
 * of its own, which a cut stops.
 */
export interface TestNetwork {
  readonly mode: 'namespaces' | 'loopback';
  /** Why namespaces are not used (loopback mode). */
  readonly reason: string | null;
  /** This machine's address as the hosts see it. */
  readonly gateway: string;
  /** The hosts' network (CIDR), or null on loopback. */
  readonly network: string | null;
  /** A new host; `postgresPort` is where PostgreSQL listens on `gateway`. */
  addHost(name: string, postgresPort: number): Promise<TestHost>;
  /** Cuts the host off (its link down), until `restore`. */
  cut(host: TestHost): Promise<void>;
  restore(host: TestHost): Promise<void>;
  /** Restores every host that is cut (before its processes are stopped: they can then close their connections). */
  restoreAll(): Promise<void>;
  /** Deletes every namespace, link and proxy it made; safe to call twice and after a failure. */
  dispose(): Promise<void>;
}

const ip = (...args: string[]): string => execFileSync(IP, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const PREFIX = 'chrtop';

/** Namespaces and bridges left by a run whose process is gone (it was killed before its cleanup). */
const removeLeftovers = (): void => {
  for (const line of ip('netns', 'list').split('\n')) {
    const match = new RegExp(`^(${PREFIX}(\\d+)-\\S+)`).exec(line);
    if (match && !isRunning(Number(match[2]))) ip('netns', 'delete', match[1]!);
  }
  for (const line of ip('-o', 'link', 'show').split('\n')) {
    const match = new RegExp(`^\\d+: (${PREFIX}(\\d+)(?:b|h\\d+))[:@]`).exec(line);
    if (match && !isRunning(Number(match[2]))) ip('link', 'delete', match[1]!);
  }
};

/** A /24 of 10.0.0.0/8 that no address or route of this machine is in. */
const freeSubnet = (): string => {
  const used = ip('-4', 'route', 'show', 'table', 'all') + ip('-4', '-o', 'addr', 'show');
  for (let i = 0; i < 200; i++) {
    const third = (process.pid + i * 7) % 250;
    const second = 200 + ((process.pid + i) % 50);
    const candidate = `10.${second}.${third}`;
    if (!used.includes(`${candidate}.`)) return candidate;
  }
  throw new Error('no free 10.x.y.0/24 for the test network');
};

const namespacesUnavailable = (): string | null => {
  if (process.env.TEST_HOSTS === 'loopback') return 'TEST_HOSTS=loopback';
  if (process.platform !== 'linux') return `not Linux (${process.platform})`;
  if (process.getuid?.() !== 0) return 'not root (ip netns needs CAP_NET_ADMIN)';
  try {
    ip('netns', 'list');
    return null;
  } catch (error) {
    return `ip netns does not work here (${(error as Error).message.split('\n')[0]})`;
  }
};

const namespaceNetwork = (): TestNetwork => {
  removeLeftovers();
  const tag = `${PREFIX}${process.pid}`;
  const subnet = freeSubnet();
  const bridge = `${tag}b`;
  const gateway = `${subnet}.1`;
  const namespaces: string[] = [];
  const hostLinks = new Map<string, string>();
  const cut = new Set<string>();
  ip('link', 'add', bridge, 'type', 'bridge');
  let disposed = false;
  const dispose = async (): Promise<void> => {
    if (disposed) return;
    disposed = true;
    // Each veth pair is deleted from this side: a namespace outlives its name while sockets
    // in it wait to close (a host killed while cut off), and its pair with it.
    const steps = [...[...hostLinks.values()].map((link) => ['link', 'delete', link]), ...namespaces.map((name) => ['netns', 'delete', name]), ['link', 'delete', bridge]];
    for (const step of steps) {
      try {
        ip(...step);
      } catch {
        // Already gone.
      }
    }
  };
  try {
    ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    ip('link', 'set', bridge, 'up');
  } catch (error) {
    void dispose();
    throw error;
  }
  return {
    mode: 'namespaces',
    reason: null,
    gateway,
    network: `${subnet}.0/24`,
    addHost: async (name, postgresPort) => {
      const n = namespaces.length + 2;
      const namespace = `${tag}-${name}`;
      const [outside, inside] = [`${tag}h${n}`, `${tag}n${n}`];
      ip('netns', 'add', namespace);
      namespaces.push(namespace);
      ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', inside);
      ip('link', 'set', inside, 'netns', namespace);
      ip('link', 'set', outside, 'master', bridge);
      ip('link', 'set', outside, 'up');
      const address = `${subnet}.${n}`;
      ip('-n', namespace, 'addr', 'add', `${address}/24`, 'dev', inside);
      ip('-n', namespace, 'link', 'set', inside, 'up');
      ip('-n', namespace, 'link', 'set', 'lo', 'up');
      hostLinks.set(name, outside);
      return { name, address, prefix: [IP, 'netns', 'exec', namespace], postgresAt: { host: gateway, port: postgresPort } };
    },
    cut: async (host) => {
      ip('link', 'set', hostLinks.get(host.name)!, 'down');
      cut.add(host.name);
    },
    restore: async (host) => {
      ip('link', 'set', hostLinks.get(host.name)!, 'up');
      cut.delete(host.name);
    },
    restoreAll: async () => {
      for (const name of cut) ip('link', 'set', hostLinks.get(name)!, 'up');
      cut.clear();
    },
    dispose,
  };
};

const loopbackNetwork = (reason: string): TestNetwork => {
  const proxies = new Map<string, CutProxy>();
  return {
    mode: 'loopback',
    reason,
    gateway: '127.0.0.1',
    network: null,
    addHost: async (name, postgresPort) => {
      const proxy = await startCutProxy({ host: '127.0.0.1', port: postgresPort });
      proxies.set(name, proxy);
      return { name, address: '127.0.0.1', prefix: [], postgresAt: { host: '127.0.0.1', port: proxy.port } };
    },
    cut: async (host) => proxies.get(host.name)!.cut(),
    restore: async (host) => proxies.get(host.name)!.restore(),
    restoreAll: async () => proxies.forEach((proxy) => proxy.restore()),
    dispose: async () => {
      await Promise.all([...proxies.values()].map((proxy) => proxy.close()));
      proxies.clear();
    },
  };
};

/** Network namespaces where this machine allows them, else loopback (the reason said in `reason`). */
export const openTestNetwork = (): TestNetwork => {
  const unavailable = namespacesUnavailable();
  return unavailable === null ? namespaceNetwork() : loopbackNetwork(unavailable);
};

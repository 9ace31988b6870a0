import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HolderState, LeaseClaimant } from '../application/subscriptions/Lease.js';
import type { LeaseHolder } from '../application/ports/LeaseStore.js';

const readOrNull = (read: () => string): string | null => {
  try {
    return read().trim();
  } catch {
    return null;
  }
};

/**
 * Where this process's pid names a process: the host's boot and the pid
 * namespace (Linux). Two containers of one host share the boot but not the
 * namespace, so neither ever judges the other's pids. Null where the platform does
 * not tell (then the host name alone decides).
 */
const pidScope = (): string | null => {
  const boot = readOrNull(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8'));
  const namespace = readOrNull(() => readlinkSync('/proc/self/ns/pid'));
  return boot === null || namespace === null ? null : `${boot}/${namespace}`;
};

let here: { readonly host: string; readonly scope: string | null } | null = null;
const thisHost = () => (here ??= { host: hostname(), scope: pidScope() });

/** This process, as a lease names its holder. */
export const thisProcess = (role: string): LeaseClaimant => ({ role, pid: process.pid, ...thisHost() });

/**
 * Whether `pid` runs on this host: signal 0 reaches it (EPERM: it runs, as another
 * user), and it is not a zombie (exited, not yet reaped by its parent, which
 * signal 0 still reaches).
 */
export const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readOrNull(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  if (stat === null) return true;
  // "<pid> (<command>) <state> …": the command may hold spaces and parentheses, the state follows the last ')'.
  const state = stat.slice(stat.lastIndexOf(')') + 1).trim()[0];
  return state !== 'Z' && state !== 'X';
};

/**
 * What this process can tell of a lease holder's process: `gone` only when it ran
 * on this host, in this pid namespace, and its pid no longer runs; `running` when
 * it does run here (this process included); `unknown` for a holder elsewhere (its
 * lease runs out when it stops renewing it), which after a container's restart, in
 * a new pid namespace, is also its own previous run.
 */
export const judgeHolder = (holder: LeaseHolder): HolderState => {
  const { host, scope } = thisHost();
  if (holder.host !== host || holder.scope !== scope) return 'unknown';
  return holder.pid === process.pid || isRunning(holder.pid) ? 'running' : 'gone';
};

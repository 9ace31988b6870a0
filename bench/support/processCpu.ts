// The CPU a server's process tree used, read from Linux's /proc: what the HTTP benchmarks
// count beside each load (bench:crud, bench:pair).
import { existsSync, readFileSync } from 'node:fs';

/** The process and its descendants. */
export const processTree = (pid: number): number[] => {
  const file = `/proc/${pid}/task/${pid}/children`;
  const children = existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  return [pid, ...children.flatMap(processTree)];
};

/** CPU seconds (user + system) of processes, in clock ticks of 1/100 s; a process gone since counts 0. */
export const cpuTicks = (pids: readonly number[]): number =>
  pids.reduce((sum, pid) => {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return sum + Number(fields[11]) + Number(fields[12]);
    } catch {
      return sum;
    }
  }, 0);

/** The machine's busy and total ticks (all cores) from /proc/stat. */
export const machineTicks = (): { busy: number; total: number } => {
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  const ticks = fields.map(Number);
  const idle = ticks[3]! + ticks[4]!;
  const total = ticks.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
};

/**
 * Counts the CPU of a process tree over a span: `pids` is asked at the start and again at
 * the end (a PostgreSQL backend may start during a load), each process counted from where it
 * stood at the start (a new one from 0). Answers the ticks used.
 */
export const cpuCounter = (pids: () => number[]): { readonly used: () => number } => {
  const before = new Map(pids().map((pid) => [pid, cpuTicks([pid])]));
  return { used: () => pids().reduce((sum, pid) => sum + cpuTicks([pid]) - (before.get(pid) ?? 0), 0) };
};

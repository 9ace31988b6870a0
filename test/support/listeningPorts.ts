import { existsSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';

/**
 * The TCP ports a process listens on (Linux: its socket descriptors in
 * /proc/<pid>/fd matched against the listening sockets of /proc/<pid>/net/tcp
 * and tcp6); null where /proc does not tell.
 */
export const listeningPorts = (pid: number): number[] | null => {
  const fds = `/proc/${pid}/fd`;
  if (!existsSync(fds)) return null;
  const sockets = new Set<string>();
  for (const fd of readdirSync(fds)) {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`${fds}/${fd}`))?.[1];
      if (inode) sockets.add(inode);
    } catch {
      // Closed meanwhile.
    }
  }
  const ports: number[] = [];
  for (const table of ['tcp', 'tcp6']) {
    let text: string;
    try {
      text = readFileSync(`/proc/${pid}/net/${table}`, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode …; st 0A is LISTEN.
    for (const line of text.split('\n').slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10 || columns[3] !== '0A' || !sockets.has(columns[9]!)) continue;
      ports.push(parseInt(columns[1]!.split(':')[1]!, 16));
    }
  }
  return [...new Set(ports)].sort((a, b) => a - b);
};

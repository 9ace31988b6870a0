/**
 * One end of a Node IPC channel: a child process or cluster worker's process in
 * the supervisor, or `process` inside the child (`API_WORKERS`).
 */
export interface IpcEndpoint {
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

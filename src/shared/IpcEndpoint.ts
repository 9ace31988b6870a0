/**
 * One end of a Node IPC channel: a child process or cluster worker's process in
 * the supervisor, or `process` inside the child (`API_WORKERS`).
 */
export interface IpcEndpoint {
  /** False once the channel is closed (Node's `connected`); absent: unknown. */
  readonly connected?: boolean;
  send(message: unknown): boolean;
  on(event: 'message', listener: (message: unknown) => void): unknown;
  off(event: 'message', listener: (message: unknown) => void): unknown;
}

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

/**
 * Sends without ever throwing, for messages that may be lost (their sender copes
 * with no answer): true when the channel took it (also into a backlog Node sends
 * later), false when the channel is closed. A closed channel is checked first:
 * Node's `send` on one emits an `error` event later, which no try/catch here
 * would catch.
 */
export const sendQuietly = (endpoint: IpcEndpoint, message: unknown): boolean => {
  if (endpoint.connected === false) return false;
  try {
    endpoint.send(message);
    return true;
  } catch {
    // Closed meanwhile (the other side is gone or stopping).
    return false;
  }
};

/**
 * Set by the supervisor in the environment of the processes it starts: `api` (an
 * API worker) or `background` (the projections and the webhooks). A supervised
 * process reports over IPC that it has started instead of printing it, leaves SIGINT to
 * the supervisor, and stops when the supervisor goes away.
 */
export const SUPERVISED_ENV = 'CHRONICLE_SUPERVISED';

export type SupervisedRole = 'api' | 'background';

/**
 * What a supervised process sends once its start completed (its read side caught up, listening if it
 * listens at all): the port, or null for a background process that listens on none.
 */
export interface ReadyMessage {
  readonly type: 'chronicle:ready';
  readonly port: number | null;
}

export const isReadyMessage = (message: unknown): message is ReadyMessage =>
  typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'chronicle:ready';

/** The role of this process when a supervisor started it, else null. */
export const supervisedRole = (env: NodeJS.ProcessEnv): SupervisedRole | null => {
  const role = env[SUPERVISED_ENV];
  return role === 'api' || role === 'background' ? role : null;
};

import type pg from 'pg';
import { backoffMs } from '../../application/subscriptions/Alarm.js';

/**
 * Told of a commit of appends: the log's head after it (the notification's payload),
 * or null when listening starts or stops (commits may have been missed: look anyway).
 */
export type LogNotificationListener = (head: string | null) => void;

/**
 * One connection per process that LISTENs on the log's channel and tells its
 * listeners of every commit of appends, from any process. The connection is made
 * when the first listener comes; a connection that fails is made again, with
 * backoff, and listeners are told each time listening starts, since commits may
 * have been missed meanwhile. While it is down, subscriptions find new events by
 * their poll.
 */
export class LogNotifications {
  private client: pg.Client | null = null;
  private readonly listeners = new Set<LogNotificationListener>();
  private failures = 0;
  private retry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly connect: () => pg.Client,
    private readonly channel: string,
    /** Told when the listening connection fails (`attempt` counts since it last listened). */
    private readonly onFailure?: (error: unknown, attempt: number) => void,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`Not a channel name: ${channel}`);
  }

  /** Calls `listener` after every commit of appends (and whenever listening starts); returns what stops it. */
  add(listener: LogNotificationListener): () => void {
    this.listeners.add(listener);
    if (this.client === null && this.retry === null) void this.listen();
    return () => this.listeners.delete(listener);
  }

  private tell(head: string | null = null): void {
    this.listeners.forEach((listener) => listener(head));
  }

  private async listen(): Promise<void> {
    this.retry = null;
    if (this.closed || this.client !== null) return;
    const client = this.connect();
    this.client = client;
    // Attached for the client's whole life: an 'error' event without a listener would end the process.
    client.on('notification', (message) => this.tell(message.payload ?? null));
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the listening connection ended')));
    try {
      await client.connect();
      await client.query(`LISTEN ${this.channel}`);
      this.failures = 0;
      this.tell();
    } catch (error) {
      this.lost(client, error);
    }
  }

  private lost(client: pg.Client, error: unknown): void {
    if (this.client !== client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (this.closed) return;
    this.failures += 1;
    this.onFailure?.(error, this.failures);
    // Subscriptions look at once (and poll until listening again).
    this.tell();
    this.retry = setTimeout(() => void this.listen(), backoffMs(this.failures, 100, 5_000));
    this.retry.unref();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    const client = this.client;
    this.client = null;
    this.listeners.clear();
    await client?.end().catch(() => undefined);
  }
}

import type { Clock } from '../../shared/Clock.js';

/** The credentials whose failures are counted: the API's keys, the admin API's tokens, the console's links and session cookies. */
export type CredentialKind = 'api_key' | 'admin_token' | 'console_link' | 'console_session';

export const CREDENTIAL_KINDS: readonly CredentialKind[] = ['api_key', 'admin_token', 'console_link', 'console_session'];

export interface FailedCredentialsSettings {
  /** Failed credentials one client address may present in a window before it is answered 429 (0: never). */
  readonly limit: number;
  readonly windowMs: number;
}

/** A failure counted: whether it went over the limit, and how long the address must then wait (seconds, at least 1). */
export type FailureCount = { readonly throttled: false } | { readonly throttled: true; readonly retryAfterSeconds: number };

/** Addresses kept at most; past it, those whose window ended go first, then the oldest. */
const KEPT = 50_000;

/**
 * Failed credentials counted per client address, in this process's memory (each
 * API process counts its own: a client spread over N processes gets N times the
 * limit), in fixed windows. Only failures are counted, and only a failure reads
 * the count: a request with a valid credential never touches it, so it is never
 * slowed, and never refused because others failed from its address.
 *
 * Every credential Chronicle issues holds 256 random bits, so counting does not
 * make guessing harder (it is already hopeless): it tells a scanner to stop
 * (429 with `Retry-After`), makes it visible (a metric), and keeps what a
 * scanner costs bounded in memory.
 */
export class FailedCredentials {
  private readonly windows = new Map<string, { start: number; failures: number }>();

  constructor(
    private readonly settings: FailedCredentialsSettings,
    private readonly clock: Clock,
    /** Told of every failure counted (the metric). */
    private readonly counted: (kind: CredentialKind, throttled: boolean) => void = () => {},
  ) {}

  get limit(): number {
    return this.settings.limit;
  }

  get windowSeconds(): number {
    return Math.ceil(this.settings.windowMs / 1000);
  }

  /** Counts one failed credential of `kind` from `address`. */
  fail(address: string, kind: CredentialKind): FailureCount {
    const now = this.clock.now().getTime();
    let window = this.windows.get(address);
    if (!window || now - window.start >= this.settings.windowMs) {
      this.windows.delete(address);
      if (this.windows.size >= KEPT) this.forget(now);
      window = { start: now, failures: 0 };
      this.windows.set(address, window);
    }
    window.failures += 1;
    const throttled = this.settings.limit > 0 && window.failures > this.settings.limit;
    this.counted(kind, throttled);
    if (!throttled) return { throttled: false };
    return { throttled: true, retryAfterSeconds: Math.max(1, Math.ceil((window.start + this.settings.windowMs - now) / 1000)) };
  }

  /** Makes room: the addresses whose window ended, else the oldest tenth. */
  private forget(now: number): void {
    for (const [address, window] of this.windows) if (now - window.start >= this.settings.windowMs) this.windows.delete(address);
    if (this.windows.size < KEPT) return;
    let drop = Math.ceil(KEPT / 10);
    for (const address of this.windows.keys()) {
      if (drop-- <= 0) break;
      this.windows.delete(address);
    }
  }
}

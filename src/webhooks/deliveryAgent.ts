import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { urlToHttpOptions } from 'node:url';

/**
 * The HTTP client of the webhook dispatcher: one POST per attempt, no redirects
 * followed (node:http never follows them), the whole exchange (DNS, connect, TLS,
 * request body, response headers and body) under the caller's AbortSignal, and
 * SSRF protection after DNS resolution.
 *
 * SSRF: a target URL is checked when it is subscribed, but a name can resolve to
 * another address later (DNS rebinding). So the agents carry a custom `lookup`
 * that resolves the host itself and refuses the connection when ANY address it
 * gets back is refused by `isRefusedAddress` (loopback, private, link-local,
 * metadata…); an IP literal in the URL, which Node connects to without a lookup,
 * is checked before the request. The connection then goes to the very address
 * that was checked. `allowPrivateTargets` (development, tests) turns this off.
 */

export interface DeliveryRequest {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface DeliveryResponse {
  readonly status: number;
  /** The `Retry-After` header, if any. */
  readonly retryAfter: string | null;
  /** The response's headers (names lower-cased, repeated ones joined with `, `), as received; absent from clients that do not report them. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The first `maxResponseBytes` of the body, as UTF-8 text. */
  readonly body?: string;
  /** The body was longer than what `body` holds. */
  readonly bodyTruncated?: boolean;
}

/** The `User-Agent` of every delivery (unless the agent is made with another). */
export const DELIVERY_USER_AGENT = 'Chronicle-Webhooks/1';

/** The headers every delivery carries besides its signature headers, for a body of `bodyBytes` bytes. */
export const deliveryHeaders = (bodyBytes: number, userAgent = DELIVERY_USER_AGENT): Record<string, string> => ({
  'content-type': 'application/json',
  'content-length': String(bodyBytes),
  'user-agent': userAgent,
});

/** The headers of a response as received: names lower-cased, several values of one name joined with `, `. */
const headersOf = (res: IncomingMessage): Record<string, string> => {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
};

/** One attempt: resolves with the response once its body has been read, rejects on any failure or abort. */
export type SendDelivery = (request: DeliveryRequest, signal: AbortSignal) => Promise<DeliveryResponse>;

/** Resolves a host name to its addresses (the agent's DNS, replaceable in tests). */
export type ResolveHost = (hostname: string) => Promise<readonly LookupAddress[]>;

/** The target resolved to an address that deliveries may not reach. */
export class RefusedAddressError extends Error {
  override readonly name = 'RefusedAddressError';
  readonly code = 'EREFUSEDADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`Refused to connect to ${hostname} (${address}): not a public address`);
  }
}

/** The target URL is not http(s). */
export class UnsupportedTargetError extends Error {
  override readonly name = 'UnsupportedTargetError';
  constructor(url: string) {
    super(`Unsupported webhook target ${JSON.stringify(url)}: only http and https URLs are delivered to`);
  }
}

export interface DeliveryAgentOptions {
  /** Deliver to refused addresses anyway (development and tests only). */
  readonly allowPrivateTargets: boolean;
  /** The address policy (`targetUrlGuard.isRefusedAddress`). */
  readonly isRefusedAddress: (ip: string) => boolean;
  /** DNS; default `dns.lookup` with every address. */
  readonly resolve?: ResolveHost;
  /** Response body bytes read (and kept in the delivery log) at most; the rest is dropped with the connection; default 64 KiB. */
  readonly maxResponseBytes?: number;
  /** Default `Chronicle-Webhooks/1`. */
  readonly userAgent?: string;
  /** Idle keep-alive sockets per host; default 4. Each subscription has at most one request in flight. */
  readonly maxFreeSockets?: number;
}

export interface DeliveryAgent {
  readonly send: SendDelivery;
  /** Closes the kept-alive connections. */
  close(): void;
}

const systemResolve: ResolveHost = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A `net` lookup that resolves with `resolve` and refuses what `isRefused` refuses. */
export const guardedLookup = (resolve: ResolveHost, isRefused: ((ip: string) => boolean) | null) =>
  (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (found) => {
        const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found;
        if (isRefused) {
          // Every address, not only the one used: a mixed answer is a rebinding attempt or a misconfiguration.
          const refused = found.find((a) => isRefused(a.address));
          if (refused) return callback(new RefusedAddressError(hostname, refused.address), '');
        }
        const first = wanted[0];
        if (!first) {
          const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
          error.code = 'ENOTFOUND';
          return callback(error, '');
        }
        if (options.all) return callback(null, wanted.map((a) => ({ address: a.address, family: a.family })));
        return callback(null, first.address, first.family);
      },
      (error: NodeJS.ErrnoException) => callback(error, ''),
    );
  };

const abortReason = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new Error('The delivery attempt was aborted');

/** A target URL as node:http(s) requests take it (`urlToHttpOptions`, what they do with a URL). */
interface Target {
  readonly https: boolean;
  readonly options: ReturnType<typeof urlToHttpOptions>;
}

/** Target URLs remembered parsed (see `targetOf`). */
const MAX_KNOWN_TARGETS = 10_000;

/** Parses and checks a target URL: its request options, or the error an attempt at it fails with. */
const parseTarget = (raw: string, isRefused: ((ip: string) => boolean) | null): Target | Error => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return new UnsupportedTargetError(raw);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return new UnsupportedTargetError(raw);
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (isRefused && isIP(literal) !== 0 && isRefused(literal)) return new RefusedAddressError(url.hostname, literal);
  return { https: url.protocol === 'https:', options: urlToHttpOptions(url) };
};

/** The client used in production: node:http(s) agents with keep-alive and the guarded lookup. */
export const createDeliveryAgent = (options: DeliveryAgentOptions): DeliveryAgent => {
  const isRefused = options.allowPrivateTargets ? null : options.isRefusedAddress;
  const lookup = guardedLookup(options.resolve ?? systemResolve, isRefused);
  const agentOptions = { keepAlive: true, maxFreeSockets: options.maxFreeSockets ?? 4, lookup };
  const agents = { http: new HttpAgent(agentOptions), https: new HttpsAgent(agentOptions) };
  const maxResponseBytes = options.maxResponseBytes ?? 64 * 1024;
  const userAgent = options.userAgent ?? DELIVERY_USER_AGENT;

  const targets = new Map<string, Target | Error>();
  /** The request options of a target URL, parsed and checked once (or why it is not delivered to). */
  const targetOf = (raw: string): Target | Error => {
    const known = targets.get(raw);
    if (known !== undefined) return known;
    const target = parseTarget(raw, isRefused);
    // Bounded: a process delivers to its subscriptions' URLs, a few thousand at most; more start it over.
    if (targets.size >= MAX_KNOWN_TARGETS) targets.clear();
    targets.set(raw, target);
    return target;
  };

  const send: SendDelivery = (request, signal) =>
    new Promise<DeliveryResponse>((resolve, reject) => {
      if (signal.aborted) return reject(abortReason(signal));
      const target = targetOf(request.url);
      if (target instanceof Error) return reject(target);

      const body = Buffer.from(request.body, 'utf8');
      const { https } = target;
      let settled = false;
      const finish = (error: Error | null, response?: DeliveryResponse): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        if (error) reject(error);
        else resolve(response!);
      };
      const req = (https ? httpsRequest : httpRequest)({
        ...target.options,
        method: 'POST',
        agent: https ? agents.https : agents.http,
        headers: { ...request.headers, ...deliveryHeaders(body.length, userAgent) },
      });
      const onAbort = (): void => {
        const reason = abortReason(signal);
        finish(reason);
        req.destroy(reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });

      req.on('error', (error) => finish(error));
      req.on('response', (res: IncomingMessage) => {
        const retryAfter = res.headers['retry-after'];
        const chunks: Buffer[] = [];
        let read = 0;
        const response = (bodyTruncated: boolean): DeliveryResponse => {
          const bytes = Buffer.concat(chunks);
          return {
            status: res.statusCode ?? 0,
            retryAfter: retryAfter ?? null,
            headers: headersOf(res),
            body: bytes.subarray(0, Math.min(bytes.length, maxResponseBytes)).toString('utf8'),
            bodyTruncated,
          };
        };
        res.on('data', (chunk: Buffer) => {
          if (read < maxResponseBytes) chunks.push(chunk);
          read += chunk.length;
          if (read > maxResponseBytes) {
            // Enough: the status is what counts, and the first bytes are kept. Drop the rest with the connection.
            finish(null, response(true));
            res.destroy();
          }
        });
        res.on('end', () => finish(null, response(false)));
        res.on('error', (error) => finish(error));
        // After 'end' this changes nothing; before it, the receiver cut the response short.
        res.on('close', () => finish(new Error('The receiver closed the connection during the response')));
      });
      req.end(body);
    });

  return {
    send,
    close: () => {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
};

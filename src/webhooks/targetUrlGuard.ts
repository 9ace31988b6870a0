/**
 * The target-URL guard: which webhook target URLs Chronicle will POST to.
 *
 * Deliveries are requests made by the server on a client's behalf, so a target URL
 * must not reach anything the client could not reach itself (SSRF): loopback,
 * private networks, link-local (cloud metadata at 169.254.169.254), and other
 * non-public addresses, in any spelling.
 *
 * - The host is parsed by the WHATWG URL parser (Node's `URL`), which already
 *   canonicalises IPv4 spellings (`127.1`, `0x7f.0.0.1`, `2130706433`,
 *   `017700000001`, percent-encoding, a trailing dot) to dotted quads and IPv6 to
 *   its compressed form, so the guard classifies what a client would connect to.
 * - Addresses are classified with ipaddr.js. Only ordinary public unicast passes:
 *   IPv4 outside every special range, IPv6 in 2000::/3 outside every special range.
 *   IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`, translated
 *   `::ffff:0:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by that
 *   IPv4 address; the deprecated IPv4-compatible `::a.b.c.d` (all of ::/8),
 *   local-use NAT64 (64:ff9b:1::/48), Teredo and zoned addresses are refused.
 * - A host name is refused when it is `localhost` (or under `.localhost`), under
 *   `.internal`, or a cloud metadata name, and otherwise when ANY address it
 *   resolves to is refused (an attacker controls every record of their own name).
 *
 * This check runs at subscribe time. A name can resolve differently later (DNS
 * rebinding), so the delivery agent must check the address it actually connects
 * to with `isRefusedAddress` as well.
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

export type ResolveHost = (host: string) => Promise<string[]>;

export interface TargetUrlGuardOptions {
  /** `webhooks.allowPrivateTargets` (development, tests): any http(s) URL without credentials passes, unresolved. */
  readonly allowPrivate: boolean;
  /** Every address of a host name (IPv4 and IPv6). */
  readonly resolve: ResolveHost;
  /** A resolution that takes longer is a failure; default 5000 ms. */
  readonly resolveTimeoutMs?: number;
}

export type TargetUrlCheck = { readonly ok: true; readonly url: URL } | { readonly ok: false; readonly reason: string };

const DEFAULT_RESOLVE_TIMEOUT_MS = 5000;

/** The real resolver: every address the system resolver gives (as a connection would use). */
export const lookupAllAddresses: ResolveHost = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Names that are local or cloud metadata services by definition, whatever DNS says. */
const REFUSED_NAMES: ReadonlySet<string> = new Set([
  'localhost',
  'metadata',
  'metadata.goog',
  'metadata.google.internal',
  'instance-data',
  'instance-data.ec2.internal',
]);
/** Special-use domains (RFC 6761 `.localhost`; `.internal`, reserved for private use). */
const REFUSED_SUFFIXES: readonly string[] = ['.localhost', '.internal'];

const isRefusedName = (hostname: string): boolean => {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  return REFUSED_NAMES.has(name) || REFUSED_SUFFIXES.some((suffix) => name.endsWith(suffix));
};

const isPublicIPv4 = (address: ipaddr.IPv4): boolean => address.range() === 'unicast';

/** The IPv4 address in the last 32 bits of an IPv6 address. */
const lastIPv4 = (address: ipaddr.IPv6): ipaddr.IPv4 => {
  const parts = address.parts;
  const high = parts[6] ?? 0;
  const low = parts[7] ?? 0;
  return new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
};

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const IETF_RESERVED = ipaddr.parseCIDR('::/8');

const isPublicIPv6 = (address: ipaddr.IPv6): boolean => {
  if (address.zoneId !== undefined) return false;
  const range = address.range();
  // Forms that embed an IPv4 address are as public as that address.
  if (range === 'ipv4Mapped' || range === 'rfc6145') return isPublicIPv4(lastIPv4(address));
  if (range === 'rfc6052') return address.match(NAT64_WELL_KNOWN) && isPublicIPv4(lastIPv4(address));
  if (range === '6to4') {
    const [, high = 0, low = 0] = address.parts;
    return isPublicIPv4(new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
  }
  // ::/8 holds ::, ::1 and the deprecated IPv4-compatible ::a.b.c.d, none of them public.
  if (address.match(IETF_RESERVED)) return false;
  return range === 'unicast' && address.match(GLOBAL_UNICAST);
};

/**
 * True unless `ip` is an ordinary public unicast address (see the module comment):
 * loopback, private, link-local, shared, unspecified, multicast, broadcast,
 * reserved, cloud metadata, in any notation, and anything that does not parse as
 * an address, are refused. For the delivery agent's own lookup (DNS rebinding).
 */
export const isRefusedAddress = (ip: string): boolean => {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(text)) return true;
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4' ? !isPublicIPv4(address as ipaddr.IPv4) : !isPublicIPv6(address as ipaddr.IPv6);
};

/** The URL if it is an http(s) URL without credentials (the checks that need no network). */
export const parseTargetUrl = (raw: string): TargetUrlCheck => {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute http or https URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: 'must be an http or https URL' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not contain a user name or password' };
  if (url.hostname === '') return { ok: false, reason: 'must name a host' };
  return { ok: true, url };
};

const NOT_PUBLIC = 'must point to a public address (loopback, private, link-local, metadata and other non-public addresses are refused)';

/** The resolver's answer, or a rejection after `ms`. */
const resolveWithin = async (resolve: ResolveHost, host: string, ms: number): Promise<string[]> => {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([resolve(host), timedOut]);
  } finally {
    clearTimeout(timer);
  }
};

/**
 * Checks a webhook target URL: http or https, no credentials, and unless
 * `allowPrivate`, a host that is, and resolves only to, public addresses. The
 * host name's addresses are not shown in the reason (they would tell a client
 * about internal DNS).
 */
export const checkTargetUrl = async (raw: string, options: TargetUrlGuardOptions): Promise<TargetUrlCheck> => {
  const parsed = parseTargetUrl(raw);
  if (!parsed.ok || options.allowPrivate) return parsed;
  const { url } = parsed;
  const host = url.hostname;

  // IP literals: the URL parser has made IPv4 a dotted quad and put IPv6 in brackets.
  const literal = host.startsWith('[') ? host.slice(1, -1) : ipaddr.IPv4.isValidFourPartDecimal(host) ? host : null;
  if (literal !== null) return isRefusedAddress(literal) ? { ok: false, reason: NOT_PUBLIC } : parsed;

  if (isRefusedName(host)) return { ok: false, reason: NOT_PUBLIC };
  let addresses: string[];
  try {
    addresses = await resolveWithin(options.resolve, host, options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS);
  } catch {
    return { ok: false, reason: `could not resolve the host ${host}` };
  }
  if (addresses.length === 0) return { ok: false, reason: `could not resolve the host ${host}` };
  if (addresses.some(isRefusedAddress)) return { ok: false, reason: `${NOT_PUBLIC}; ${host} resolves to one` };
  return parsed;
};

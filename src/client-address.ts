import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyaddr from 'proxy-addr';

/**
 * Which peers may say who the client is (`TRUSTED_PROXIES`): a number of proxy hops in front of the
 * gateway, or addresses and CIDR ranges (and proxy-addr's names `loopback`, `linklocal`, `uniquelocal`).
 * Empty: none; the client is the socket's peer.
 */
export type TrustedProxies = { hops: number } | { ranges: readonly string[] };

export const NO_TRUSTED_PROXIES: TrustedProxies = { ranges: [] };

/** Reads `TRUSTED_PROXIES`; throws an Error naming what is wrong. */
export function parseTrustedProxies(value: string | null): TrustedProxies {
  const text = value?.trim() ?? '';
  if (!text) return NO_TRUSTED_PROXIES;
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 10) throw new Error('a hop count must be from 0 to 10');
    return { hops };
  }
  const ranges = text.split(',').map((part) => part.trim()).filter(Boolean);
  try {
    proxyaddr.compile(ranges);
  } catch (error) {
    throw new Error(`not a list of addresses or CIDR ranges (${(error as Error).message})`, { cause: error });
  }
  return { ranges };
}

/**
 * The client's address as the trusted proxies report it: the first hop of `X-Forwarded-For` (or, when
 * it is absent, `Forwarded`'s `for=`) that no trusted proxy stands for, read from the socket's peer
 * backwards. A peer that is not trusted is the client, whatever headers it sends.
 */
export function createClientAddress(trusted: TrustedProxies): (req: IncomingMessage | undefined) => string | null {
  const trust: (address: string, hop: number) => boolean =
    'hops' in trusted ? (_address, hop) => hop < trusted.hops : trusted.ranges.length ? proxyaddr.compile([...trusted.ranges]) : () => false;
  const none = !('hops' in trusted) && trusted.ranges.length === 0;
  return (req) => {
    const peer = req?.socket?.remoteAddress;
    if (!req || !peer) return null;
    if (none) return peer;
    const forwardedFor = req.headers['x-forwarded-for'];
    if (forwardedFor === undefined && typeof req.headers['forwarded'] === 'string') {
      const hops = forwardedHops(req.headers['forwarded']);
      return proxyaddr({ headers: { 'x-forwarded-for': hops.join(', ') }, connection: { remoteAddress: peer } } as never, trust);
    }
    return proxyaddr({ headers: req.headers, connection: { remoteAddress: peer } } as never, trust);
  };
}

/** The `for=` of each element of a `Forwarded` header (RFC 7239), nearest the client first; ports and brackets dropped. */
export function forwardedHops(header: string): string[] {
  const hops: string[] = [];
  for (const element of header.split(',')) {
    const match = /(?:^|;)\s*for=("?)\[?([^\]";]*?)\]?(?::\d+)?\1\s*(?:;|$)/i.exec(element.trim());
    if (match?.[2]) hops.push(match[2]);
  }
  return hops;
}

/**
 * The bucket an address is counted in: an IPv4 address as itself (IPv4-mapped IPv6 included), an IPv6
 * address by its /64 (one subscriber's network: a client owns its whole /64 and could rotate through it).
 */
export function addressBucket(address: string | null): string {
  if (!address || !ipaddr.isValid(address)) return 'unknown';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

import type { IncomingMessage } from 'node:http';
import { isIPv4, isIPv6 } from 'node:net';

// With the state rather than the HTTP front: a caller without credentials is known by its address
// (`Caller.addressKey`), and the front only records it (`useClientAddress`).

/**
 * The address of the client behind a connection. With `trustedProxies` 0, the peer's own. Behind
 * that many proxies, each appending the address it got the request from to `X-Forwarded-For`
 * (HAProxy's `option forwardfor`), the one the outermost proxy saw: the entries further left were
 * written by the client and prove nothing. A request that did not pass every proxy is known by its
 * peer's address.
 */
export function clientAddress(peer: IncomingMessage | undefined, trustedProxies: number): string | undefined {
  const own = peer?.socket?.remoteAddress;
  if (!peer || trustedProxies === 0) return own;
  const header = peer.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((hop) => hop.trim())
    .filter(Boolean);
  return hops.length >= trustedProxies ? hops[hops.length - trustedProxies] : own;
}

/**
 * What a budget keyed by address counts as one client: an IPv4 address (also when written as
 * IPv6, `::ffff:a.b.c.d`), or an IPv6 address's /64, the least a network is given, so that a
 * client cannot spend a fresh budget from each of its 2^64 addresses.
 */
export function addressGroup(address: string): string {
  const plain = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(plain);
  if (mapped) return mapped[1]!;
  if (isIPv4(plain) || !isIPv6(plain)) return plain;
  const [head = '', tail] = plain.split('::');
  // A dotted IPv4 tail stands for two groups.
  const groups = (part: string) =>
    part ? part.split(':').flatMap((group) => (group.includes('.') ? ['0', '0'] : [group])) : [];
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((group) => Number.parseInt(group, 16).toString(16))
    .join(':')}::/64`;
}

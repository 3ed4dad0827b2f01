import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { addressGroup, clientAddress } from '../../src/gateway/state/client-address.js';

/** A connection from `peer`, with the `X-Forwarded-For` lines given. */
const from = (peer: string, ...forwardedFor: string[]) =>
  ({
    socket: { remoteAddress: peer },
    headers:
      forwardedFor.length === 0
        ? {}
        : { 'x-forwarded-for': forwardedFor.length === 1 ? forwardedFor[0] : forwardedFor },
  }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  it('is the peer when no proxy is trusted, whatever the header says', () => {
    expect(clientAddress(from('192.0.2.7', '203.0.113.1'), 0)).toBe('192.0.2.7');
  });

  it('is the entry the outermost trusted proxy appended', () => {
    expect(clientAddress(from('10.0.0.2', '203.0.113.1'), 1)).toBe('203.0.113.1');
    // The client wrote the first entry; the proxy appended the second.
    expect(clientAddress(from('10.0.0.2', '198.51.100.9, 203.0.113.1'), 1)).toBe('203.0.113.1');
    // Two proxies: a CDN appended the client, HAProxy the CDN.
    expect(clientAddress(from('10.0.0.2', '198.51.100.9, 203.0.113.1,  10.1.1.1'), 2)).toBe('203.0.113.1');
    // Repeated header lines are one list.
    expect(clientAddress(from('10.0.0.2', '198.51.100.9', '203.0.113.1'), 1)).toBe('203.0.113.1');
  });

  it('is the peer when the request did not pass every trusted proxy', () => {
    expect(clientAddress(from('192.0.2.7'), 1)).toBe('192.0.2.7');
    expect(clientAddress(from('192.0.2.7', '203.0.113.1'), 2)).toBe('192.0.2.7');
  });

  it('is unknown without a connection (an in-process request)', () => {
    expect(clientAddress(undefined, 1)).toBeUndefined();
  });
});

describe('addressGroup', () => {
  it('counts an IPv4 client by its address, however it is written', () => {
    expect(addressGroup('203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressGroup('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 client by its /64, however it is written', () => {
    const group = '2001:db8:85a3:42::/64';
    for (const address of [
      '2001:db8:85a3:42::1',
      '2001:0db8:85a3:0042:ffff:ffff:ffff:fffe',
      '2001:db8:85a3:42:0:0:0:7',
      '2001:db8:85a3:42::9%eth0',
    ])
      expect(addressGroup(address)).toBe(group);
    expect(addressGroup('2001:db8:85a3:43::1')).not.toBe(group);
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
  });

  it('keeps anything else as it is', () => {
    expect(addressGroup('not an address')).toBe('not an address');
  });
});

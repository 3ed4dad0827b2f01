import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/gateway/http/client-address.js';

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

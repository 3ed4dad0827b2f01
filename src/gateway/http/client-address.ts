import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { clientAddress, clientAddressOf, rememberClientAddress } from '../state/client-address.js';

/**
 * Records each request's client address (see `clientAddress`) for the plugins after it: the rate
 * limits key the budget of a caller without credentials by it. A relayed request keeps the address
 * its transport recorded.
 */
export function useClientAddress(trustedProxies: number): Plugin {
  return {
    onRequest({ request, serverContext }) {
      if (clientAddressOf(request) !== undefined) return;
      const peer = (serverContext as { req?: IncomingMessage } | undefined)?.req;
      rememberClientAddress(request, clientAddress(peer, trustedProxies));
    },
  };
}

import type { IncomingMessage } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { Caller } from '../state/caller.js';
import { clientAddress } from '../state/client-address.js';
import { partsOf } from '../request-parts.js';
import type { RelayedServerContext } from './relay.js';

/**
 * Adds each request's caller (its credentials and client address, see `clientAddress`) to its
 * context for the plugins after it: the rate limits key the budget of a caller without
 * credentials by its address. A relayed request has the address its transport gave it.
 */
export function useClientAddress(trustedProxies: number): Plugin {
  return {
    onRequest({ request, serverContext }) {
      const given = serverContext as RelayedServerContext & { req?: IncomingMessage };
      const address = given.clientAddress ?? clientAddress(given.req, trustedProxies);
      partsOf(serverContext).caller = new Caller(request.headers.get('authorization'), address);
    },
  };
}

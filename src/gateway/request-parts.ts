// Its own module, importing nothing: every plugin module declares its part here, the state's
// included, which the rest of the context (the upstream layer, the live hub) would make a cycle.

/**
 * What the plugins add to a request from its first hook (`onRequest`), before its GraphQL context
 * is built. yoga builds that context on the request's server context (the object every hook of
 * the request gets, as `serverContext` or `context`; a batch's operations each on a child of it),
 * so a part added there is on the GraphQL context too, and no table keyed by the `Request` is
 * needed. Each plugin module declares the part it adds by augmenting this interface, and reads it
 * with its own accessor.
 */
export interface RequestParts {
  request: Request;
}

/**
 * The parts of a request's server context, as the plugins that run first added them (see
 * `RequestParts`): the one place a hook's untyped `serverContext` is read as them.
 */
export function partsOf(serverContext: object): Partial<RequestParts> {
  return serverContext as Partial<RequestParts>;
}

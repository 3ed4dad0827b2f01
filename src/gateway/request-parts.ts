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
  /** On an operation of a batched request (see `http/batches.ts`): its place in the batch, from 0. */
  batchIndex?: number | undefined;
}

/**
 * The parts of a request's server context, as the plugins that run first added them (see
 * `RequestParts`): the one place a hook's untyped `serverContext` is read as them.
 */
export function partsOf(serverContext: object): Partial<RequestParts> {
  return serverContext as Partial<RequestParts>;
}

/**
 * Whether `context` is one operation of a batched request: yoga runs each on a child of the
 * request's server context, which sees the request's parts and keeps what it adds to itself. A
 * plugin that keeps a record per operation (the cost's timing, the operation log's entry) makes it
 * that operation's own there, instead of sharing the request's.
 */
export function isBatchItem(context: object): boolean {
  return partsOf(context).batchIndex !== undefined;
}

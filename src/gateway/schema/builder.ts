import SchemaBuilder from '@pothos/core';
import ComplexityPlugin from '@pothos/plugin-complexity';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../context.js';
import { GatewayError } from '../errors.js';

/** Limits applied to every operation by the complexity plugin. */
export const QUERY_LIMITS = {
  /** Deepest nesting of fields. */
  depth: 12,
  /** Number of fields, counting list and connection fields by their `first` argument. */
  complexity: 50_000,
};

/** The schema builder: plugins and options only; every type lives in a domain module. */
export const builder = new SchemaBuilder<{
  Context: GatewayContext;
  DefaultFieldNullability: false;
  DefaultEdgesNullability: false;
  DefaultNodeNullability: false;
  Connection: { totalCount: number };
  Scalars: {
    DateTime: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
  };
}>({
  plugins: [ComplexityPlugin, DataloaderPlugin, RelayPlugin],
  defaultFieldNullability: false,
  complexity: {
    defaultComplexity: 1,
    defaultListMultiplier: 10,
    limit: { depth: QUERY_LIMITS.depth, complexity: QUERY_LIMITS.complexity },
    complexityError: (kind, result) => {
      const [actual, max] =
        kind === 'Depth'
          ? [result.depth, result.maxDepth]
          : kind === 'Breadth'
            ? [result.breadth, result.maxBreadth]
            : [result.complexity, result.maxComplexity];
      const hint =
        kind === 'Depth'
          ? 'nest fewer levels'
          : 'give nested connections a smaller `first` (each counts its `first`, 50 when left out, times what it selects)';
      return new GatewayError(
        'BAD_USER_INPUT',
        `Query too ${kind === 'Depth' ? 'deep' : 'large'}: its ${kind.toLowerCase()} is ${actual}, the limit is ${max}; ${hint}`,
      );
    },
  },
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: { description: 'The items of this page, without their cursors.', complexity: { field: 1, multiplier: 1 } },
    // The connection field already multiplies by `first`; its lists must not multiply again.
    edgesFieldOptions: { nullable: false, description: 'The items of this page, each with its cursor.', complexity: { field: 1, multiplier: 1 } },
    nodeFieldOptions: { nullable: false, description: 'The item at the end of this edge.' },
    // node and nodes are declared in schema/nodes.ts: one bad id must not fail the others.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'An object with a global ID that `node(id:)` can fetch again.' },
    idFieldOptions: {
      description: 'Global ID of this object: opaque, stable, accepted by `node(id:)` and by every lookup and input.',
    },
    pageInfoTypeOptions: { description: 'Where a page of a connection stands in the whole list.' },
    hasNextPageFieldOptions: { description: 'True when items follow this page: pass `endCursor` as `after` to get them.' },
    hasPreviousPageFieldOptions: { description: 'True when this page was requested with `after`, so items precede it.' },
    startCursorFieldOptions: { description: 'Cursor of the first item of this page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of this page; null when the page is empty.' },
    cursorFieldOptions: { description: 'Opaque position of this item; pass it as `after` to continue right after it.' },
    pageInfoFieldOptions: { description: 'Paging information of this page.' },
    firstArgOptions: {
      description: 'Number of items to return, 0 to 1000 (default 50). Maps to the REST `limit`.',
    },
    afterArgOptions: { description: 'Returns the items right after the item with this cursor.' },
    lastArgOptions: {
      description: 'Not supported: the platform pages forward only. Use `first`/`after`.',
    },
    beforeArgOptions: {
      description: 'Not supported: the platform pages forward only. Use `first`/`after`.',
    },
    // A connection costs its page size times what is selected in each item.
    defaultConnectionFieldOptions: {
      complexity: (args: { first?: number | null }) => ({ field: 1, multiplier: Math.max(1, args.first ?? 50) }),
    },
    defaultConnectionTypeOptions: { description: 'A page of a list, with its total size (`totalCount`).' },
    defaultEdgeTypeOptions: { description: 'An item of a connection with its cursor.' },
    defaultPayloadTypeOptions: { description: 'Result of a mutation.' },
    defaultMutationInputTypeOptions: { description: 'Input of a mutation.' },
  },
});

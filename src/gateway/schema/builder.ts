import SchemaBuilder from '@pothos/core';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../context.js';

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
    Upload: { Input: unknown; Output: never };
  };
}>({
  plugins: [DataloaderPlugin, RelayPlugin],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: { description: 'The items of this page, without their cursors.' },
    edgesFieldOptions: { nullable: false, description: 'The items of this page, each with its cursor.' },
    nodeFieldOptions: { nullable: false, description: 'The item at the end of this edge.' },
    // node and nodes are declared in schema/nodes.ts: one bad id must not fail the others.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'An object with a global ID that `node(id:)` can fetch again.' },
    idFieldOptions: {
      description: 'Global ID of this object: opaque, stable, accepted by `node(id:)` and by every lookup and input.',
    },
    pageInfoTypeOptions: { description: 'Where a page of a connection stands in the whole list.' },
    hasNextPageFieldOptions: {
      description: 'True when items follow this page: pass `endCursor` as `after` to get them.',
    },
    hasPreviousPageFieldOptions: {
      description: 'True when this page was requested with `after`, so items precede it.',
    },
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
    defaultConnectionTypeOptions: { description: 'A page of a list, with its total size (`totalCount`).' },
    defaultEdgeTypeOptions: { description: 'An item of a connection with its cursor.' },
    defaultPayloadTypeOptions: { description: 'Result of a mutation.' },
    defaultMutationInputTypeOptions: { description: 'Input of a mutation.' },
  },
});

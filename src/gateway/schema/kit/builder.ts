import SchemaBuilder, { type SchemaTypes } from '@pothos/core';
import { GraphQLError, Kind } from 'graphql';
import DataloaderPlugin from '@pothos/plugin-dataloader';
import RelayPlugin from '@pothos/plugin-relay';
import type { GatewayContext } from '../../context.js';
import { CountOnlyConnectionsPlugin } from './connections.js';

declare global {
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      countOnlyConnections: CountOnlyConnectionsPlugin<Types>;
    }
  }
}

SchemaBuilder.registerPlugin('countOnlyConnections', CountOnlyConnectionsPlugin);

/**
 * The schema builder and what every domain stands on: the plugins and their options (the kit's
 * own: `countOnlyConnections`, see kit/connections.ts), the root
 * types, the scalars and the `totalCount` of every connection. Domain types live in domain modules.
 */
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
  plugins: [DataloaderPlugin, RelayPlugin, 'countOnlyConnections'],
  defaultFieldNullability: false,
  relay: {
    clientMutationId: 'omit',
    cursorType: 'String',
    nodesOnConnection: { description: 'The items of this page, without their cursors.' },
    edgesFieldOptions: { nullable: false, description: 'The items of this page, each with its cursor.' },
    nodeFieldOptions: { nullable: false, description: 'The item at the end of this edge.' },
    // node and nodes are declared in kit/nodes.ts: one bad id must not fail the others.
    nodeQueryOptions: false,
    nodesQueryOptions: false,
    nodeTypeOptions: { description: 'An object with a global ID that `node(id:)` can fetch again.' },
    idFieldOptions: {
      description: 'Global ID of this object: opaque, stable, accepted by `node(id:)` and by every lookup and input.',
    },
    pageInfoTypeOptions: { description: 'Where a page of a connection stands in the whole list.' },
    hasNextPageFieldOptions: {
      description:
        'True when items follow this page: pass `endCursor` as `after` to get them. Always false for `first: 0`, which only counts (see `totalCount`), so that a `while (hasNextPage)` loop ends.',
    },
    hasPreviousPageFieldOptions: {
      description:
        'True when items precede this page: it was requested with `after`, or paged backward with items left before it.',
    },
    startCursorFieldOptions: { description: 'Cursor of the first item of this page; null when the page is empty.' },
    endCursorFieldOptions: { description: 'Cursor of the last item of this page; null when the page is empty.' },
    cursorFieldOptions: {
      description:
        'Opaque position of this item; pass it as `after` to continue right after it, or as `before` to page back from it.',
    },
    pageInfoFieldOptions: { description: 'Paging information of this page.' },
    firstArgOptions: {
      description:
        'Number of items to return, 0 to 1000 (default 50). Maps to the REST `limit`. `first: 0` only counts: no edges, `totalCount` set, `hasNextPage` false (there is no cursor to resume from).',
    },
    afterArgOptions: { description: 'Returns the items right after the item with this cursor.' },
    lastArgOptions: {
      description:
        "Pages backward: the last items (of the list, or before `before`), 0 to 1000, in the list's order. Not with `first`/`after`. The platform pages forward only, so the list is read from its start, at most 10,000 items (past them, BAD_USER_INPUT: page forward instead). `last: 0` only counts.",
    },
    beforeArgOptions: {
      description:
        'Returns the items right before the item with this cursor (with `last`, 50 by default). Not with `first`/`after`.',
    },
    defaultConnectionTypeOptions: { description: 'A page of a list, with its total size (`totalCount`).' },
    defaultEdgeTypeOptions: { description: 'An item of a connection with its cursor.' },
    defaultPayloadTypeOptions: { description: 'Result of a mutation.' },
    defaultMutationInputTypeOptions: { description: 'Input of a mutation.' },
  },
});

/** The SchemaTypes of the builder, for helpers typed over field builders. */
export type SchemaTypesOf =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

builder.queryType({ description: 'Everything you can read through the gateway.' });
builder.mutationType({ description: 'Every change you can make through the gateway, one per platform operation.' });
builder.subscriptionType({
  description:
    "What you can follow as it changes: each field sends the object as it is, then each new version. The gateway polls it (`SUBSCRIPTION_POLL_MS`), once per resource and token however many subscribe, and reads it at once when a write through the gateway, or the platform's signed event of a space's content, says it changed. Over SSE (`Accept: text/event-stream` at `/graphql`, or one stream for many at `/graphql/stream`), HTTP multipart (`Accept: multipart/mixed;subscriptionSpec=1.0`, as Apollo Client asks) or WebSocket (`graphql-transport-ws` at `/graphql`).",
});

builder.scalarType('DateTime', {
  description: 'A date and time in ISO 8601 (for example `2026-01-31T09:30:00.000Z`).',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('DateTime must be an ISO 8601 date-time string');
    }
    return value;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value (used for rich-text documents and free-form configuration).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: function parse(ast): unknown {
    switch (ast.kind) {
      case Kind.STRING:
      case Kind.BOOLEAN:
        return ast.value;
      case Kind.INT:
      case Kind.FLOAT:
        return Number(ast.value);
      case Kind.NULL:
        return null;
      case Kind.LIST:
        return ast.values.map((value) => parse(value));
      case Kind.OBJECT:
        return Object.fromEntries(ast.fields.map((field) => [field.name.value, parse(field.value)]));
      default:
        throw new GraphQLError('Variables inside JSON literals are not supported; pass the whole value as a variable');
    }
  },
});

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'Number of items in the whole list (all pages), as the platform counts them.',
    resolve: (connection) => connection.totalCount,
  }),
);

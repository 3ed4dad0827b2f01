import { brandWithType, type OutputType } from '@pothos/core';
import { decodeGlobalID } from '@pothos/plugin-relay';
import type { GatewayContext } from '../../context.js';
import { upstream } from './upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { MAX_ID_LENGTH } from './ids.js';
import { builder, type SchemaTypesOf } from './builder.js';
import { loadableByTypename } from './loaders.js';

/** Most global IDs one `nodes` call takes. */
export const MAX_NODES = 100;

/**
 * Loads the node a global ID names. A malformed ID or an unknown type is a BAD_USER_INPUT
 * error for that ID alone; a missing node is the loader's error (NOT_FOUND).
 */
async function loadNode(globalId: string, ctx: GatewayContext): Promise<unknown> {
  const value = globalId.trim();
  let decoded: { typename: string; id: string };
  try {
    if (value.length === 0 || value.length > MAX_ID_LENGTH) throw new Error('length');
    decoded = decodeGlobalID(value);
  } catch {
    throw new BadUserInputError(`"${value.slice(0, 80)}" is not a global ID (the \`id\` field of a node)`);
  }
  const ref = loadableByTypename(decoded.typename);
  if (!ref || decoded.id.length === 0) {
    throw new BadUserInputError(`"${value.slice(0, 80)}" is not the global ID of any object of this graph`);
  }
  const node = await ref.getDataloader(ctx).load(decoded.id);
  // The name of a registered node type (`loadableByTypename` found it), which Pothos types only as a literal.
  brandWithType(node, decoded.typename as OutputType<SchemaTypesOf>);
  return node;
}

builder.queryFields((t) => ({
  node: t.field({
    type: builder.nodeInterfaceRef(),
    nullable: true,
    description:
      'Fetches any object by its global ID (the `id` field of every node). Null, with NOT_FOUND, when it does not exist or is not visible to you; with BAD_USER_INPUT when the ID is malformed.',
    args: { id: t.arg.id({ required: true, description: 'Global ID of the object (the `id` field of any node).' }) },
    extensions: upstream.fetch(1),
    resolve: (_root, args, ctx) => loadNode(String(args.id), ctx),
  }),
  nodes: t.field({
    type: [builder.nodeInterfaceRef()],
    nullable: { list: false, items: true },
    description: `Fetches several objects by their global IDs (at most ${MAX_NODES}), in the same order; an ID that is missing, invisible or malformed gives null at its place, with an error for that place only.`,
    args: { ids: t.arg.idList({ required: true, description: 'Global IDs of the objects.' }) },
    // Each id may cost an upstream request, and holds one object.
    extensions: {
      upstream: {
        requests: 1,
        perItem: true,
        items: (args: Record<string, unknown>) => (Array.isArray(args.ids) ? args.ids.length : 1),
      },
    },
    resolve: (_root, args, ctx) => {
      if (args.ids.length > MAX_NODES) {
        throw new BadUserInputError(`nodes takes at most ${MAX_NODES} ids, got ${args.ids.length}`, ['ids']);
      }
      // An Error in a list item nulls that item alone.
      return args.ids.map((id) => loadNode(String(id), ctx).catch((error: unknown) => error));
    },
  }),
}));

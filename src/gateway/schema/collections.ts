import { z } from 'zod';
import { listConnection } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { platformKey } from './kit/ids.js';
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  moveCollection,
  transferCollection,
  updateCollection,
} from '../upstream/collections.js';
import type { Collection } from '../upstream/contract/types.js';
import { S } from '../upstream/contract/schemas.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { linkTo, loadableNode, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { organizationIdField, OrganizationNode } from './organizations.js';
import { DefaultLevelEnum, enumValues } from './kit/enums.js';
import { deletedPayload, deletionOf, objectPayload } from './kit/payloads.js';
import { idInput } from './kit/ids.js';
import { noNull, restBody } from './kit/mutations.js';
import { permissionsType } from './kit/permissions.js';

export const CollectionNode = loadableNode<Collection>('Collection', {
  load: (id, ctx) => getCollection(ctx.api, id),
});

const CollectionUrls = builder.objectRef<Collection['urls']>('CollectionUrls').implement({
  description: 'Addresses of a collection.',
  fields: (t) => ({
    location: t.string({ nullable: true, description: 'URL in the REST API.', resolve: (u) => u.location ?? null }),
    app: t.string({ nullable: true, description: 'URL in the web app.', resolve: (u) => u.app ?? null }),
  }),
});

const CollectionPermissions = permissionsType<Collection['permissions']>(
  'CollectionPermissions',
  'What you may do with a collection.',
  {
    view: 'Can see the collection and its content.',
    admin: 'Can change, move, transfer and delete the collection and manage its permissions.',
    viewInviteLinks: 'Can see the invite links of the collection.',
    create: 'Can create spaces and collections inside it.',
  },
);

CollectionNode.implement({
  description: 'A collection: groups spaces and nested collections of an organization, and grants access to them.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the collection on the platform.' }),
    title: t.exposeString('title', { description: 'Name of the collection (at most 50 characters).' }),
    description: t.string({
      nullable: true,
      description: 'Short description (at most 100 characters); null when there is none.',
      resolve: (c) => c.description ?? null,
    }),
    defaultLevel: t.field({
      type: DefaultLevelEnum,
      nullable: true,
      description: 'Level of access every member of the organization gets on it; null when the platform does not say.',
      resolve: (c) => c.defaultLevel ?? null,
    }),
    urls: t.field({ type: CollectionUrls, description: 'Addresses of the collection.', resolve: (c) => c.urls }),
    permissions: t.field({
      type: CollectionPermissions,
      description: 'What you may do with the collection.',
      resolve: (c) => c.permissions,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization that owns the collection.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) => linkTo(OrganizationNode, c.organization, info),
    }),
    parent: t.field({
      type: CollectionNode,
      nullable: true,
      description: 'The collection this one is nested in; null at the top level of the organization.',
      extensions: upstream.link,
      resolve: (c, _args, _ctx, info) => linkTo(CollectionNode, c.parent, info),
    }),
  }),
});

const OrganizationCollectionsEdge = builder.edgeObject({
  type: CollectionNode,
  name: 'OrganizationCollectionsEdge',
  description: 'A collection of a list, with its cursor.',
});

builder.objectFields(OrganizationNode, (t) => ({
  collections: t.connection(
    {
      type: CollectionNode,
      nullable: true,
      description:
        'Collections of the organization visible to you, in tree order (each followed by its nested ones); null with NOT_FOUND when you are not a member.',
      args: {
        nested: t.arg.boolean({
          defaultValue: true,
          description: 'True lists nested collections too; false only those at the top level.',
        }),
      },
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(
          args,
          listCollections(ctx.api, org.id, { nested: args.nested ?? true }),
        );
        prime(
          CollectionNode,
          ctx,
          connection.edges.map((edge) => edge.node),
        );
        return connection;
      },
    },
    {},
    OrganizationCollectionsEdge,
  ),
}));

builder.queryFields((t) => ({
  collection: t.field({
    type: CollectionNode,
    nullable: true,
    description: 'A collection by id (platform id or global ID); null with NOT_FOUND when it is not visible to you.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the collection.' }) },
    resolve: (_root, args) => platformKey(String(args.id), 'Collection'),
  }),
}));

// --- Inputs shared with spaces ------------------------------------------------------------------

const siblingId = idInput(['Space', 'Collection'], 'must be the id of a space or collection');

/**
 * MovePositionInput: exactly one of `before`/`after`, turned into the REST move position
 * (`{ before: { type: 'space', space: id } }`, `type` being `space` for collections too).
 */
const movePosition = inputObject('MovePositionInput', {
  description:
    'Where to put an item among the spaces and collections of its (new) parent: give exactly one of `before` or `after`.',
  fields: {
    before: inputField(
      'ID',
      'Put the item right before this sibling space or collection (global ID or platform id).',
      siblingId.nullish(),
    ),
    after: inputField(
      'ID',
      'Put the item right after this sibling space or collection (global ID or platform id).',
      siblingId.nullish(),
    ),
  },
  check: (position) =>
    position
      .refine((p) => (p.before != null) !== (p.after != null), 'give exactly one of before or after')
      .transform((p) =>
        p.before != null
          ? { before: { type: 'space' as const, space: p.before } }
          : { after: { type: 'space' as const, space: p.after! } },
      ),
});

/** Input fields of a move: the new parent collection (null: the top level) and the position. */
export const moveTarget = {
  parentId: inputField(
    'ID',
    'New parent collection (platform id or global ID); null moves it to the top level; left out keeps the parent.',
    idInput('Collection').nullish(),
  ),
  position: inputField(
    movePosition.type,
    'Sibling to put it next to, under the (new) parent; last when left out.',
    movePosition.schema.nullish(),
  ),
};

/** The REST body of a move of a space or collection; BAD_USER_INPUT when it moves nothing. */
export function moveBody(input: { parentId?: string | null; position?: z.infer<typeof movePosition.schema> | null }) {
  return restBody(
    { parent: input.parentId, position: input.position },
    { clearable: ['parent'], required: 'Give parentId, position or both' },
  );
}

// --- Mutations ---------------------------------------------------------------------------------

const collectionTitle = z
  .string({ message: 'must be 1 to 50 characters' })
  .trim()
  .min(1, 'must be 1 to 50 characters')
  .max(50, 'must be 1 to 50 characters');

const CollectionPayload = (mutation: string) =>
  objectPayload(mutation, 'collection', CollectionNode, 'The collection after the change.');

/** The payload of a write that answered the collection, the loader primed with it. */
async function collectionPayload(ctx: GatewayContext, written: Promise<Collection>) {
  const collection = await written;
  prime(CollectionNode, ctx, [collection]);
  return { collection };
}

const collectionId = inputField('ID', 'Platform id or global ID of the collection.', idInput('Collection'));

declareMutation('createCollection', {
  description: 'Creates a collection in an organization, at the top level or inside another collection (create role).',
  input: 'The collection to create.',
  fields: {
    organizationId: organizationIdField,
    title: inputField('String', 'Name, 1 to 50 characters (default `Untitled`).', collectionTitle.nullish()),
    parentId: inputField(
      'ID',
      'Collection to create it in (platform id or global ID); top level when left out.',
      idInput('Collection').nullish(),
    ),
  },
  payload: (name) =>
    objectPayload(name, 'collection', CollectionNode, 'The new collection.', {
      type: OrganizationCollectionsEdge,
      what: 'collection',
      lists: '`Organization.collections`',
    }),
  run: (i, ctx) =>
    collectionPayload(
      ctx,
      createCollection(ctx.api, i.organizationId, restBody({ title: i.title, parent: i.parentId })),
    ),
});

declareMutation('updateCollection', {
  description: 'Changes the title, description or default level of a collection (admins of the collection).',
  input: 'Changes to a collection; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    collectionId,
    title: inputField('String', 'New name, 1 to 50 characters.', collectionTitle.nullish()),
    description: inputField(
      'String',
      'New description, at most 100 characters; null removes it.',
      z.string().trim().max(100, 'must be at most 100 characters').nullish(),
    ),
    defaultLevel: inputField(
      DefaultLevelEnum,
      'Level of access every member gets on it (INHERIT follows the parent).',
      z.enum(['inherit', ...enumValues(S.MemberRole)]).nullish(),
    ),
  },
  check: (input) => input.superRefine(noNull(['title', 'defaultLevel'])),
  payload: CollectionPayload,
  run: ({ collectionId, ...changes }, ctx) =>
    collectionPayload(
      ctx,
      updateCollection(
        ctx.api,
        collectionId,
        restBody(changes, { clearable: ['description'], required: 'Give at least one field to change' }),
      ),
    ),
});

declareMutation('deleteCollection', {
  description:
    'Deletes a collection and the collections nested in it; their spaces are deleted too and stay restorable for 7 days (admins).',
  input: 'The collection to delete.',
  fields: { collectionId },
  payload: (name) => deletedPayload(name, 'True when the collection was deleted, false when it did not exist.'),
  run: (i, ctx) => deletionOf('Collection', i.collectionId, deleteCollection(ctx.api, i.collectionId)),
});

declareMutation('moveCollection', {
  description:
    'Moves a collection into another collection or to the top level, and/or next to a sibling (admins of the collection).',
  input: 'Where to move the collection: give `parentId`, `position` or both.',
  argument: 'Where to move the collection.',
  fields: {
    collectionId: inputField('ID', 'Platform id or global ID of the collection to move.', idInput('Collection')),
    ...moveTarget,
  },
  payload: CollectionPayload,
  run: (i, ctx) => collectionPayload(ctx, moveCollection(ctx.api, i.collectionId, moveBody(i))),
});

declareMutation('transferCollection', {
  description:
    'Moves a collection, with its nested collections and spaces, to the top level of another organization (admins of both). Team grants do not follow.',
  input: 'The collection and its new organization.',
  fields: {
    collectionId,
    organizationId: inputField('ID', 'Platform id or global ID of the target organization.', idInput('Organization')),
  },
  payload: CollectionPayload,
  run: (i, ctx) =>
    collectionPayload(ctx, transferCollection(ctx.api, i.collectionId, { organization: i.organizationId })),
});

import { z } from 'zod';
import { listConnection } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { platformKey } from './kit/ids.js';
import {
  type CollectionInvite,
  createCollection,
  deleteCollection,
  getCollection,
  inviteToCollection,
  listCollectionAccess,
  listCollections,
  listCollectionUsers,
  moveCollection,
  removeCollectionUser,
  transferCollection,
  updateCollection,
  updateCollectionUserPermission,
} from '../upstream/collections.js';
import type { Collection, UserContentPermission as UserPermission } from '../upstream/contract/types.js';
import { S } from '../upstream/contract/schemas.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { linkTo, loadableNode, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { organizationIdField, OrganizationNode } from './organizations.js';
import { DefaultLevelEnum, enumValues, RoleEnum } from './kit/enums.js';
import { deletedPayload, deletionOf, objectPayload, payloadType } from './kit/payloads.js';
import { idInput, readTeamId } from './kit/ids.js';
import { noNull, restBody } from './kit/mutations.js';
import { permissionsType } from './kit/permissions.js';
import { UserNode } from './users.js';

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

/** A `{ permission, user }` item of the collection permission lists. */
export const CollectionUserPermission = builder.objectRef<UserPermission>('CollectionUserPermission').implement({
  description: 'A user with their level of access to a collection.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Level of access of the user on the collection; null for a guest without a role.',
      resolve: (p) => p.permission,
    }),
    user: t.field({ type: UserNode, description: 'The user.', resolve: (p) => p.user }),
  }),
});

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
    users: t.connection(
      {
        type: CollectionUserPermission,
        description: 'Users granted access directly on this collection, with their role (by display name).',
        resolve: async (c, args, ctx) => {
          const connection = await listConnection(args, listCollectionUsers(ctx.api, c.id));
          prime(
            UserNode,
            ctx,
            connection.edges.map((edge) => edge.node.user),
          );
          return connection;
        },
      },
      {},
      { name: 'CollectionUsersEdge', description: 'An item of a connection with its cursor.' },
    ),
    accessibleBy: t.connection(
      {
        type: CollectionUserPermission,
        description:
          'Every member of the organization who can access this collection, with their effective role, however it was obtained (by display name).',
        args: {
          role: t.arg({ type: RoleEnum, description: 'Only the users whose effective role is exactly this one.' }),
        },
        resolve: async (c, args, ctx) => {
          const connection = await listConnection(
            args,
            listCollectionAccess(ctx.api, c.id, { role: args.role ?? undefined }),
          );
          prime(
            UserNode,
            ctx,
            connection.edges.map((edge) => edge.node.user),
          );
          return connection;
        },
      },
      {},
      { name: 'CollectionAccessibleByEdge', description: 'An item of a connection with its cursor.' },
    ),
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

const teamId = z
  .string({ message: 'must be the id of a team' })
  .trim()
  .min(1, 'must be the id of a team')
  .transform((value, ctx) => {
    // The REST body wants the team id, whatever organization a Team global ID names.
    const team = readTeamId(value);
    if (team) return team.teamId;
    ctx.addIssue({ code: 'custom', message: 'is not the id of a team' });
    return z.NEVER;
  });

const CollectionPayload = (mutation: string) =>
  objectPayload(mutation, 'collection', CollectionNode, 'The collection after the change.');

/** The payload of a write that answered the collection, the loader primed with it. */
async function collectionPayload(ctx: GatewayContext, written: Promise<Collection>) {
  const collection = await written;
  prime(CollectionNode, ctx, [collection]);
  return { collection };
}

const collectionId = inputField('ID', 'Platform id or global ID of the collection.', idInput('Collection'));

const collectionUser = {
  collectionId,
  userId: inputField('ID', 'Platform id or global ID of the user.', idInput('User')),
};

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

declareMutation('inviteToCollection', {
  description:
    'Grants users and teams a role directly on a collection, or with a null role removes their direct grants (admins of the collection). Users outside the organization join it as guests.',
  input: 'Who gets which role: at least one user or team.',
  argument: 'Who gets which role.',
  fields: {
    collectionId,
    role: inputField(
      RoleEnum,
      'Role to grant; required, null removes the direct grants of the listed users and teams.',
      z
        .enum(enumValues(S.MemberRole), { message: 'is required: a role, or null to remove the direct grants' })
        .nullable(),
    ),
    userIds: inputField(
      ['ID'],
      'Users (platform ids or global IDs), at most 100.',
      z.array(idInput('User')).max(100, 'at most 100 users at once').nullish(),
    ),
    teamIds: inputField(
      ['ID'],
      'Teams of the organization (platform ids or global IDs), at most 100.',
      z.array(teamId).max(100, 'at most 100 teams at once').nullish(),
    ),
  },
  check: (input) =>
    input.superRefine((value, ctx) => {
      if (!value.userIds?.length && !value.teamIds?.length) {
        ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'give at least one user or team' });
      }
    }),
  payload: CollectionPayload,
  run: async (i, ctx) => {
    const body: CollectionInvite = { role: i.role };
    if (i.userIds?.length) body.users = i.userIds;
    if (i.teamIds?.length) body.teams = i.teamIds;
    await inviteToCollection(ctx.api, i.collectionId, body);
    // The platform answers 204: the collection is read again only when selected.
    return { collection: i.collectionId };
  },
});

declareMutation('updateCollectionUserPermission', {
  description:
    'Sets the role a user is granted directly on a collection; null removes the grant (admins of the collection).',
  input: 'The user and their new role.',
  fields: {
    ...collectionUser,
    role: inputField(
      RoleEnum,
      'The role to grant; required, null removes the direct grant.',
      z
        .enum(enumValues(S.MemberRole), { message: 'is required: a role, or null to remove the direct grant' })
        .nullable(),
    ),
  },
  payload: (name) =>
    payloadType<{ collection: string; user: string }>(name, (p) => ({
      collection: p.field({
        type: CollectionNode,
        nullable: true,
        description: 'The collection.',
        extensions: upstream.link,
        resolve: (x) => x.collection ?? null,
      }),
      user: p.field({
        type: UserNode,
        nullable: true,
        description: 'The user.',
        extensions: upstream.link,
        resolve: (x) => x.user ?? null,
      }),
    })),
  run: async (i, ctx) => {
    await updateCollectionUserPermission(ctx.api, i.collectionId, i.userId, { role: i.role });
    return { collection: i.collectionId, user: i.userId };
  },
});

declareMutation('removeCollectionUser', {
  description:
    'Removes the role a user is granted directly on a collection; they keep what they inherit (admins of the collection).',
  input: 'The collection and the user.',
  fields: collectionUser,
  payload: (name) =>
    deletedPayload(name, 'True when the direct grant was removed, false when the user had none on the collection.'),
  run: (i, ctx) => removeCollectionUser(ctx.api, i.collectionId, i.userId),
});

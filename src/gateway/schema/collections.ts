import { z } from 'zod';
import { restList } from '../connections.js';
import type { GatewayContext } from '../context.js';
import { platformKey } from '../ids.js';
import { route } from '../rest/client.js';
import {
  collection as collectionShape,
  userPermission as userPermissionShape,
  type Collection,
  type UserPermission,
} from '../rest/shapes/collections.js';
import { ROLES } from '../rest/shapes/common.js';
import { upstream } from '../cost.js';
import { builder } from './builder.js';
import { linkTo, loadableNode, prime } from './loaders.js';
import { OrganizationNode } from './organizations.js';
import {
  DefaultLevelEnum,
  deletedPayload,
  idInput,
  mutate,
  noNull,
  objectPayload,
  payloadType,
  permissionsType,
  readTeamId,
  restBody,
  RoleEnum,
  sendDelete,
  type SchemaTypesOf,
} from './shared.js';
import { UserNode } from './users.js';

export const CollectionNode = loadableNode<Collection>('Collection', {
  load: (id, ctx) => ctx.api.get(route`/collections/${id}`, collectionShape),
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
    users: t.connection({
      type: CollectionUserPermission,
      description: 'Users granted access directly on this collection, with their role (by display name).',
      resolve: async (c, args, ctx) => {
        const connection = await restList(ctx, args, route`/collections/${c.id}/permissions/users`, userPermissionShape);
        prime(UserNode, ctx, connection.edges.map((edge) => edge.node.user));
        return connection;
      },
    }),
    accessibleBy: t.connection({
      type: CollectionUserPermission,
      description:
        'Every member of the organization who can access this collection, with their effective role, however it was obtained (by display name).',
      args: {
        role: t.arg({ type: RoleEnum, description: 'Only the users whose effective role is exactly this one.' }),
      },
      resolve: async (c, args, ctx) => {
        const path = route`/collections/${c.id}/permissions/aggregate`;
        const connection = await restList(ctx, args, path, userPermissionShape, { role: args.role ?? undefined });
        prime(UserNode, ctx, connection.edges.map((edge) => edge.node.user));
        return connection;
      },
    }),
  }),
});

builder.objectFields(OrganizationNode, (t) => ({
  collections: t.connection({
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
      const connection = await restList(ctx, args, route`/orgs/${org.id}/collections`, collectionShape, {
        nested: args.nested ?? true,
      });
      prime(CollectionNode, ctx, connection.edges.map((edge) => edge.node));
      return connection;
    },
  }),
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

export const MovePositionInput = builder.inputType('MovePositionInput', {
  description:
    'Where to put an item among the spaces and collections of its (new) parent: give exactly one of `before` or `after`.',
  fields: (t) => ({
    before: t.id({
      description: 'Put the item right before this sibling space or collection (global ID or platform id).',
    }),
    after: t.id({
      description: 'Put the item right after this sibling space or collection (global ID or platform id).',
    }),
  }),
});

const siblingId = idInput(['Space', 'Collection'], 'must be the id of a space or collection');

/**
 * Zod for MovePositionInput: exactly one of `before`/`after`, turned into the REST move
 * position (`{ before: { type: 'space', space: id } }`, `type` being `space` for collections too).
 */
export const movePositionInput = z
  .object({ before: siblingId.nullish(), after: siblingId.nullish() })
  .refine((p) => (p.before != null) !== (p.after != null), 'give exactly one of before or after')
  .transform((p) =>
    p.before != null
      ? { before: { type: 'space' as const, space: p.before } }
      : { after: { type: 'space' as const, space: p.after! } },
  );

/** Input fields of a move: the GraphQL side of `moveTarget`. */
export const moveTargetFields = (f: PothosSchemaTypes.InputFieldBuilder<SchemaTypesOf, 'InputObject'>) => ({
  parentId: f.id({
    description:
      'New parent collection (platform id or global ID); null moves it to the top level; left out keeps the parent.',
  }),
  position: f.field({
    type: MovePositionInput,
    description: 'Sibling to put it next to, under the (new) parent; last when left out.',
  }),
});

/** Zod fields of a move: the new parent collection (null: the top level) and the position. */
export const moveTarget = { parentId: idInput('Collection').nullish(), position: movePositionInput.nullish() };

/** The REST body of a move of a space or collection; BAD_USER_INPUT when it moves nothing. */
export function moveBody(input: { parentId?: string | null; position?: z.infer<typeof movePositionInput> | null }) {
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

/** Sends a write that answers the collection, and primes the loader with it. */
async function sendCollection(ctx: GatewayContext, method: 'POST' | 'PATCH', path: string, body: unknown) {
  const { data } = await ctx.api.send(method, path, { body, schema: collectionShape });
  prime(CollectionNode, ctx, [data]);
  return { collection: data };
}

const createCollectionSchema = z.object({
  organizationId: idInput('Organization'),
  title: collectionTitle.nullish(),
  parentId: idInput('Collection').nullish(),
});

const updateCollectionSchema = z
  .object({
    collectionId: idInput('Collection'),
    title: collectionTitle.nullish(),
    description: z.string().trim().max(100, 'must be at most 100 characters').nullish(),
    defaultLevel: z.enum(['inherit', ...ROLES]).nullish(),
  })
  .superRefine(noNull(['title', 'defaultLevel']));

const moveCollectionSchema = z.object({ collectionId: idInput('Collection'), ...moveTarget });

const inviteToCollectionSchema = z
  .object({
    collectionId: idInput('Collection'),
    role: z.enum(ROLES, { message: 'is required: a role, or null to remove the direct grants' }).nullable(),
    userIds: z.array(idInput('User')).max(100, 'at most 100 users at once').nullish(),
    teamIds: z.array(teamId).max(100, 'at most 100 teams at once').nullish(),
  })
  .superRefine((value, ctx) => {
    if (!value.userIds?.length && !value.teamIds?.length) {
      ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'give at least one user or team' });
    }
  });

const collectionUserSchema = z.object({ collectionId: idInput('Collection'), userId: idInput('User') });

builder.mutationFields((t) => ({
  createCollection: t.field({
    type: CollectionPayload('createCollection'),
    description: 'Creates a collection in an organization, at the top level or inside another collection (create role).',
    args: {
      input: t.arg({
        type: builder.inputType('CreateCollectionInput', {
          description: 'The collection to create.',
          fields: (f) => ({
            organizationId: f.id({ required: true, description: 'Platform id or global ID of the organization.' }),
            title: f.string({ description: 'Name, 1 to 50 characters (default `Untitled`).' }),
            parentId: f.id({ description: 'Collection to create it in (platform id or global ID); top level when left out.' }),
          }),
        }),
        required: true,
        description: 'The collection to create.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        createCollectionSchema,
        input,
        async (i) =>
          sendCollection(
            ctx,
            'POST',
            route`/orgs/${i.organizationId}/collections`,
            restBody({ title: i.title, parent: i.parentId }),
          ),
        ctx,
      ),
  }),
  updateCollection: t.field({
    type: CollectionPayload('updateCollection'),
    description: 'Changes the title, description or default level of a collection (admins of the collection).',
    args: {
      input: t.arg({
        type: builder.inputType('UpdateCollectionInput', {
          description: 'Changes to a collection; fields left out stay as they are.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
            title: f.string({ description: 'New name, 1 to 50 characters.' }),
            description: f.string({ description: 'New description, at most 100 characters; null removes it.' }),
            defaultLevel: f.field({
              type: DefaultLevelEnum,
              description: 'Level of access every member gets on it (INHERIT follows the parent).',
            }),
          }),
        }),
        required: true,
        description: 'What to change.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        updateCollectionSchema,
        input,
        async ({ collectionId, ...changes }) =>
          sendCollection(
            ctx,
            'PATCH',
            route`/collections/${collectionId}`,
            restBody(changes, { clearable: ['description'], required: 'Give at least one field to change' }),
          ),
        ctx,
      ),
  }),
  deleteCollection: t.field({
    type: deletedPayload('deleteCollection', 'True when the collection was deleted, false when it did not exist.'),
    description:
      'Deletes a collection and the collections nested in it; their spaces are deleted too and stay restorable for 7 days (admins).',
    args: {
      input: t.arg({
        type: builder.inputType('DeleteCollectionInput', {
          description: 'The collection to delete.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
          }),
        }),
        required: true,
        description: 'The collection to delete.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        z.object({ collectionId: idInput('Collection') }),
        input,
        async (i) => sendDelete(ctx, route`/collections/${i.collectionId}`),
        ctx,
      ),
  }),
  moveCollection: t.field({
    type: CollectionPayload('moveCollection'),
    description:
      'Moves a collection into another collection or to the top level, and/or next to a sibling (admins of the collection).',
    args: {
      input: t.arg({
        type: builder.inputType('MoveCollectionInput', {
          description: 'Where to move the collection: give `parentId`, `position` or both.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection to move.' }),
            ...moveTargetFields(f),
          }),
        }),
        required: true,
        description: 'Where to move the collection.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        moveCollectionSchema,
        input,
        async (i) => sendCollection(ctx, 'POST', route`/collections/${i.collectionId}/move`, moveBody(i)),
        ctx,
      ),
  }),
  transferCollection: t.field({
    type: CollectionPayload('transferCollection'),
    description:
      'Moves a collection, with its nested collections and spaces, to the top level of another organization (admins of both). Team grants do not follow.',
    args: {
      input: t.arg({
        type: builder.inputType('TransferCollectionInput', {
          description: 'The collection and its new organization.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
            organizationId: f.id({ required: true, description: 'Platform id or global ID of the target organization.' }),
          }),
        }),
        required: true,
        description: 'The collection and its new organization.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        z.object({ collectionId: idInput('Collection'), organizationId: idInput('Organization') }),
        input,
        async (i) =>
          sendCollection(ctx, 'POST', route`/collections/${i.collectionId}/transfer`, { organization: i.organizationId }),
        ctx,
      ),
  }),
  inviteToCollection: t.field({
    type: CollectionPayload('inviteToCollection'),
    description:
      'Grants users and teams a role directly on a collection, or with a null role removes their direct grants (admins of the collection). Users outside the organization join it as guests.',
    args: {
      input: t.arg({
        type: builder.inputType('InviteToCollectionInput', {
          description: 'Who gets which role: at least one user or team.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
            role: f.field({
              type: RoleEnum,
              description: 'Role to grant; required, null removes the direct grants of the listed users and teams.',
            }),
            userIds: f.idList({ description: 'Users (platform ids or global IDs), at most 100.' }),
            teamIds: f.idList({ description: 'Teams of the organization (platform ids or global IDs), at most 100.' }),
          }),
        }),
        required: true,
        description: 'Who gets which role.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        inviteToCollectionSchema,
        input,
        async (i) => {
          const body: Record<string, unknown> = { role: i.role };
          if (i.userIds?.length) body.users = i.userIds;
          if (i.teamIds?.length) body.teams = i.teamIds;
          await ctx.api.send('POST', route`/collections/${i.collectionId}/permissions`, { body });
          // The platform answers 204: the collection is read again only when selected.
          return { collection: i.collectionId };
        },
        ctx,
      ),
  }),
  updateCollectionUserPermission: t.field({
    type: payloadType<{ collection: string; user: string }>('updateCollectionUserPermission', (p) => ({
      collection: p.field({
        type: CollectionNode,
        nullable: true,
        description: 'The collection.',
        extensions: upstream.link,
        resolve: (x) => x.collection ?? null,
      }),
      user: p.field({ type: UserNode, nullable: true, description: 'The user.', extensions: upstream.link, resolve: (x) => x.user ?? null }),
    })),
    description:
      'Sets the role a user is granted directly on a collection; null removes the grant (admins of the collection).',
    args: {
      input: t.arg({
        type: builder.inputType('UpdateCollectionUserPermissionInput', {
          description: 'The user and their new role.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
            userId: f.id({ required: true, description: 'Platform id or global ID of the user.' }),
            role: f.field({ type: RoleEnum, description: 'The role to grant; required, null removes the direct grant.' }),
          }),
        }),
        required: true,
        description: 'The user and their new role.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        collectionUserSchema.extend({
          role: z.enum(ROLES, { message: 'is required: a role, or null to remove the direct grant' }).nullable(),
        }),
        input,
        async (i) => {
          await ctx.api.send('PATCH', route`/collections/${i.collectionId}/permissions/users/${i.userId}`, {
            body: { role: i.role },
          });
          return { collection: i.collectionId, user: i.userId };
        },
        ctx,
      ),
  }),
  removeCollectionUser: t.field({
    type: deletedPayload(
      'removeCollectionUser',
      'True when the direct grant was removed, false when the user had none on the collection.',
    ),
    description:
      'Removes the role a user is granted directly on a collection; they keep what they inherit (admins of the collection).',
    args: {
      input: t.arg({
        type: builder.inputType('RemoveCollectionUserInput', {
          description: 'The collection and the user.',
          fields: (f) => ({
            collectionId: f.id({ required: true, description: 'Platform id or global ID of the collection.' }),
            userId: f.id({ required: true, description: 'Platform id or global ID of the user.' }),
          }),
        }),
        required: true,
        description: 'The collection and the user.',
      }),
    },
    resolve: (_root, { input }, ctx) =>
      mutate(
        collectionUserSchema,
        input,
        async (i) => sendDelete(ctx, route`/collections/${i.collectionId}/permissions/users/${i.userId}`),
        ctx,
      ),
  }),
}));

import { decodeGlobalID } from '@pothos/plugin-relay';
import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import { restConnection } from '../connections.js';
import type { GatewayContext } from '../context.js';
import { BadUserInputError } from '../errors.js';
import { platformKey, splitKey } from '../ids.js';
import { selectsOnlyKeys } from '../links.js';
import { route } from '../rest/client.js';
import {
  collection as collectionShape,
  userPermission as userPermissionShape,
  type Collection,
  type UserPermission,
} from '../rest/shapes/collections.js';
import { page, ROLES } from '../rest/shapes/common.js';
import { builder } from './builder.js';
import { registerLoadable } from './loaders.js';
import { OrganizationNode, organizationLink } from './organizations.js';
import { DefaultLevelEnum, idInput, loadEach, mutate, payloadType, RoleEnum } from './shared.js';
import { primeUsers, UserNode } from './users.js';

export const CollectionNode = registerLoadable(
  builder.loadableNodeRef('Collection', {
    id: { resolve: (collection) => collection.id },
    load: (ids: string[], ctx: GatewayContext) =>
      loadEach(ids, (id) => ctx.api.get(route`/collections/${id}`, collectionShape)),
  }),
);

/** Puts collections that arrived in a list or a write answer into the by-id loader. */
export function primeCollections(ctx: GatewayContext, collections: Iterable<Collection>): void {
  const loader = CollectionNode.getDataloader(ctx);
  for (const collection of collections) loader.prime(collection.id, collection);
}

/** Resolves a field holding a collection id (a stub when only keys are selected). */
export function collectionLink(id: string | null | undefined, info: GraphQLResolveInfo): Collection | string | null {
  if (!id) return null;
  return selectsOnlyKeys(info) ? ({ id } as Collection) : id;
}

const CollectionUrls = builder.objectRef<Collection['urls']>('CollectionUrls').implement({
  description: 'Addresses of a collection.',
  fields: (t) => ({
    location: t.string({ nullable: true, description: 'URL in the REST API.', resolve: (u) => u.location ?? null }),
    app: t.string({ nullable: true, description: 'URL in the web app.', resolve: (u) => u.app ?? null }),
  }),
});

const CollectionPermissions = builder.objectRef<Collection['permissions']>('CollectionPermissions').implement({
  description: 'What you may do with a collection.',
  fields: (t) => {
    const flag = (name: keyof Collection['permissions'], description: string) =>
      t.boolean({ description, resolve: (p) => p[name] ?? false });
    return {
      view: flag('view', 'Can see the collection and its content.'),
      admin: flag('admin', 'Can change, move, transfer and delete the collection and manage its permissions.'),
      viewInviteLinks: flag('viewInviteLinks', 'Can see the invite links of the collection.'),
      create: flag('create', 'Can create spaces and collections inside it.'),
    };
  },
});

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
      resolve: (c, _args, _ctx, info) => organizationLink(c.organization, info)!,
    }),
    parent: t.field({
      type: CollectionNode,
      nullable: true,
      description: 'The collection this one is nested in; null at the top level of the organization.',
      resolve: (c, _args, _ctx, info) => collectionLink(c.parent, info),
    }),
    users: t.connection({
      type: CollectionUserPermission,
      description: 'Users granted access directly on this collection, with their role (by display name).',
      resolve: async (c, args, ctx) => {
        const connection = await restConnection(args, (pageToken, limit) =>
          ctx.api.get(route`/collections/${c.id}/permissions/users`, page(userPermissionShape), { page: pageToken, limit }),
        );
        primeUsers(ctx, connection.edges.map((edge) => edge.node.user));
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
        const connection = await restConnection(args, (pageToken, limit) =>
          ctx.api.get(route`/collections/${c.id}/permissions/aggregate`, page(userPermissionShape), {
            page: pageToken,
            limit,
            role: args.role ?? undefined,
          }),
        );
        primeUsers(ctx, connection.edges.map((edge) => edge.node.user));
        return connection;
      },
    }),
  }),
});

builder.objectFields(OrganizationNode, (t) => ({
  collections: t.connection({
    type: CollectionNode,
    description: 'Collections of the organization visible to you, in tree order (each followed by its nested ones).',
    args: {
      nested: t.arg.boolean({
        defaultValue: true,
        description: 'True lists nested collections too; false only those at the top level.',
      }),
    },
    resolve: async (org, args, ctx) => {
      const connection = await restConnection(args, (pageToken, limit) =>
        ctx.api.get(route`/orgs/${org.id}/collections`, page(collectionShape), {
          page: pageToken,
          limit,
          nested: args.nested ?? true,
        }),
      );
      primeCollections(ctx, connection.edges.map((edge) => edge.node));
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

/** Reads the id of a space or collection given as a global ID of either or as a platform id. */
function contentId(value: string): string {
  try {
    const decoded = decodeGlobalID(value);
    if ((decoded.typename === 'Space' || decoded.typename === 'Collection') && decoded.id.length > 0) return decoded.id;
  } catch {
    // not a global ID: a platform id
  }
  return value;
}

const siblingId = z
  .string({ message: 'must be the id of a space or collection' })
  .trim()
  .min(1, 'must be the id of a space or collection')
  .transform(contentId);

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
    let decoded: { typename: string; id: string } | undefined;
    try {
      decoded = decodeGlobalID(value);
    } catch {
      // not a global ID: a platform id
    }
    if (decoded?.typename !== 'Team') return value;
    try {
      // A Team's global ID holds `organizationId/teamId`: the REST body wants the team id.
      return splitKey(decoded.id, 2, 'Team')[1]!;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'is not the id of a team' });
      return z.NEVER;
    }
  });

const payloadName = (mutation: string) => `${mutation[0]!.toUpperCase()}${mutation.slice(1)}Payload`;

/** Payload of a mutation named `mutation`: `<Mutation>Payload`, with the collection. */
const CollectionPayload = (mutation: string) =>
  payloadType<{ collection: Collection | string }>(payloadName(mutation), `Result of ${mutation}.`, (t) => ({
    collection: t.field({
      type: CollectionNode,
      nullable: true,
      description: 'The collection after the change.',
      resolve: (p) => p.collection ?? null,
    }),
  }));

const DeletedPayload = (mutation: string, description: string) =>
  payloadType<{ deleted: boolean }>(payloadName(mutation), `Result of ${mutation}.`, (t) => ({
    deleted: t.boolean({ description, resolve: (p) => p.deleted ?? false }),
  }));

const noNull = (keys: readonly string[]) => (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const key of keys) {
    if (value[key] === null) ctx.addIssue({ code: 'custom', path: [key], message: 'cannot be null' });
  }
};

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

const moveCollectionSchema = z.object({
  collectionId: idInput('Collection'),
  parentId: idInput('Collection').nullish(),
  position: movePositionInput.nullish(),
});

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
        async (i) => {
          const body: Record<string, unknown> = {};
          if (i.title != null) body.title = i.title;
          if (i.parentId != null) body.parent = i.parentId;
          const { data } = await ctx.api.send('POST', route`/orgs/${i.organizationId}/collections`, {
            body,
            schema: collectionShape,
          });
          primeCollections(ctx, [data]);
          return { collection: data };
        },
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
        async (i) => {
          const body: Record<string, unknown> = {};
          if (i.title != null) body.title = i.title;
          if (i.description !== undefined) body.description = i.description;
          if (i.defaultLevel != null) body.defaultLevel = i.defaultLevel;
          if (Object.keys(body).length === 0) throw new BadUserInputError('Give at least one field to change');
          const { data } = await ctx.api.send('PATCH', route`/collections/${i.collectionId}`, {
            body,
            schema: collectionShape,
          });
          primeCollections(ctx, [data]);
          return { collection: data };
        },
        ctx,
      ),
  }),
  deleteCollection: t.field({
    type: DeletedPayload('deleteCollection', 'True when the collection was deleted, false when it did not exist.'),
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
        async (i) => {
          const { status } = await ctx.api.send('DELETE', route`/collections/${i.collectionId}`);
          return { deleted: status === 205 };
        },
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
            parentId: f.id({
              description:
                'New parent collection (platform id or global ID); null moves it to the top level; left out keeps the parent.',
            }),
            position: f.field({
              type: MovePositionInput,
              description: 'Sibling to put it next to, under the (new) parent; last when left out.',
            }),
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
        async (i) => {
          const body: Record<string, unknown> = {};
          if (i.parentId !== undefined) body.parent = i.parentId;
          if (i.position != null) body.position = i.position;
          if (Object.keys(body).length === 0) throw new BadUserInputError('Give parentId, position or both');
          const { data } = await ctx.api.send('POST', route`/collections/${i.collectionId}/move`, {
            body,
            schema: collectionShape,
          });
          primeCollections(ctx, [data]);
          return { collection: data };
        },
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
        async (i) => {
          const { data } = await ctx.api.send('POST', route`/collections/${i.collectionId}/transfer`, {
            body: { organization: i.organizationId },
            schema: collectionShape,
          });
          primeCollections(ctx, [data]);
          return { collection: data };
        },
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
    type: payloadType<{ collection: string; user: string }>(
      'UpdateCollectionUserPermissionPayload',
      'Result of updateCollectionUserPermission.',
      (p) => ({
        collection: p.field({
          type: CollectionNode,
          nullable: true,
          description: 'The collection.',
          resolve: (x) => x.collection ?? null,
        }),
        user: p.field({ type: UserNode, nullable: true, description: 'The user.', resolve: (x) => x.user ?? null }),
      }),
    ),
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
    type: DeletedPayload(
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
        async (i) => {
          const { status } = await ctx.api.send(
            'DELETE',
            route`/collections/${i.collectionId}/permissions/users/${i.userId}`,
          );
          return { deleted: status === 205 };
        },
        ctx,
      ),
  }),
}));

import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import type {
  Collection,
  Space,
  UserContentPermission,
  UserSitePermissionOverride,
} from '../upstream/contract/types.js';
import { S } from '../upstream/contract/schemas.js';
import {
  type AccessFilters,
  type AccessSource,
  type ContentItem,
  type Grantable,
  invite,
  type Invite,
  listAccess,
  listTeamPermissions,
  listUserPermissions,
  removeTeam,
  removeUser,
  sourcesOf,
  type TeamPermission,
  updateTeamPermission,
  updateUserPermission,
  type UserAccess,
} from '../upstream/permissions.js';
import { getCurrentUser } from '../upstream/users.js';
import { builder } from './kit/builder.js';
import { type ConnectionArgs, listConnection, mapNodes } from './kit/connections.js';
import { enumValues, restEnum, RoleEnum } from './kit/enums.js';
import { idInput, platformKey, teamIdInput } from './kit/ids.js';
import { linkTo, loadOrThrow, prime } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { deletedPayload, objectPayload, payloadType } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { GatewayError } from '../errors.js';
import { readOnce } from './content/revision.js';
import { CollectionNode } from './collections.js';
import { SpaceNode } from './spaces.js';
import { primeTeams, TeamNode, type TeamModel, teamLink } from './teams.js';
import { UserNode } from './users.js';

/**
 * Who has access to spaces, collections and sites, the same way for the three: `users` and `teams`
 * (their direct grants), `accessibleBy` (every member who can access it, with the sources of their
 * role), `effectiveAccess` (one member's), and for spaces and collections the mutations that grant,
 * change and remove access (admins of the item; a site's are in `sites/permissions.ts`).
 */

const AccessSourceTypeEnum = restEnum(
  'AccessSourceType',
  'Where a role on a space, a collection or a site comes from (a site knows ORGANIZATION, DIRECT and TEAM).',
  {
    organization:
      "The member's organization role: an organization admin administrates everything; another member's role applies where no level up the chain is set.",
    'default-level':
      'The default level of the item, or of the collection named by `collection` that holds it: every member (not guests) gets it instead of their organization role.',
    direct: 'A grant to the user on the item itself.',
    team: 'A grant on the item itself to the team named by `team`, which the user is in.',
    collection:
      'A grant on the collection named by `collection`, which holds the item, to the user or (when `team` is set) to a team they are in.',
  },
);

type SourceModel = AccessSource & { organizationId: string };

const AccessSourceType = builder.objectRef<SourceModel>('AccessSource').implement({
  description: 'One source of a role on a space, a collection or a site.',
  fields: (t) => ({
    type: t.field({ type: AccessSourceTypeEnum, description: 'What gives the role.', resolve: (s) => s.type }),
    role: t.field({ type: RoleEnum, description: 'The role this source gives.', resolve: (s) => s.role }),
    team: t.field({
      type: TeamNode,
      nullable: true,
      description: 'The team granted the role (TEAM, and COLLECTION through a team); null otherwise.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => (s.team ? teamLink(s.organizationId, s.team, info) : null),
    }),
    collection: t.field({
      type: CollectionNode,
      nullable: true,
      description:
        'The collection whose grant or default level passes the role down (COLLECTION, DEFAULT_LEVEL set up the chain); null otherwise.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(CollectionNode, s.collection, info),
    }),
  }),
});

/** A user granted a role directly on a space, a collection or a site (`users`). */
export const UserPermissionType = builder.objectRef<UserContentPermission | UserSitePermissionOverride>(
  'UserPermission',
);
UserPermissionType.implement({
  description: 'A user with the level of access granted to them directly on a space, a collection or a site.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Level of access granted to the user; null for a guest without a role.',
      resolve: (p) => p.permission,
    }),
    user: t.field({
      type: UserNode,
      description: 'The user (comes with the grant: costs no extra request).',
      resolve: (p) => p.user,
    }),
  }),
});

/** A member with access (`accessibleBy`, `effectiveAccess`), with the organization their teams are in. */
export type UserAccessModel = UserAccess & { organizationId: string };

/** A member with access to a space, a collection or a site: their role, its sources, when last seen. */
export const UserAccessType = builder.objectRef<UserAccessModel>('UserAccess').implement({
  description:
    'A member who can access a space, a collection or a site, with their role on it and where it comes from.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Their effective role on the item; null for a guest without a role.',
      resolve: (a) => a.permission,
    }),
    user: t.field({
      type: UserNode,
      description: 'The user (comes with the entry: costs no extra request).',
      resolve: (a, _args, ctx) => {
        prime(UserNode, ctx, [a.user]);
        return a.user;
      },
    }),
    sources: t.field({
      type: [AccessSourceType],
      nullable: true,
      description:
        'Where the role comes from, strongest first (the first gives the role); null when the platform does not say.',
      resolve: (a) => sourcesOf(a)?.map((s) => ({ ...s, organizationId: a.organizationId })) ?? null,
    }),
    lastSeenAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When they were last active in the organization; null if never, or when the platform does not say.',
      resolve: (a) => a.lastSeenAt ?? null,
    }),
  }),
});

/** A team granted a role directly on a space, a collection or a site (`teams`). */
export const TeamPermissionType = builder
  .objectRef<{ permission: TeamPermission['permission']; team: TeamModel }>('TeamPermission')
  .implement({
    description: 'A team with the level of access it is granted directly on a space, a collection or a site.',
    fields: (t) => ({
      role: t.field({
        type: RoleEnum,
        nullable: true,
        description: 'Level of access granted to the team (every member of the team holds it); null for none.',
        resolve: (p) => p.permission,
      }),
      team: t.field({
        type: TeamNode,
        description: 'The team (comes with the grant: costs no extra request).',
        resolve: (p) => p.team,
      }),
    }),
  });

/** The one connection of the users granted on an item (`users` of spaces, collections and sites). */
export const UserPermissionConnection = builder.connectionObject(
  {
    type: UserPermissionType,
    name: 'UserPermissionConnection',
    description: 'A page of the users granted a role directly on an item, with the size of the whole list.',
  },
  { name: 'UserPermissionEdge', description: 'A user granted a role, with its cursor.' },
);

/** The one connection of the teams granted on an item (`teams` of spaces, collections and sites). */
export const TeamPermissionConnection = builder.connectionObject(
  {
    type: TeamPermissionType,
    name: 'TeamPermissionConnection',
    description: 'A page of the teams granted a role directly on an item, with the size of the whole list.',
  },
  { name: 'TeamPermissionEdge', description: 'A team granted a role, with its cursor.' },
);

/** The one connection of who can access an item (`accessibleBy` of spaces, collections and sites). */
export const UserAccessConnection = builder.connectionObject(
  {
    type: UserAccessType,
    name: 'UserAccessConnection',
    description: 'A page of the members who can access an item, with the size of the whole list.',
  },
  { name: 'UserAccessEdge', description: 'A member with access, with its cursor.' },
);

/** The users granted on an item, as `users` answers them (the users primed for their links). */
export async function userPermissions(ctx: GatewayContext, at: Grantable, args: ConnectionArgs) {
  const connection = await listConnection(args, listUserPermissions(ctx.api, at));
  prime(
    UserNode,
    ctx,
    connection.edges.map((edge) => edge.node.user),
  );
  return connection;
}

/** The teams granted on an item of `organizationId`, as `teams` answers them (the teams primed). */
export async function teamPermissions(
  ctx: GatewayContext,
  at: Grantable,
  organizationId: string,
  args: ConnectionArgs,
) {
  const connection = await listConnection(args, listTeamPermissions(ctx.api, at));
  return mapNodes(connection, (items) => {
    const teams = primeTeams(
      ctx,
      organizationId,
      items.map((item) => item.team),
    );
    return items.map((item, index) => ({ permission: item.permission, team: teams[index]! }));
  });
}

/** Who can access an item of `organizationId`, as `accessibleBy` answers them. */
export async function accessibleBy(
  ctx: GatewayContext,
  at: Grantable,
  organizationId: string,
  args: ConnectionArgs,
  filters: AccessFilters,
) {
  const connection = await listConnection(args, listAccess(ctx.api, at, filters));
  return mapNodes(connection, (items) => items.map((item) => ({ ...item, organizationId })));
}

/** Members the aggregate answers per request of `effectiveAccess` (the REST maximum of `limit`). */
const ACCESS_PAGE = 1000;
/** Pages of the aggregate `effectiveAccess` reads at most: past them, it is refused rather than unbounded. */
const ACCESS_PAGES = 5;

/**
 * The description of `effectiveAccess` on a `noun`, and its declared cost: the field reads the whole
 * aggregate once per request and item (aliases and other users share it), a page of 1000 members
 * at a time, plus who you are when `userId` is left out.
 */
export const effectiveAccessField = (noun: string) => ({
  description: `The role a member (you when \`userId\` is left out) holds on the ${noun} and where it comes from; null when they cannot access it. Reads the list of \`accessibleBy\` once per request (a request per ${ACCESS_PAGE} members with access, at most ${ACCESS_PAGES}, and one for who you are): on a ${noun} with more members with access it is refused (BAD_USER_INPUT, \`limit: effectiveAccessMembers\`); page through \`accessibleBy\` instead. Who may not list \`accessibleBy\` is refused alike.`,
  extensions: upstream.fetch(1 + ACCESS_PAGES),
});

/**
 * One member's access to an item of `organizationId` (the caller's when `userId` is undefined), from
 * the aggregate read once per request and item: the one way `effectiveAccess` answers on spaces,
 * collections and sites.
 */
export async function effectiveAccess(
  ctx: GatewayContext,
  at: Grantable,
  organizationId: string,
  userId: string | undefined,
): Promise<UserAccessModel | null> {
  const wanted = userId ? platformKey(userId, 'User') : (await getCurrentUser(ctx.api)).id;
  const all = await readOnce(ctx, `access:${at.kind}:${organizationId}/${at.id}`, async () => {
    const pages = listAccess(ctx.api, at);
    const items: UserAccess[] = [];
    let token: string | undefined;
    for (let read = 0; read === 0 || token; read += 1) {
      if (read === ACCESS_PAGES) {
        const max = ACCESS_PAGES * ACCESS_PAGE;
        throw new GatewayError(
          'BAD_USER_INPUT',
          `effectiveAccess reads at most ${max} members with access, and this ${at.kind} has more: page through accessibleBy instead`,
          { budget: { limit: 'effectiveAccessMembers', value: max + 1, max } },
        );
      }
      const page = await pages.read(token, ACCESS_PAGE);
      items.push(...page.items);
      token = page.next?.page;
    }
    return items;
  });
  const found = all.find((item) => item.user.id === wanted);
  return found ? { ...found, organizationId } : null;
}

/** What differs between spaces and collections. */
interface Kind<T extends Space | Collection> {
  kind: ContentItem['kind'];
  /** The GraphQL type name. */
  type: 'Space' | 'Collection';
  noun: string;
  node: typeof SpaceNode | typeof CollectionNode;
  /** The organization of a loaded item. */
  organizationOf: (item: T) => string;
}

const KINDS = [
  {
    kind: 'space',
    type: 'Space',
    noun: 'space',
    node: SpaceNode,
    organizationOf: (space: Space) => space.organization,
  } satisfies Kind<Space>,
  {
    kind: 'collection',
    type: 'Collection',
    noun: 'collection',
    node: CollectionNode,
    organizationOf: (collection: Collection) => collection.organization,
  } satisfies Kind<Collection>,
] as const;

const roleOrRemove = (what: string) =>
  z.enum(enumValues(S.MemberRole), { message: `is required: a role, or null to remove ${what}` }).nullable();

for (const spec of KINDS) declarePermissions(spec as Kind<Space | Collection>);

function declarePermissions(spec: Kind<Space | Collection>): void {
  const { kind, type, noun } = spec;
  const node = spec.node as typeof SpaceNode;
  const field = kind;
  const at = (id: string) => ({ kind, id }) as ContentItem;

  builder.objectFields(node, (t) => ({
    users: t.connection(
      {
        type: UserPermissionType,
        description: `Users granted access directly on this ${noun}, with their role (by display name); members with a role on it (not guests) may list them.`,
        resolve: (item, args, ctx) => userPermissions(ctx, at(item.id), args),
      },
      UserPermissionConnection,
    ),
    teams: t.connection(
      {
        type: TeamPermissionType,
        description: `Teams granted access directly on this ${noun}, with their role (by title); members with a role on it (not guests) may list them.`,
        resolve: (item, args, ctx) => teamPermissions(ctx, at(item.id), spec.organizationOf(item), args),
      },
      TeamPermissionConnection,
    ),
    accessibleBy: t.connection(
      {
        type: UserAccessType,
        description: `Every member of the organization who can access this ${noun}, with their effective role and where it comes from (\`sources\`), by display name.`,
        args: {
          role: t.arg({ type: RoleEnum, description: 'Only the users whose effective role is exactly this one.' }),
        },
        resolve: (item, args, ctx) =>
          accessibleBy(ctx, at(item.id), spec.organizationOf(item), args, { role: args.role ?? undefined }),
      },
      UserAccessConnection,
    ),
    effectiveAccess: t.field({
      type: UserAccessType,
      nullable: true,
      ...effectiveAccessField(noun),
      args: { userId: t.arg.id({ description: 'The user: platform id or global ID (default: you).' }) },
      resolve: (item, args, ctx) =>
        effectiveAccess(ctx, at(item.id), spec.organizationOf(item), args.userId ? String(args.userId) : undefined),
    }),
  }));

  const itemId = inputField('ID', `Platform id or global ID of the ${noun}.`, idInput(type));
  const idField = `${kind}Id` as const;
  const userId = inputField('ID', 'Platform id or global ID of the user.', idInput('User'));
  const teamIdField = inputField(
    'ID',
    'Team global ID, or the platform id of a team of the organization.',
    teamIdInput,
  );
  // The id field is named for the kind (`spaceId`, `collectionId`): typed under one name here.
  const keyed = { [idField]: itemId } as { item: typeof itemId };
  const idOf = (input: object) => (input as Record<string, string>)[idField]!;
  const itemOf = (input: object) => at(idOf(input));
  const itemPayload = (name: string) =>
    objectPayload(name, field, node, `The ${noun}.`) as ReturnType<typeof objectPayload<'space', typeof SpaceNode>>;
  const admins = `admins of the ${noun}`;

  declareMutation(`inviteTo${type}`, {
    description: `Grants users and teams a role directly on a ${noun}, or with a null role removes their direct grants (${admins}). Users outside the organization join it as guests.`,
    input: 'Who gets which role: at least one user or team.',
    argument: 'Who gets which role.',
    fields: {
      ...keyed,
      role: inputField(
        RoleEnum,
        'Role to grant; required, null removes the direct grants of the listed users and teams.',
        roleOrRemove('the direct grants'),
      ),
      userIds: inputField(
        ['ID'],
        'Users (platform ids or global IDs), at most 100.',
        z.array(idInput('User')).max(100, 'at most 100 users at once').nullish(),
      ),
      teamIds: inputField(
        ['ID'],
        'Teams of the organization (platform ids or global IDs), at most 100.',
        z.array(teamIdInput).max(100, 'at most 100 teams at once').nullish(),
      ),
    },
    check: (input) =>
      input.superRefine((value, ctx) => {
        if (!value.userIds?.length && !value.teamIds?.length) {
          ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'give at least one user or team' });
        }
      }),
    payload: itemPayload,
    // The write, then the item when the payload selects it (the platform answers 204).
    extensions: upstream.fetch(2),
    run: async (i, ctx) => {
      const body: Invite = { role: i.role };
      if (i.userIds?.length) body.users = i.userIds;
      if (i.teamIds?.length) body.teams = i.teamIds;
      await invite(ctx.api, itemOf(i), body);
      // The platform answers 204: the item is read again only when selected.
      return { [field]: idOf(i) } as never;
    },
  });

  declareMutation(`update${type}UserPermission`, {
    description: `Sets the role a user is granted directly on a ${noun}; null removes the grant (${admins}).`,
    input: 'The user and their new role.',
    fields: {
      ...keyed,
      userId,
      role: inputField(
        RoleEnum,
        'The role to grant; required, null removes the direct grant.',
        roleOrRemove('the direct grant'),
      ),
    },
    payload: (name) =>
      payloadType<{ item: string; user: string }>(name, (p) => ({
        [field]: p.field({
          type: node,
          nullable: true,
          description: `The ${noun}.`,
          extensions: upstream.link,
          resolve: (x) => x.item ?? null,
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
      await updateUserPermission(ctx.api, itemOf(i), i.userId, i.role);
      return { item: idOf(i), user: i.userId };
    },
  });

  declareMutation(`remove${type}User`, {
    description: `Removes the role a user is granted directly on a ${noun}; they keep what they inherit (${admins}).`,
    input: `The ${noun} and the user.`,
    fields: { ...keyed, userId },
    payload: (name) =>
      deletedPayload(name, `True when the direct grant was removed, false when the user had none on the ${noun}.`),
    run: (i, ctx) => removeUser(ctx.api, itemOf(i), i.userId),
  });

  declareMutation(`update${type}TeamPermission`, {
    description: `Sets the role a team of the organization is granted directly on a ${noun}; null removes the grant (${admins}).`,
    input: 'The team and its new role.',
    fields: {
      ...keyed,
      teamId: teamIdField,
      role: inputField(
        RoleEnum,
        'The role to grant; required, null removes the direct grant.',
        roleOrRemove('the direct grant'),
      ),
    },
    payload: (name) =>
      payloadType<{ item: string; team: string }>(name, (p) => ({
        [field]: p.field({
          type: node,
          nullable: true,
          description: `The ${noun}.`,
          extensions: upstream.link,
          resolve: (x) => x.item ?? null,
        }),
        team: p.field({
          type: TeamNode,
          nullable: true,
          description: `The team, in the organization of the ${noun} (which is read for it).`,
          extensions: upstream.fetch(2),
          resolve: (x, _args, ctx, info) => (x.team && x.item ? teamOf(spec, x.item, x.team, ctx, info) : null),
        }),
      })),
    run: async (i, ctx) => {
      await updateTeamPermission(ctx.api, itemOf(i), i.teamId, i.role);
      return { item: idOf(i), team: i.teamId };
    },
  });

  declareMutation(`remove${type}Team`, {
    description: `Removes the role a team is granted directly on a ${noun}; its members keep what they have otherwise (${admins}).`,
    input: `The ${noun} and the team.`,
    fields: { ...keyed, teamId: teamIdField },
    payload: (name) =>
      deletedPayload(name, `True when the direct grant was removed, false when the team had none on the ${noun}.`),
    run: (i, ctx) => removeTeam(ctx.api, itemOf(i), i.teamId),
  });
}

/** The team of a team write: its node in the organization of the item it was granted on. */
async function teamOf(
  spec: Kind<Space | Collection>,
  itemId: string,
  teamId: string,
  ctx: GatewayContext,
  info: GraphQLResolveInfo,
) {
  const item = await loadOrThrow(spec.node as typeof SpaceNode, ctx, itemId);
  return teamLink(spec.organizationOf(item), teamId, info);
}

import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { BadUserInputError } from '../errors.js';
import { compositeKey, platformKey } from './kit/ids.js';
import { S } from '../upstream/contract/schemas.js';
import {
  getMember,
  listMembers,
  listMemberSpaces,
  listMemberTeams,
  listTeamMembers,
  pingOrganization,
  removeMember,
  setMemberSso,
  updateMember,
} from '../upstream/members.js';
import type {
  OrganizationMember as Member,
  MemberContentPermission as MemberSpacePermissionModel,
  OrganizationTeamMember as TeamMember,
  TeamMemberRole as TeamRole,
} from '../upstream/contract/types.js';
import { getCurrentUser } from '../upstream/users.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { linkTo, organizationNode, prime, primeInOrganization, type InOrganization } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { organizationIdField, OrganizationNode } from './organizations.js';
import { deletedPayload, objectPayload, payloadType } from './kit/payloads.js';
import { idInput } from './kit/ids.js';
import { enumValues, OrderEnum, restEnum, ROLE_DESCRIPTIONS, RoleEnum, TeamRoleEnum } from './kit/enums.js';
import { permissionsType } from './kit/permissions.js';
import { primeTeams, TeamNode, type TeamModel } from './teams.js';
import { SpaceNode } from './spaces.js';
import { UserNode } from './users.js';

/** A member as the gateway holds it: the REST member plus the organization it was read from. */
export type MemberModel = InOrganization<Member>;

export const MemberNode = organizationNode('Member', async (organizationId, userId, ctx) => {
  const member = await getMember(ctx.api, organizationId, userId);
  prime(UserNode, ctx, [member.user]);
  return member;
});

/** Puts members of `organizationId` that arrived in a list (and their users) into the loaders. */
export function primeMembers(ctx: GatewayContext, organizationId: string, members: Iterable<Member>): MemberModel[] {
  const models = primeInOrganization(MemberNode, ctx, organizationId, members);
  prime(
    UserNode,
    ctx,
    models.map((model) => model.user),
  );
  return models;
}

/** The loader key of your own membership of `organizationId` (reads who you are). */
async function viewerMemberKey(ctx: GatewayContext, organizationId: string): Promise<string> {
  const viewer = await getCurrentUser(ctx.api);
  prime(UserNode, ctx, [viewer]);
  return compositeKey(organizationId, viewer.id);
}

/** The loader key of a member, from an organization and a user given by a client (ids or global IDs). */
function memberKey(organizationId: string, userId: string): string {
  return compositeKey(platformKey(organizationId, 'Organization'), platformKey(userId, 'User'));
}

export const MemberRoleFilterEnum = restEnum('MemberRoleFilter', 'Which members to list, by organization role.', {
  ...ROLE_DESCRIPTIONS,
  guest: 'Guests: people with no organization role, who only see what was shared with them.',
});

export const MemberSortEnum = builder.enumType('MemberSort', {
  description: 'What members are ordered by.',
  values: {
    JOINED_AT: { value: 'joinedAt', description: 'When they joined the organization.' },
    LAST_SEEN_AT: { value: 'lastSeenAt', description: 'When they were last active; members never seen are left out.' },
    NAME: { value: 'name', description: 'Their display name.' },
  },
} as const);

MemberNode.implement({
  description: 'Membership of a user in an organization, with their organization role.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the member on the platform: the id of the user.' }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Organization role; null for a guest.',
      resolve: (member) => member.role,
    }),
    isGuest: t.boolean({
      description: 'True for a guest: no organization role, access only to what was shared with them.',
      resolve: (member) => member.role === null,
    }),
    disabled: t.exposeBoolean('disabled', { description: 'True when the membership is disabled.' }),
    joinedAt: t.field({
      type: 'DateTime',
      description: 'When they joined the organization.',
      resolve: (m) => m.joinedAt,
    }),
    lastSeenAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When they were last active in the organization; null if never.',
      resolve: (m) => m.lastSeenAt ?? null,
    }),
    sso: t.exposeBoolean('sso', { description: 'True when they joined through single sign-on.' }),
    spaceCount: t.exposeInt('spaces', { description: 'Number of spaces shared with them directly.' }),
    teamCount: t.exposeInt('teams', { description: 'Number of teams of the organization they belong to.' }),
    user: t.field({
      type: UserNode,
      description: 'The user (comes with the member: costs no extra request).',
      resolve: (member, _args, ctx) => {
        prime(UserNode, ctx, [member.user]);
        return member.user;
      },
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization.',
      extensions: upstream.link,
      resolve: (member, _args, _ctx, info) => linkTo(OrganizationNode, member.organizationId, info),
    }),
  }),
});

type MemberTeamModel = { role: TeamRole; team: TeamModel };

const MemberTeamMembership = builder.objectRef<MemberTeamModel>('MemberTeamMembership').implement({
  description: 'A team a member belongs to, with their role in it.',
  fields: (t) => ({
    role: t.field({ type: TeamRoleEnum, description: 'Role of the member in the team.', resolve: (m) => m.role }),
    team: t.field({ type: TeamNode, description: 'The team.', resolve: (m) => m.team }),
  }),
});

const MemberSpacePermission = builder.objectRef<MemberSpacePermissionModel>('MemberSpacePermission').implement({
  description: 'A space a member can access, with their effective role on it.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      description: 'Effective role of the member on the space, however it was obtained.',
      resolve: (p) => p.permission,
    }),
    space: t.field({ type: SpaceNode, description: 'The space.', resolve: (p) => p.space }),
  }),
});

builder.objectFields(MemberNode, (t) => ({
  spaces: t.connection(
    {
      type: MemberSpacePermission,
      nullable: true,
      description:
        'Spaces of the organization the member can access, by creation date (admins, or yourself; otherwise FORBIDDEN).',
      args: {
        order: t.arg({
          type: OrderEnum,
          description: 'Direction of the ordering by creation date (default DESC: newest first).',
        }),
      },
      resolve: async (member, args, ctx) => {
        const connection = await listConnection(
          args,
          listMemberSpaces(ctx.api, member.organizationId, member.id, { order: args.order ?? undefined }),
        );
        prime(
          SpaceNode,
          ctx,
          connection.edges.map((edge) => edge.node.space),
        );
        return connection;
      },
    },
    {},
    { name: 'MemberSpacesEdge', description: 'An item of a connection with its cursor.' },
  ),
  teams: t.connection(
    {
      type: MemberTeamMembership,
      nullable: true,
      description: 'Teams of the organization the member belongs to, by title (guests may not list them: FORBIDDEN).',
      args: {
        title: t.arg.string({ description: 'Only teams whose title contains this text (case-insensitive).' }),
      },
      resolve: async (member, args, ctx) => {
        const connection = await listConnection(
          args,
          listMemberTeams(ctx.api, member.organizationId, member.id, { title: args.title ?? undefined }),
        );
        return mapNodes(connection, (nodes) => {
          const teams = primeTeams(
            ctx,
            member.organizationId,
            nodes.map((node) => node.team),
          );
          return nodes.map((node, index) => ({ role: node.member.role, team: teams[index]! }));
        });
      },
    },
    {},
    { name: 'MemberTeamsEdge', description: 'An item of a connection with its cursor.' },
  ),
}));

type TeamMembershipModel = { role: TeamRole; member: MemberModel; permissions: TeamMember['permissions'] };

const TeamMembershipPermissions = permissionsType<TeamMember['permissions']>(
  'TeamMembershipPermissions',
  'What you may do with a membership of a team.',
  { view: 'Can see the membership.' },
);

const TeamMembership = builder.objectRef<TeamMembershipModel>('TeamMembership').implement({
  description: 'A member of a team, with their role in it.',
  fields: (t) => ({
    role: t.field({ type: TeamRoleEnum, description: 'Role in the team.', resolve: (m) => m.role }),
    member: t.field({ type: MemberNode, description: 'The organization member.', resolve: (m) => m.member }),
    permissions: t.field({
      type: TeamMembershipPermissions,
      description: 'What you may do with this membership.',
      resolve: (m) => m.permissions,
    }),
  }),
});

builder.objectFields(TeamNode, (t) => ({
  members: t.connection(
    {
      type: TeamMembership,
      nullable: true,
      description: 'Members of the team, by display name.',
      resolve: async (team, args, ctx) => {
        const connection = await listConnection(args, listTeamMembers(ctx.api, team.organizationId, team.id));
        return mapNodes(connection, (nodes) => {
          const members = primeMembers(
            ctx,
            team.organizationId,
            nodes.map((node) => node.organization),
          );
          return nodes.map((node, index) => ({
            role: node.team.role,
            member: members[index]!,
            permissions: node.permissions,
          }));
        });
      },
    },
    {},
    { name: 'TeamMembersEdge', description: 'An item of a connection with its cursor.' },
  ),
}));

const MAX_SEARCH = 512;

builder.objectFields(OrganizationNode, (t) => ({
  members: t.connection(
    {
      type: MemberNode,
      nullable: true,
      description: 'Members of the organization, guests included (guests may not list them: FORBIDDEN).',
      args: {
        role: t.arg({ type: MemberRoleFilterEnum, description: 'Only members with this role (GUEST: only guests).' }),
        search: t.arg.string({
          description: `Only members whose display name or e-mail contains this text (case-insensitive, at most ${MAX_SEARCH} characters).`,
        }),
        sort: t.arg({
          type: MemberSortEnum,
          description: 'What to order by (default JOINED_AT). LAST_SEEN_AT leaves out members never seen.',
        }),
        order: t.arg({ type: OrderEnum, description: 'Direction of the ordering (default DESC).' }),
      },
      resolve: async (org, args, ctx) => {
        if (args.search != null && args.search.length > MAX_SEARCH) {
          throw new BadUserInputError(`\`search\` must be at most ${MAX_SEARCH} characters`, ['search']);
        }
        const connection = await listConnection(
          args,
          listMembers(ctx.api, org.id, {
            role: args.role ?? undefined,
            search: args.search ?? undefined,
            sort: args.sort ?? undefined,
            order: args.order ?? undefined,
          }),
        );
        return mapNodes(connection, (members) => primeMembers(ctx, org.id, members));
      },
    },
    {},
    { name: 'OrganizationMembersEdge', description: 'An item of a connection with its cursor.' },
  ),
  viewerMembership: t.field({
    type: MemberNode,
    nullable: true,
    description: 'Your own membership of the organization.',
    // Who you are, then your membership.
    extensions: upstream.fetch(2),
    resolve: (org, _args, ctx) => viewerMemberKey(ctx, org.id),
  }),
}));

builder.queryFields((t) => ({
  member: t.field({
    type: MemberNode,
    nullable: true,
    description:
      'A member of an organization; null with NOT_FOUND when they are not a member or it is not visible to you.',
    args: {
      organizationId: t.arg.id({ required: true, description: 'Platform id or global ID of the organization.' }),
      userId: t.arg.id({ required: true, description: 'User id or User global ID of the member.' }),
    },
    resolve: (_root, args) => memberKey(String(args.organizationId), String(args.userId)),
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const MemberPayload = (mutation: string) =>
  objectPayload(mutation, 'member', MemberNode, 'The member after the change.');

/** The payload of a write that answered a member of `organizationId`, the loaders primed with it. */
async function memberPayload(ctx: GatewayContext, organizationId: string, written: Promise<Member>) {
  return { member: primeMembers(ctx, organizationId, [await written])[0]! };
}

const memberTarget = {
  organizationId: organizationIdField,
  userId: inputField('ID', 'User id or User global ID of the member.', idInput('User')),
};

declareMutation('updateMember', {
  description:
    'Changes the organization role of a member, or makes them a guest with `role: null` (admins). The last admin cannot be demoted (CONFLICT).',
  input: 'The member and their new role.',
  fields: {
    ...memberTarget,
    role: inputField(
      RoleEnum,
      'The new role; must be given: null explicitly makes the member a guest.',
      z
        .enum(enumValues(S.MemberRole), { error: 'must be given: a role, or null to make the member a guest' })
        .nullable(),
    ),
  },
  payload: MemberPayload,
  run: (i, ctx) =>
    memberPayload(ctx, i.organizationId, updateMember(ctx.api, i.organizationId, i.userId, { role: i.role })),
});

declareMutation('removeMember', {
  description:
    'Removes a member from an organization, with their team memberships and direct grants (admins; anyone may remove themselves). The last admin cannot be removed (CONFLICT).',
  input: 'The member to remove.',
  fields: memberTarget,
  payload: (name) =>
    deletedPayload<{ removalRequested: boolean }>(
      name,
      'True when the member was removed, false when they were not a member.',
      (p) => ({
        removalRequested: p.boolean({
          description:
            'True when the platform did not remove the member but sent the request to the organization admins.',
          resolve: (x) => x.removalRequested ?? false,
        }),
      }),
    ),
  run: async (i, ctx) => {
    const { status } = await removeMember(ctx.api, i.organizationId, i.userId);
    return { deleted: status === 205, removalRequested: status === 202 };
  },
});

declareMutation('pingOrganization', {
  description: 'Records that you are active in an organization now (updates your `lastSeenAt`).',
  input: 'The organization you are active in.',
  fields: { organizationId: organizationIdField },
  payload: (name) =>
    payloadType<{ serviceVisitorClaims: string | null; organizationId: string }>(name, (p) => ({
      serviceVisitorClaims: p.string({
        nullable: true,
        description: 'A token the platform may hand out to attach to the user (visitor claims, a JWT); null when none.',
        resolve: (x) => x.serviceVisitorClaims ?? null,
      }),
      member: p.field({
        type: MemberNode,
        nullable: true,
        description: 'Your membership after the ping (fetched only when selected).',
        extensions: upstream.fetch(2),
        resolve: (x, _args, ctx) => (x.organizationId ? viewerMemberKey(ctx, x.organizationId) : null),
      }),
    })),
  run: async (i, ctx) => {
    const data = await pingOrganization(ctx.api, i.organizationId);
    return {
      serviceVisitorClaims: data?.serviceVisitorClaims ?? null,
      organizationId: i.organizationId,
    };
  },
});

declareMutation('setMemberSso', {
  description:
    'Makes a user an SSO member of an organization, adding them with the default role when they are not a member yet (admins).',
  input: 'The organization and the user.',
  fields: {
    organizationId: organizationIdField,
    userId: inputField('ID', 'User id or User global ID.', idInput('User')),
  },
  payload: MemberPayload,
  run: (i, ctx) => memberPayload(ctx, i.organizationId, setMemberSso(ctx.api, i.organizationId, i.userId)),
});

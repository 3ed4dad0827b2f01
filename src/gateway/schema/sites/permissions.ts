import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import * as op from '../../upstream/contract/operations.js';
import { S } from '../../upstream/contract/schemas.js';
import type {
  InviteSiteUsersAndTeams,
  TeamSitePermissionOverride,
  UserSitePermission,
  UserSitePermissionOverride,
} from '../../upstream/contract/types.js';
import { deleteOf, listOf } from '../../upstream/operation.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { builder } from '../kit/builder.js';
import { listConnection, mapNodes } from '../kit/connections.js';
import { enumValues, OrderEnum, restEnum, RoleEnum } from '../kit/enums.js';
import { idInput, platformKey, readTeamId } from '../kit/ids.js';
import { linkTo, prime } from '../kit/loaders.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { deletedPayload, payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { readOnce } from '../content/revision.js';
import { MemberRoleFilterEnum, MemberSortEnum } from '../members.js';
import { primeTeams, TeamNode, teamLink, type TeamModel } from '../teams.js';
import { UserNode } from '../users.js';
import { getCurrentUser } from '../../upstream/users.js';
import { inSite, siteAfter, siteTarget } from './mutations.js';
import { SiteRef, siteKey } from './site.js';

/**
 * Who may do what with a docs site (`Site.permissions` says what you may do): `Site.accessibleBy` (every member with access, their role and
 * where it comes from), `Site.userGrants` and `Site.teamGrants` (the roles granted on the site
 * itself), `Site.effectiveAccess` (one user's role and its source), and the mutations that grant,
 * change and remove roles on a site. A grant raises what its holders may do on the site at once.
 */

// --- Where access comes from ---------------------------------------------------------------------

const SourceEnum = restEnum('SiteAccessSource', 'Where a member’s role on a site comes from.', {
  organization: 'Their organization role (organization admins administrate every site).',
  team: 'A role granted on the site to a team they belong to (`team` names it).',
  direct: 'A role granted on the site to them directly.',
  space: 'Their role on a space the site publishes.',
  default: 'The level the site gives every member.',
});

type SiteAccessHeld = UserSitePermission & { organizationId: string };
type Source = 'organization' | 'team' | 'direct' | 'space' | 'default';

function sourceOf(origin: UserSitePermission['origin']): Source {
  if (origin.type !== 'site') return origin.type;
  return origin.reason === 'member' ? 'direct' : origin.reason;
}

const SiteAccess = builder.objectRef<SiteAccessHeld>('SiteAccess').implement({
  description: 'A member who may read a site, with their role on it and where that role comes from.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Their role on the site; null for a guest.',
      resolve: (a) => a.permission,
    }),
    source: t.field({
      type: SourceEnum,
      description: 'Where the role comes from.',
      resolve: (a) => sourceOf(a.origin),
    }),
    user: t.field({
      type: UserNode,
      description: 'The user (comes with the entry: costs no extra request).',
      resolve: (a, _args, ctx) => {
        prime(UserNode, ctx, [a.user]);
        return a.user;
      },
    }),
    team: t.field({
      type: TeamNode,
      nullable: true,
      description: 'The team whose grant gives the role, for TEAM; null otherwise.',
      extensions: upstream.link,
      resolve: (a, _args, _ctx, info) =>
        a.origin.type === 'site' && a.origin.team ? teamLink(a.organizationId, a.origin.team, info) : null,
    }),
    disabled: t.exposeBoolean('disabled', { description: 'True when their membership is disabled.' }),
    lastSeenAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When they were last active; null if never.',
      resolve: (a) => a.lastSeenAt ?? null,
    }),
  }),
});

const SiteUserGrant = builder.objectRef<UserSitePermissionOverride>('SiteUserGrant').implement({
  description: 'A role granted on a site to one user.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'The role granted.',
      resolve: (g) => g.permission,
    }),
    user: t.field({
      type: UserNode,
      description: 'The user (comes with the grant: costs no extra request).',
      resolve: (g) => g.user,
    }),
  }),
});

type TeamGrantHeld = Omit<TeamSitePermissionOverride, 'team'> & { team: TeamModel };

const SiteTeamGrant = builder.objectRef<TeamGrantHeld>('SiteTeamGrant').implement({
  description: 'A role granted on a site to a team: every member of the team holds it.',
  fields: (t) => ({
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'The role granted.',
      resolve: (g) => g.permission,
    }),
    team: t.field({
      type: TeamNode,
      description: 'The team (comes with the grant: costs no extra request).',
      resolve: (g) => g.team,
    }),
  }),
});

/** Everyone with access to a site, read once per request (for `effectiveAccess`). */
function readAudience(ctx: GatewayContext, at: SiteAddress): Promise<SiteAccessHeld[]> {
  return readOnce(ctx, `site-access:${siteKey(at.organizationId, at.siteId)}`, async () => {
    const all: SiteAccessHeld[] = [];
    let page: string | undefined;
    do {
      const answer = await ctx.api.read(op.listPermissionsAggregateInSite, at, { limit: 1000, page, sort: 'name' });
      all.push(...answer.items.map((item) => ({ ...item, organizationId: at.organizationId })));
      page = answer.next?.page;
    } while (page);
    return all;
  });
}

builder.objectFields(SiteRef, (t) => ({
  accessibleBy: t.connection(
    {
      type: SiteAccess,
      nullable: true,
      description:
        'Every member who may read the site, with their role and where it comes from (their organization role, a team’s grant or their own); null with FORBIDDEN for guests.',
      args: {
        role: t.arg({ type: MemberRoleFilterEnum, description: 'Only those whose role on the site is this one.' }),
        search: t.arg.string({ description: 'Only those whose name or e-mail address contains this text.' }),
        teamId: t.arg.id({ description: 'Only the members of this team (global ID or platform id).' }),
        sort: t.arg({ type: MemberSortEnum, description: 'What they are ordered by (default JOINED_AT).' }),
        order: t.arg({ type: OrderEnum, description: 'Direction of the order (default DESC).' }),
      },
      resolve: async (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        const team = args.teamId ? readTeamId(String(args.teamId)) : undefined;
        const connection = await listConnection(
          args,
          listOf(ctx.api, op.listPermissionsAggregateInSite, at, {
            role: args.role ?? undefined,
            search: args.search ?? undefined,
            team: team?.teamId ?? (args.teamId ? String(args.teamId) : undefined),
            sort: args.sort ?? undefined,
            order: args.order ?? undefined,
          }),
        );
        return mapNodes(connection, (items) => items.map((item) => ({ ...item, organizationId: at.organizationId })));
      },
    },
    {
      name: 'SiteAccessConnection',
      description: 'A page of the members with access to a site, with the size of the whole list.',
    },
    { name: 'SiteAccessEdge', description: 'A member with access to a site, with its cursor.' },
  ),
  userGrants: t.connection(
    {
      type: SiteUserGrant,
      nullable: true,
      description: 'The roles granted on the site to users, by name; null with FORBIDDEN for guests.',
      resolve: async (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        const connection = await listConnection(args, listOf(ctx.api, op.listUserPermissionsInSite, at));
        prime(
          UserNode,
          ctx,
          connection.edges.map((edge) => edge.node.user),
        );
        return connection;
      },
    },
    {
      name: 'SiteUserGrantConnection',
      description: 'A page of the roles granted on a site to users, with the size of the whole list.',
    },
    { name: 'SiteUserGrantEdge', description: 'A role granted to a user, with its cursor.' },
  ),
  teamGrants: t.connection(
    {
      type: SiteTeamGrant,
      nullable: true,
      description: 'The roles granted on the site to teams, by title; null with FORBIDDEN for guests.',
      resolve: async (s, args, ctx) => {
        const at = { organizationId: s.organizationId, siteId: s.id };
        const connection = await listConnection(args, listOf(ctx.api, op.listTeamPermissionsInSite, at));
        return mapNodes(connection, (items) => {
          const teams = primeTeams(
            ctx,
            at.organizationId,
            items.map((item) => item.team),
          );
          return items.map((item, index) => ({ permission: item.permission, team: teams[index]! }));
        });
      },
    },
    {
      name: 'SiteTeamGrantConnection',
      description: 'A page of the roles granted on a site to teams, with the size of the whole list.',
    },
    { name: 'SiteTeamGrantEdge', description: 'A role granted to a team, with its cursor.' },
  ),
  effectiveAccess: t.field({
    type: SiteAccess,
    nullable: true,
    description:
      'The role a member (you when `userId` is left out) holds on the site and where it comes from; null when they may not read it. Reads the list of `accessibleBy` (a request per 1000 members with access, and one for who you are); guests are refused (FORBIDDEN).',
    args: { userId: t.arg.id({ description: 'The user: platform id or global ID (default: you).' }) },
    extensions: upstream.fetch(2),
    resolve: async (s, args, ctx) => {
      const at = { organizationId: s.organizationId, siteId: s.id };
      const userId = args.userId ? platformKey(String(args.userId), 'User') : (await getCurrentUser(ctx.api)).id;
      return (await readAudience(ctx, at)).find((entry) => entry.user.id === userId) ?? null;
    },
  }),
}));

// --- Mutations -----------------------------------------------------------------------------------

const role = (what: string) =>
  inputField(
    RoleEnum,
    `The role to grant; required, null removes ${what}.`,
    z.enum(enumValues(S.MemberRole), { message: `is required: a role, or null to remove ${what}` }).nullable(),
  );

const teamId = z
  .string({ message: 'must be the id of a team' })
  .trim()
  .min(1, 'must be the id of a team')
  .transform((value, ctx) => {
    const team = readTeamId(value);
    if (team) return team.teamId;
    ctx.addIssue({ code: 'custom', message: 'is not the id of a team' });
    return z.NEVER;
  });

const userField = inputField('ID', 'The user: platform id or global ID.', idInput('User'));
const teamField = inputField('ID', 'The team of the site’s organization: platform id or global ID.', teamId);

const at = (i: SiteAddress) => ({ organizationId: i.organizationId, siteId: i.siteId });

declareMutation('inviteToSite', {
  description:
    'Grants users and teams of the site’s organization a role on a site, or with a null role removes their grants (site admins). It raises what they may do on the site at once; it never lowers their organization role.',
  input: 'The site, and who gets which role: at least one user or team.',
  fields: {
    ...siteTarget,
    role: role('the grants of the listed users and teams'),
    userIds: inputField(
      ['ID'],
      'Members of the organization (platform ids or global IDs), at most 100.',
      z.array(idInput('User')).max(100, 'at most 100 users at once').nullish(),
    ),
    teamIds: inputField(
      ['ID'],
      'Teams of the organization (platform ids or global IDs), at most 100.',
      z.array(teamId).max(100, 'at most 100 teams at once').nullish(),
    ),
  },
  check: (input) =>
    input.transform(inSite).superRefine((value, ctx) => {
      if (!value.userIds?.length && !value.teamIds?.length) {
        ctx.addIssue({ code: 'custom', path: ['userIds'], message: 'give at least one user or team' });
      }
    }),
  payload: (name) => payloadType<{ at: SiteAddress }>(name, (t) => ({ site: t.field(siteAfter('The site.')) })),
  inputPath: (restField) => {
    if (restField?.[0] === 'users') return ['userIds', ...restField.slice(1)];
    if (restField?.[0] === 'teams') return ['teamIds', ...restField.slice(1)];
    return undefined;
  },
  run: async (i, ctx) => {
    const body = {
      role: i.role,
      ...(i.userIds?.length ? { users: i.userIds } : {}),
      ...(i.teamIds?.length ? { teams: i.teamIds } : {}),
    } as InviteSiteUsersAndTeams;
    await ctx.api.write(op.inviteToSite, at(i), { body });
    return { at: at(i) };
  },
});

declareMutation('updateSiteUserPermission', {
  description: 'Sets the role a member is granted on a site; null removes the grant (site admins).',
  input: 'The site, the user and their new role.',
  fields: { ...siteTarget, userId: userField, role: role('the grant') },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ at: SiteAddress; user: string }>(name, (t) => ({
      site: t.field(siteAfter('The site.')),
      user: t.field({
        type: UserNode,
        nullable: true,
        description: 'The user.',
        extensions: upstream.link,
        resolve: (p, _args, _ctx, info) =>
          p.user ? linkTo(UserNode, p.user, info, () => ({ id: p.user!, displayName: '' })) : null,
      }),
    })),
  run: async (i, ctx) => {
    const params = { ...at(i), userId: i.userId };
    // The description's body takes a role only: a null role is the removal of the grant.
    if (i.role === null) await deleteOf(ctx.api, op.removeUserFromSite, params);
    else await ctx.api.write(op.updateUserPermissionInSite, params, { body: { role: i.role } });
    return { at: at(i), user: i.userId };
  },
});

declareMutation('removeSiteUser', {
  description:
    'Removes the role a user is granted on a site (site admins): they keep what their organization role and teams give.',
  input: 'The site and the user.',
  fields: { ...siteTarget, userId: userField },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress }>(
      name,
      'True when the grant was removed, false when the user had none on the site.',
      (t) => ({ site: t.field(siteAfter('The site.')) }),
    ),
  run: async (i, ctx) => ({
    ...(await deleteOf(ctx.api, op.removeUserFromSite, { ...at(i), userId: i.userId })),
    at: at(i),
  }),
});

declareMutation('updateSiteTeamPermission', {
  description: 'Sets the role a team is granted on a site; null removes the grant (site admins).',
  input: 'The site, the team and its new role.',
  fields: { ...siteTarget, teamId: teamField, role: role('the grant') },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    payloadType<{ at: SiteAddress; team: string }>(name, (t) => ({
      site: t.field(siteAfter('The site.')),
      team: t.field({
        type: TeamNode,
        nullable: true,
        description: 'The team.',
        extensions: upstream.link,
        resolve: (p, _args, _ctx, info) => (p.at && p.team ? teamLink(p.at.organizationId, p.team, info) : null),
      }),
    })),
  run: async (i, ctx) => {
    const params = { ...at(i), teamId: i.teamId };
    if (i.role === null) await deleteOf(ctx.api, op.removeTeamFromSite, params);
    else await ctx.api.write(op.updateTeamPermissionInSite, params, { body: { role: i.role } });
    return { at: at(i), team: i.teamId };
  },
});

declareMutation('removeSiteTeam', {
  description:
    'Removes the role a team is granted on a site (site admins): its members keep what their organization role and other grants give.',
  input: 'The site and the team.',
  fields: { ...siteTarget, teamId: teamField },
  check: (input) => input.transform(inSite),
  payload: (name) =>
    deletedPayload<{ at: SiteAddress }>(
      name,
      'True when the grant was removed, false when the team had none on the site.',
      (t) => ({ site: t.field(siteAfter('The site.')) }),
    ),
  run: async (i, ctx) => ({
    ...(await deleteOf(ctx.api, op.removeTeamFromSite, { ...at(i), teamId: i.teamId })),
    at: at(i),
  }),
});

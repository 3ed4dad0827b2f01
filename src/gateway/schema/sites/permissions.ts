import { z } from 'zod';
import * as op from '../../upstream/contract/operations.js';
import { S } from '../../upstream/contract/schemas.js';
import type { InviteSiteUsersAndTeams } from '../../upstream/contract/types.js';
import { deleteOf } from '../../upstream/operation.js';
import type { Grantable } from '../../upstream/permissions.js';
import type { SiteAddress } from '../../upstream/sites.js';
import { builder } from '../kit/builder.js';
import { enumValues, OrderEnum, RoleEnum } from '../kit/enums.js';
import { idInput, readTeamId, teamIdInput } from '../kit/ids.js';
import { linkTo } from '../kit/loaders.js';
import { declareMutation, inputField } from '../kit/mutations.js';
import { deletedPayload, payloadType } from '../kit/payloads.js';
import { upstream } from '../kit/upstream-cost.js';
import { MemberRoleFilterEnum, MemberSortEnum } from '../members.js';
import {
  accessibleBy,
  effectiveAccess,
  effectiveAccessField,
  TeamPermissionConnection,
  TeamPermissionType,
  teamPermissions,
  UserAccessConnection,
  UserAccessType,
  UserPermissionConnection,
  UserPermissionType,
  userPermissions,
} from '../permissions.js';
import { TeamNode, teamLink } from '../teams.js';
import { UserNode } from '../users.js';
import { inSite, siteAfter, siteTarget } from './mutations.js';
import { SiteRef } from './site.js';

/** A site, as the reads of permissions address it. */
const grantable = (s: { id: string; organizationId: string }): Grantable => ({
  kind: 'site',
  id: s.id,
  organizationId: s.organizationId,
});

/**
 * Who may do what with a docs site (`Site.permissions` says what you may do), the same fields as
 * spaces and collections (`schema/permissions.ts`): `Site.users` and `Site.teams` (the roles granted
 * on the site itself), `Site.accessibleBy` (every member with access, their role and where it comes
 * from), `Site.effectiveAccess` (one member's), and the mutations that grant, change and remove
 * roles on a site. A grant raises what its holders may do on the site at once.
 */

builder.objectFields(SiteRef, (t) => ({
  users: t.connection(
    {
      type: UserPermissionType,
      nullable: true,
      description: 'Users granted a role on the site itself, by display name; null with FORBIDDEN for guests.',
      resolve: (s, args, ctx) => userPermissions(ctx, grantable(s), args),
    },
    UserPermissionConnection,
  ),
  teams: t.connection(
    {
      type: TeamPermissionType,
      nullable: true,
      description: 'Teams granted a role on the site itself, by title; null with FORBIDDEN for guests.',
      resolve: (s, args, ctx) => teamPermissions(ctx, grantable(s), s.organizationId, args),
    },
    TeamPermissionConnection,
  ),
  accessibleBy: t.connection(
    {
      type: UserAccessType,
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
      resolve: (s, args, ctx) => {
        const team = args.teamId ? readTeamId(String(args.teamId)) : undefined;
        return accessibleBy(ctx, grantable(s), s.organizationId, args, {
          role: args.role ?? undefined,
          search: args.search ?? undefined,
          team: team?.teamId ?? (args.teamId ? String(args.teamId) : undefined),
          sort: args.sort ?? undefined,
          order: args.order ?? undefined,
        });
      },
    },
    UserAccessConnection,
  ),
  effectiveAccess: t.field({
    type: UserAccessType,
    nullable: true,
    ...effectiveAccessField('site'),
    args: { userId: t.arg.id({ description: 'The user: platform id or global ID (default: you).' }) },
    resolve: (s, args, ctx) =>
      effectiveAccess(ctx, grantable(s), s.organizationId, args.userId ? String(args.userId) : undefined),
  }),
}));

// --- Mutations -----------------------------------------------------------------------------------

const role = (what: string) =>
  inputField(
    RoleEnum,
    `The role to grant; required, null removes ${what}.`,
    z.enum(enumValues(S.MemberRole), { message: `is required: a role, or null to remove ${what}` }).nullable(),
  );

const userField = inputField('ID', 'The user: platform id or global ID.', idInput('User'));
const teamField = inputField('ID', 'The team of the site’s organization: platform id or global ID.', teamIdInput);

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
      z.array(teamIdInput).max(100, 'at most 100 teams at once').nullish(),
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

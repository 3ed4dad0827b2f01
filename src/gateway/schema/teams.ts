import type { GraphQLResolveInfo } from 'graphql';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { BadUserInputError } from '../errors.js';
import { compositeKey, platformKey } from './kit/ids.js';
import { S } from '../upstream/contract/schemas.js';
import type { OrganizationTeam as Team } from '../upstream/contract/types.js';
import {
  createTeam,
  deleteTeam,
  getTeam,
  listTeams,
  removeTeamMember,
  setTeamMember,
  type TeamMembersChange,
  updateTeam,
  updateTeamMembers,
} from '../upstream/teams.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { linkTo, organizationNode, primeInOrganization, type InOrganization } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { organizationIdField, OrganizationNode } from './organizations.js';
import { deletedPayload, deletionOf, objectPayload } from './kit/payloads.js';
import { idInput, readTeamId } from './kit/ids.js';
import { permissionsType } from './kit/permissions.js';
import { TeamRoleEnum } from './kit/enums.js';

/** A team as the gateway holds it: the REST team plus the organization it was read from. */
export type TeamModel = InOrganization<Team>;

export const TeamNode = organizationNode('Team', (organizationId, teamId, ctx) =>
  getTeam(ctx.api, organizationId, teamId),
);

/** Puts teams that arrived in a list (or a write answer) of `organizationId` into the by-key loader. */
export function primeTeams(ctx: GatewayContext, organizationId: string, teams: Iterable<Team>): TeamModel[] {
  return primeInOrganization(TeamNode, ctx, organizationId, teams);
}

/**
 * Resolves a reference to a team of an organization: a stub when only `id`/`platformId` are
 * selected, otherwise the key the loader fetches.
 */
export function teamLink(organizationId: string, teamId: string, info: GraphQLResolveInfo): TeamModel | string {
  return linkTo(
    TeamNode,
    compositeKey(organizationId, teamId),
    info,
    () => ({ id: teamId, organizationId }) as TeamModel,
  );
}

/**
 * Reads a team reference given by a client: `teamId` as a Team global ID, or a platform team id
 * with `organizationId`. Returns the loader key; throws BAD_USER_INPUT naming the faulty argument.
 */
export function teamKey(teamId: string, organizationId: string | null | undefined, idField = 'teamId'): string {
  const target = teamTarget(teamId, organizationId, idField);
  if ('error' in target) throw new BadUserInputError(target.error.message, target.error.field);
  return compositeKey(target.organizationId, target.teamId);
}

type TeamTarget = { organizationId: string; teamId: string } | { error: { message: string; field: string[] } };

function teamTarget(teamId: string, organizationId: string | null | undefined, idField = 'teamId'): TeamTarget {
  if (!teamId.trim()) return { error: { message: 'must be the id of a Team', field: [idField] } };
  const org = organizationId?.trim() ? platformKey(organizationId, 'Organization') : undefined;
  const team = readTeamId(teamId);
  if (!team) return { error: { message: 'is not the global ID of a Team', field: [idField] } };
  if (team.organizationId === undefined) {
    if (org === undefined) {
      return {
        error: {
          message: `organizationId is required when ${idField} is the platform id of a team (a Team global ID carries it)`,
          field: ['organizationId'],
        },
      };
    }
    return { organizationId: org, teamId: team.teamId };
  }
  if (org !== undefined && org !== team.organizationId) {
    return {
      error: {
        message: `organizationId is not the organization of the team named by ${idField}`,
        field: ['organizationId'],
      },
    };
  }
  return { organizationId: team.organizationId, teamId: team.teamId };
}

/** Input fields naming a team in a mutation; pair with `resolveTeam` in the mutation's `check`. */
export const teamTargetFields = {
  organizationId: inputField(
    'ID',
    'Platform id or global ID of the organization; required when `teamId` is a platform id.',
    z.string().nullish(),
  ),
  teamId: inputField(
    'ID',
    'Global ID of the team, or its platform id together with `organizationId`.',
    z.string({ message: 'must be the id of a Team' }),
  ),
};

/**
 * Zod transform step: replaces `organizationId`/`teamId` of an input with the team they name,
 * or reports the faulty field.
 */
export function resolveTeam<T extends { organizationId?: string | null | undefined; teamId: string }>(
  value: T,
  ctx: z.core.$RefinementCtx<T>,
): Omit<T, 'organizationId' | 'teamId'> & { organizationId: string; teamId: string } {
  const target = teamTarget(value.teamId, value.organizationId);
  if ('error' in target) {
    ctx.addIssue({ code: 'custom', message: target.error.message, path: target.error.field });
    return z.NEVER;
  }
  return { ...value, ...target };
}

const TeamPermissions = permissionsType<TeamModel['permissions']>('TeamPermissions', 'What you may do with a team.', {
  view: 'Can see the team.',
  admin: 'Can rename and delete the team and manage its members (organization admins and team owners).',
});

TeamNode.implement({
  description: 'A group of members of an organization; content can be shared with a whole team.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the team on the platform.' }),
    title: t.exposeString('title', { description: 'Name of the team, 1 to 64 characters.' }),
    memberCount: t.exposeInt('members', { description: 'Number of members of the team.' }),
    spaceCount: t.exposeInt('spaces', { description: 'Number of spaces shared with the team.' }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the team was created.',
      resolve: (team) => team.createdAt,
    }),
    permissions: t.field({
      type: TeamPermissions,
      description: 'What you may do with the team.',
      resolve: (team) => team.permissions,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization the team belongs to.',
      extensions: upstream.link,
      resolve: (team, _args, _ctx, info) => linkTo(OrganizationNode, team.organizationId, info),
    }),
  }),
});

const OrganizationTeamsEdge = builder.edgeObject({
  type: TeamNode,
  name: 'OrganizationTeamsEdge',
  description: 'A team of a list, with its cursor.',
});

builder.objectFields(OrganizationNode, (t) => ({
  teams: t.connection(
    {
      type: TeamNode,
      nullable: true,
      description: 'Teams of the organization, by title (guests may not list them: FORBIDDEN).',
      args: {
        owner: t.arg.id({
          description:
            'Only the teams this member can manage (user id or User global ID): all of them for an organization admin, the teams they own otherwise.',
        }),
        title: t.arg.string({ description: 'Only teams whose title contains this text (case-insensitive).' }),
      },
      resolve: async (org, args, ctx) => {
        const owner = args.owner == null ? undefined : platformKey(String(args.owner), 'User');
        const connection = await listConnection(
          args,
          listTeams(ctx.api, org.id, { owner, title: args.title ?? undefined }),
        );
        return mapNodes(connection, (teams) => primeTeams(ctx, org.id, teams));
      },
    },
    {},
    OrganizationTeamsEdge,
  ),
}));

builder.queryFields((t) => ({
  team: t.field({
    type: TeamNode,
    nullable: true,
    description: 'A team by id; null with NOT_FOUND when it does not exist or is not visible to you.',
    args: {
      organizationId: t.arg.id({
        description: 'Platform id or global ID of the organization; required unless `id` is a Team global ID.',
      }),
      id: t.arg.id({ required: true, description: 'Platform id of the team, or its global ID.' }),
    },
    resolve: (_root, args) =>
      teamKey(String(args.id), args.organizationId == null ? null : String(args.organizationId), 'id'),
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const teamTitle = z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters');

const TeamPayload = (mutation: string) => objectPayload(mutation, 'team', TeamNode, 'The team after the change.');

/** The payload of a write that answered a team of `organizationId`, the loader primed with it. */
async function teamPayload(ctx: GatewayContext, organizationId: string, written: Promise<Team>) {
  return { team: primeTeams(ctx, organizationId, [await written])[0]! };
}

/** Reads the team after a write that answers no body, and primes the loader with it. */
async function refetchTeam(ctx: GatewayContext, organizationId: string, teamId: string): Promise<TeamModel> {
  const team = await getTeam(ctx.api, organizationId, teamId);
  return primeTeams(ctx, organizationId, [team])[0]!;
}

const userRef = idInput('User', 'must be a user id, e-mail address or User global ID');

const userRefs = z.array(userRef).max(1000, 'must list at most 1000 users');

const teamMembership = inputObject('TeamMembershipInput', {
  description: 'A user and the role to give them in a team.',
  fields: {
    user: inputField('String', 'User id, e-mail address or User global ID of a member of the organization.', userRef),
    role: inputField(TeamRoleEnum, 'Role to give them in the team.', S.TeamMemberRole),
  },
});

declareMutation('createTeam', {
  description: 'Creates a team in an organization (organization admins).',
  input: 'The team to create.',
  fields: {
    organizationId: organizationIdField,
    title: inputField('String', 'Name of the team, 1 to 64 characters (trimmed).', teamTitle),
    memberIds: inputField(
      ['ID'],
      'Members to put in the team right away (user ids or User global IDs, at most 1000).',
      z
        .array(
          z
            .string()
            .refine((value) => !value.includes('@'), 'takes user ids; add people by e-mail with updateTeamMembers')
            .pipe(idInput('User')),
        )
        .max(1000, 'must list at most 1000 members')
        .nullish(),
    ),
  },
  payload: (name) =>
    objectPayload(name, 'team', TeamNode, 'The new team.', {
      type: OrganizationTeamsEdge,
      what: 'team',
      lists: '`Organization.teams`',
    }),
  run: async (i, ctx) => {
    const body: { title: string; members?: string[] } = { title: i.title };
    if (i.memberIds?.length) body.members = [...new Set(i.memberIds)];
    return teamPayload(ctx, i.organizationId, createTeam(ctx.api, i.organizationId, body));
  },
});

declareMutation('updateTeam', {
  description: 'Renames a team (organization admins and team owners).',
  input: 'The team and its new title.',
  fields: { ...teamTargetFields, title: inputField('String', 'New name, 1 to 64 characters (trimmed).', teamTitle) },
  check: (input) => input.transform(resolveTeam),
  payload: TeamPayload,
  run: (i, ctx) =>
    teamPayload(ctx, i.organizationId, updateTeam(ctx.api, i.organizationId, i.teamId, { title: i.title })),
});

declareMutation('deleteTeam', {
  description: 'Deletes a team and the access it granted (organization admins and team owners).',
  input: 'The team to delete.',
  fields: teamTargetFields,
  check: (input) => input.transform(resolveTeam),
  payload: (name) => deletedPayload(name, 'True when the team was deleted, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf('Team', compositeKey(i.organizationId, i.teamId), deleteTeam(ctx.api, i.organizationId, i.teamId)),
});

declareMutation('updateTeamMembers', {
  description:
    'Adds, removes and changes the role of several members of a team at once (organization admins and team owners). A user both added and removed ends up removed.',
  // The write, then the team as it is after it.
  extensions: upstream.fetch(2),
  input: 'The team and the changes to its members; give at least one change.',
  argument: 'The team and the changes to its members.',
  fields: {
    ...teamTargetFields,
    add: inputField(
      ['String'],
      'Users to add as plain members: user ids, e-mail addresses or User global IDs (at most 1000).',
      userRefs.nullish(),
    ),
    remove: inputField(
      ['String'],
      'Users to remove: user ids, e-mail addresses or User global IDs (at most 1000).',
      userRefs.nullish(),
    ),
    memberships: inputField(
      [teamMembership.type],
      'Users to add or keep with a given role (at most 1000, each user once).',
      z.array(teamMembership.schema).max(1000, 'must list at most 1000 users').nullish(),
    ),
  },
  check: (input) =>
    input
      .superRefine((value, issues) => {
        const changes = (value.add?.length ?? 0) + (value.remove?.length ?? 0) + (value.memberships?.length ?? 0);
        if (changes === 0)
          issues.addIssue({ code: 'custom', message: 'give at least one of add, remove or memberships' });
        const seen = new Set<string>();
        value.memberships?.forEach((membership, index) => {
          if (seen.has(membership.user)) {
            issues.addIssue({ code: 'custom', path: ['memberships', index, 'user'], message: 'is listed twice' });
          }
          seen.add(membership.user);
        });
      })
      .transform(resolveTeam),
  payload: TeamPayload,
  run: async (i, ctx) => {
    const body: TeamMembersChange = {};
    if (i.add?.length) body.add = i.add;
    if (i.remove?.length) body.remove = i.remove;
    if (i.memberships?.length) {
      body.memberships = Object.fromEntries(i.memberships.map((m) => [m.user, { role: m.role }]));
    }
    await updateTeamMembers(ctx.api, i.organizationId, i.teamId, body);
    return { team: await refetchTeam(ctx, i.organizationId, i.teamId) };
  },
});

declareMutation('setTeamMember', {
  description:
    'Adds a member of the organization to a team, or changes their role in it (organization admins and team owners).',
  extensions: upstream.fetch(2),
  input: 'The team, the user and their role.',
  fields: {
    ...teamTargetFields,
    userId: inputField('ID', 'User id, e-mail address or User global ID of a member of the organization.', userRef),
    role: inputField(
      TeamRoleEnum,
      'Role in the team; left out, a new member joins as MEMBER and an existing one keeps their role.',
      S.TeamMemberRole.nullish(),
    ),
  },
  check: (input) => input.transform(resolveTeam),
  payload: TeamPayload,
  run: async (i, ctx) => {
    await setTeamMember(ctx.api, i.organizationId, i.teamId, i.userId, i.role ? { role: i.role } : {});
    return { team: await refetchTeam(ctx, i.organizationId, i.teamId) };
  },
});

declareMutation('removeTeamMember', {
  description: 'Removes a user from a team (organization admins and team owners).',
  input: 'The team and the user to remove from it.',
  fields: { ...teamTargetFields, userId: inputField('ID', 'User id, e-mail address or User global ID.', userRef) },
  check: (input) => input.transform(resolveTeam),
  payload: (name) =>
    deletedPayload(name, 'True when the user was removed from the team, false when they were not in it.'),
  run: (i, ctx) => removeTeamMember(ctx.api, i.organizationId, i.teamId, i.userId),
});

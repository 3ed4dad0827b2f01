import { z } from 'zod';
import { BadUserInputError, GatewayError } from '../errors.js';
import * as op from '../upstream/contract/operations.js';
import type { OrganizationInviteLink, User } from '../upstream/contract/types.js';
import { listOf } from '../upstream/operation.js';
import { S } from '../upstream/contract/schemas.js';
import { builder } from './kit/builder.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { RoleEnum } from './kit/enums.js';
import { readOwnedId } from './kit/ids.js';
import { linkTo, organizationNode, prime, primeInOrganization } from './kit/loaders.js';
import { declareMutation, inputField, restBody } from './kit/mutations.js';
import { objectPayload, payloadType } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { UserNode } from './users.js';

/**
 * Invitations and the administration of organizations and accounts: the `OrganizationInvite` node (an
 * invite link: global ID with its organization), `Organization.invites`, and the mutations that create,
 * change and join with invite links, invite people by e-mail, create an organization, change one's own
 * profile and get a notifications token.
 */

export const OrganizationInviteRef = organizationNode<OrganizationInviteLink>(
  'OrganizationInvite',
  (organizationId, inviteId, ctx) => ctx.api.read(op.getOrganizationInviteLink, { organizationId, inviteId }),
);

/** The organization role an invite link gives (links to a space or a collection give a level there). */
const roleOf = (invite: OrganizationInviteLink) => ('role' in invite ? invite.role : invite.level);

OrganizationInviteRef.implement({
  description:
    'An invite link of an organization: whoever signed in holds it joins with its role, until it expires, is used up or is revoked. Admins list, create, change and revoke them; anyone holding one reads it.',
  fields: (t) => ({
    platformId: t.exposeString('id', {
      description: 'Id of the invite link on the platform (the secret part of the link).',
    }),
    role: t.field({
      type: RoleEnum,
      nullable: true,
      description: 'Organization role joining gives; null makes the joiner a guest.',
      resolve: (invite) => roleOf(invite) ?? null,
    }),
    redundant: t.exposeBoolean('redundant', {
      description: 'True when you already hold its role or better: joining would change nothing.',
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it leads into.',
      extensions: upstream.link,
      resolve: (invite, _args, _ctx, info) => linkTo(OrganizationNode, invite.organizationId, info),
    }),
  }),
});

const OrganizationInviteEdge = builder.edgeObject({
  type: OrganizationInviteRef,
  name: 'OrganizationInviteEdge',
  description: 'An invite link of a list, with its cursor.',
});

const OrganizationInviteConnection = builder.connectionObject(
  {
    type: OrganizationInviteRef,
    name: 'OrganizationInviteConnection',
    description: 'A page of invite links of an organization, with the size of the whole list.',
  },
  OrganizationInviteEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  invites: t.connection(
    {
      type: OrganizationInviteRef,
      nullable: true,
      description:
        'Its live invite links (admins), newest first: revoked ones are gone; expired and used-up ones stay until revoked. Null with FORBIDDEN for others. (`inviteLinks` says whether links are turned on.)',
      resolve: async (o, args, ctx) => {
        const connection = await listConnection(
          args,
          listOf(ctx.api, op.listOrganizationInviteLinks, { organizationId: o.id }, {}),
        );
        return mapNodes(connection, (items) => primeInOrganization(OrganizationInviteRef, ctx, o.id, items));
      },
    },
    OrganizationInviteConnection,
  ),
}));

// --- Invite links -------------------------------------------------------------------------------

const inviteIdField = inputField(
  'ID',
  'The invite link: its global ID, or its platform id with `organizationId`.',
  z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters'),
);

/** The organization and invite platform ids of an input naming an invite by its global or platform id. */
function inviteOf(input: { organizationId: string; inviteId: string }): { organizationId: string; inviteId: string } {
  const read = readOwnedId(input.inviteId, 'OrganizationInvite');
  if (!read) throw new BadUserInputError('Not an id of a OrganizationInvite');
  const { organizationId = input.organizationId, id: inviteId } = read;
  if (organizationId !== input.organizationId)
    throw new GatewayError('BAD_USER_INPUT', 'inviteId belongs to another organization than organizationId', {
      field: ['inviteId'],
    });
  return { organizationId, inviteId };
}

const InvitePayload = (mutation: string, description: string, edge: boolean) =>
  objectPayload(
    mutation,
    'invite',
    OrganizationInviteRef,
    description,
    edge ? { type: OrganizationInviteEdge, what: 'invite link', lists: '`Organization.invites`' } : undefined,
  );

const inviteRole = inputField(
  RoleEnum,
  'Organization role joining gives (required); null makes joiners guests.',
  S.MemberRole.nullish(),
);

/** A link's role is required, though null (guests) is a value: GraphQL cannot require a nullable field. */
const requireRole = <T extends z.ZodType<{ role?: unknown }>>(input: T) =>
  input.superRefine((value, ctx) => {
    if (value.role === undefined)
      ctx.addIssue({ code: 'custom', path: ['role'], message: 'is required (null makes joiners guests)' });
  });

const maxUses = z
  .number()
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(10_000, 'must be at most 10000');

declareMutation('createOrganizationInvite', {
  description:
    'Creates an invite link of an organization (admins; invite links must be turned on): whoever signs in with it joins with its role, until it expires (30 days unless `expiresAt` says otherwise, 365 at most) or has been used `maxUses` times.',
  input: 'The organization, the role the link gives and its life.',
  fields: {
    organizationId: organizationIdField,
    role: inviteRole,
    expiresAt: inputField(
      'DateTime',
      'When the link stops working (in the future, within 365 days).',
      z.string().nullish(),
    ),
    maxUses: inputField(
      'Int',
      'How many people may join with it (1 to 10000; unlimited when left out).',
      maxUses.nullish(),
    ),
  },
  check: requireRole,
  payload: (name) => InvitePayload(name, 'The new invite link.', true),
  run: async (i, ctx) => {
    const body = { role: i.role ?? null, ...restBody({ expiresAt: i.expiresAt, maxUses: i.maxUses }) };
    const { data } = await ctx.api.write(
      op.createOrganizationInvite,
      { organizationId: i.organizationId },
      {
        body: body as never,
      },
    );
    const [invite] = primeInOrganization(OrganizationInviteRef, ctx, i.organizationId, [data]);
    return { invite };
  },
});

declareMutation('updateOrganizationInvite', {
  description: 'Changes the role an invite link of an organization gives (admins); those who joined keep theirs.',
  input: 'The invite link and its new role.',
  fields: {
    organizationId: organizationIdField,
    inviteId: inviteIdField,
    role: inviteRole,
  },
  check: requireRole,
  payload: (name) => InvitePayload(name, 'The invite link after the change.', false),
  run: async (i, ctx) => {
    const at = inviteOf(i);
    const { data } = await ctx.api.write(op.updateOrganizationInviteById, at, { body: { role: i.role ?? null } });
    const [invite] = primeInOrganization(OrganizationInviteRef, ctx, at.organizationId, [data]);
    return { invite };
  },
});

declareMutation('joinOrganizationWithInvite', {
  description:
    'Joins an organization with an invite link: you get its role (a member keeps a better one), nothing more. An expired, used-up or revoked link, or links turned off, is PRECONDITION_FAILED.',
  extensions: upstream.fetch(2),
  input: 'The organization and the invite link.',
  fields: { organizationId: organizationIdField, inviteId: inviteIdField },
  payload: (name) => objectPayload(name, 'organization', OrganizationNode, 'The organization joined.'),
  run: async (i, ctx) => {
    const at = inviteOf(i);
    await ctx.api.write(op.joinOrganizationWithInvite, at);
    return { organization: await ctx.api.read(op.getOrganizationById, { organizationId: at.organizationId }) };
  },
});

// --- Invitations by e-mail ----------------------------------------------------------------------

const email = z
  .string()
  .trim()
  .toLowerCase()
  .max(254, 'must be at most 254 characters')
  .email('must be an e-mail address');

const InviteeInput = builder.inputType('OrganizationInviteeInput', {
  description: 'A person to invite, with their own role.',
  fields: (t) => ({
    email: t.string({ required: true, description: 'Their e-mail address.' }),
    role: t.field({ type: RoleEnum, description: 'Their organization role; null (or left out) makes them a guest.' }),
  }),
});

declareMutation('inviteUsersToOrganization', {
  description:
    'Makes people members of an organization by e-mail address (admins), at once: an address the platform does not know gets an account. Members and guests already there get the role if it is better than theirs.',
  input: 'The organization and who to invite.',
  fields: {
    organizationId: organizationIdField,
    emails: inputField(
      ['String'],
      'E-mail addresses to invite with `role` (1 to 100 with `invitees`).',
      z.array(email).max(100, 'must hold at most 100 addresses').nullish(),
    ),
    invitees: inputField(
      [InviteeInput],
      'People to invite, each with their own role.',
      z
        .array(z.object({ email, role: S.MemberRole.nullish() }))
        .max(100, 'must hold at most 100 people')
        .nullish(),
    ),
    role: inputField(
      RoleEnum,
      'Role of those in `emails`; the organization’s default role when left out.',
      S.MemberRole.nullish(),
    ),
    sso: inputField(
      'Boolean',
      'Make them SSO members (not for SSO members of another organization).',
      z.boolean().nullish(),
    ),
  },
  check: (input) =>
    input.superRefine((value, ctx) => {
      const count = (value.emails?.length ?? 0) + (value.invitees?.length ?? 0);
      if (count === 0) ctx.addIssue({ code: 'custom', path: ['emails'], message: 'name at least one person' });
      if (count > 100)
        ctx.addIssue({ code: 'custom', path: ['emails'], message: `names ${count} people, at most 100` });
    }),
  payload: (name) =>
    payloadType<{ users: string[]; invited: number; failedSSOEmails: string[] }>(name, (t) => ({
      invited: t.int({
        nullable: true,
        description: 'How many people became members.',
        resolve: (p) => p.invited ?? null,
      }),
      users: t.field({
        type: [UserNode],
        nullable: true,
        description: 'The people who became members.',
        extensions: upstream.link,
        resolve: (p, _args, _ctx, info) =>
          p.users ? Promise.all(p.users.map((id) => linkTo(UserNode, id, info))) : null,
      }),
      failedSSOEmails: t.stringList({
        nullable: true,
        description: 'Addresses added, but not as SSO members: they are SSO members of another organization.',
        resolve: (p) => p.failedSSOEmails ?? null,
      }),
    })),
  run: async (i, ctx) => {
    const emails = [
      ...(i.emails ?? []),
      ...(i.invitees ?? []).map((person) => ({ email: person.email, role: person.role ?? null })),
    ];
    const body = { emails, ...restBody({ role: i.role, sso: i.sso }) };
    const { data } = await ctx.api.write(
      op.inviteUsersToOrganization,
      { organizationId: i.organizationId },
      {
        body: body as never,
      },
    );
    return { users: data.users, invited: data.invited, failedSSOEmails: data.failedSSOEmails ?? [] };
  },
});

// --- Organizations and accounts -----------------------------------------------------------------

declareMutation('createOrganization', {
  description: 'Creates an organization, with you as its first admin.',
  input: 'The new organization.',
  fields: {
    title: inputField(
      'String',
      'Its name, 2 to 255 characters.',
      z.string().trim().min(2, 'must be 2 to 255 characters').max(255, 'must be 2 to 255 characters'),
    ),
    emailDomains: inputField(
      ['String'],
      'E-mail domains whose users may join it.',
      z
        .array(
          z
            .string()
            .trim()
            .toLowerCase()
            .regex(/^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/, 'must be a domain such as example.com'),
        )
        .max(50, 'must list at most 50 domains')
        .nullish(),
    ),
  },
  payload: (name) => objectPayload(name, 'organization', OrganizationNode, 'The new organization.'),
  run: async (i, ctx) => {
    const { data } = await ctx.api.write(
      op.createOrganization,
      {},
      {
        body: { title: i.title, ...restBody({ emailDomains: i.emailDomains }) },
      },
    );
    prime(OrganizationNode, ctx, [data]);
    return { organization: data };
  },
});

declareMutation('updateViewer', {
  description: 'Changes your own name or profile picture; what is left out stays.',
  input: 'What to change.',
  fields: {
    displayName: inputField(
      'String',
      'Your full name, 1 to 64 characters.',
      z.string().trim().min(1, 'must be 1 to 64 characters').max(64, 'must be 1 to 64 characters').nullish(),
    ),
    photoURL: inputField(
      'String',
      'URL of your profile picture (http or https).',
      z
        .url({ protocol: /^https?$/, message: 'must be an http(s) URL' })
        .max(2048, 'must be at most 2048 characters')
        .nullish(),
    ),
  },
  // The viewer (for their id), then the change.
  extensions: upstream.fetch(2),
  payload: (name) => objectPayload(name, 'user', UserNode, 'You, after the change.'),
  run: async (i, ctx) => {
    const body = restBody(
      { displayName: i.displayName, photoURL: i.photoURL },
      { required: 'Give displayName or photoURL' },
    );
    const viewer = await ctx.api.read(op.getAuthenticatedUser, {});
    const { data } = await ctx.api.write(op.updateUserById, { userId: viewer.id }, { body: body as never });
    prime(UserNode, ctx, [data as User]);
    return { user: data };
  },
});

declareMutation('createNotificationsToken', {
  description:
    'Gets a short-lived token (10 minutes) that the notifications service accepts for you: a JWT the platform signs, naming you, for a client to subscribe with.',
  input: 'Nothing the token depends on: it is for the caller.',
  fields: {
    clientMutationId: inputField(
      'String',
      'Any text of yours, answered as it is (Relay’s convention), at most 100 characters.',
      z.string().max(100, 'must be at most 100 characters').nullish(),
    ),
  },
  payload: (name) =>
    payloadType<{ token: string; clientMutationId: string | null }>(name, (t) => ({
      token: t.string({ nullable: true, description: 'The token.', resolve: (p) => p.token ?? null }),
      clientMutationId: t.string({
        nullable: true,
        description: 'The `clientMutationId` of the input.',
        resolve: (p) => p.clientMutationId ?? null,
      }),
    })),
  run: async (i, ctx) => ({
    token: (await ctx.api.write(op.createUserNotificationsToken, {})).data.token,
    clientMutationId: i.clientMutationId ?? null,
  }),
});

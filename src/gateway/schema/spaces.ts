import { z } from 'zod';
import { listConnection } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { platformKey } from './kit/ids.js';
import { S } from '../upstream/contract/schemas.js';
import type { ContentVisibility, GitSyncProvider, Space, SpaceEditMode } from '../upstream/contract/types.js';
import {
  createSpace,
  deleteSpace,
  duplicateSpace,
  getSpace,
  listCollectionSpaces,
  listOrganizationSpaces,
  moveSpace,
  restoreSpace,
  transferSpace,
  updateSpace,
} from '../upstream/spaces.js';
import { upstream } from './kit/upstream-cost.js';
import { builder } from './kit/builder.js';
import { CollectionNode, moveBody, moveTarget } from './collections.js';
import { linkTo, loadableNode, prime } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import {
  MergeRulesInput,
  mergeRulesInput,
  MergeRulesType,
  organizationIdField,
  OrganizationNode,
} from './organizations.js';
import { DefaultLevelEnum, enumValues, restEnum, VisitorAuthBackendEnum } from './kit/enums.js';
import { deletedPayload, deletionOf, objectPayload } from './kit/payloads.js';
import { idInput } from './kit/ids.js';
import { noNull, restBody } from './kit/mutations.js';
import { permissionsType } from './kit/permissions.js';

export const SpaceNode = loadableNode<Space>('Space', {
  load: (id, ctx) => getSpace(ctx.api, id),
});

export const SpaceVisibilityEnum = restEnum('SpaceVisibility', 'Who can read a space.', {
  public: 'Anyone; indexed by search engines.',
  unlisted: 'Anyone with the address; not indexed.',
  'share-link': 'Anyone with the secret share link.',
  'visitor-auth': 'Visitors authenticated through a JWT from your own backend.',
  'in-collection': 'Anyone who can access the parent collection (only for spaces in a collection).',
  private: 'Only the members you authorize.',
} satisfies Record<ContentVisibility, string>);

export const SpaceEditModeEnum = restEnum('SpaceEditMode', 'Whether the live content of a space can be edited.', {
  live: 'Members who can edit change the content directly.',
  locked: 'Every edit is locked.',
} satisfies Record<SpaceEditMode, string>);

export const GitProviderEnum = restEnum('GitSyncProvider', 'A Git provider a space can be synchronized with.', {
  github: 'GitHub.',
  gitlab: 'GitLab.',
  'github-legacy': 'GitHub, through the former installation (`removeLegacyGitInstallation` removes it).',
} satisfies Record<GitSyncProvider, string>);

const SpaceUrls = builder.objectRef<Space['urls']>('SpaceUrls').implement({
  description: 'Addresses of a space.',
  fields: (t) => ({
    location: t.string({ nullable: true, description: 'URL in the REST API.', resolve: (u) => u.location ?? null }),
    app: t.string({ nullable: true, description: 'URL in the web app.', resolve: (u) => u.app ?? null }),
    published: t.string({
      nullable: true,
      description: 'URL of the published content.',
      resolve: (u) => u.published ?? null,
    }),
    public: t.string({
      nullable: true,
      description: 'Public URL, for public and unlisted spaces; null otherwise.',
      resolve: (u) => u.public ?? null,
    }),
    icon: t.string({ nullable: true, description: 'URL of the icon.', resolve: (u) => u.icon ?? null }),
  }),
});

export const SpaceGitSync = builder.objectRef<NonNullable<Space['gitSync']>>('SpaceGitSync').implement({
  description: 'The Git repository a space is synchronized with.',
  fields: (t) => ({
    repoName: t.string({
      nullable: true,
      description: 'Name of the repository (`owner/name`).',
      resolve: (g) => g.repoName ?? null,
    }),
    installationProvider: t.field({
      type: GitProviderEnum,
      nullable: true,
      description: 'Git provider of the installation.',
      resolve: (g) => g.installationProvider ?? null,
    }),
    integration: t.string({
      nullable: true,
      description: 'Integration doing the synchronization.',
      resolve: (g) => g.integration ?? null,
    }),
    url: t.string({
      nullable: true,
      description: 'URL of the repository, with any embedded credentials masked as `***`.',
      resolve: (g) => g.url ?? null,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the synchronization last ran.',
      resolve: (g) => g.updatedAt ?? null,
    }),
  }),
});

const SpaceVisitorAuth = builder.objectRef<NonNullable<Space['visitorAuth']>>('SpaceVisitorAuth').implement({
  description: 'How visitors of a `VISITOR_AUTH` space authenticate.',
  fields: (t) => ({
    backend: t.field({
      type: VisitorAuthBackendEnum,
      nullable: true,
      description: 'What issues the visitors’ tokens (JWT).',
      resolve: (v) => v.backend ?? null,
    }),
  }),
});

const SpaceCounts = builder.objectRef<Space>('SpaceCounts').implement({
  description: 'Numbers of discussions and change requests of a space.',
  fields: (t) => ({
    comments: t.exposeInt('comments', { description: 'Open comments.' }),
    changeRequests: t.exposeInt('changeRequests', { description: 'Change requests, in any state.' }),
    changeRequestsOpen: t.exposeInt('changeRequestsOpen', { description: 'Open change requests.' }),
    changeRequestsDraft: t.exposeInt('changeRequestsDraft', { description: 'Draft change requests.' }),
  }),
});

const SpacePermissions = permissionsType<Space['permissions']>('SpacePermissions', 'What you may do with a space.', {
  view: 'Can read the published content.',
  access: 'Can open the space in the app.',
  admin: 'Can change its settings, move, transfer, delete and restore it.',
  viewInviteLinks: 'Can see its invite links.',
  edit: 'Can edit the live content (false while the space is locked).',
  triggerGitSync: 'Can run the Git synchronization.',
  comment: 'Can comment.',
  merge: 'Can merge change requests.',
  review: 'Can review change requests.',
  installIntegration: 'Can install integrations on it.',
});

SpaceNode.implement({
  description:
    'A space: a body of content (pages, files) kept as revisions, edited directly or through change requests.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the space on the platform.' }),
    title: t.exposeString('title', { description: 'Title of the space (at most 50 characters).' }),
    emoji: t.string({
      nullable: true,
      description: 'Emoji shown as its icon; null when there is none.',
      resolve: (s) => s.emoji || null,
    }),
    visibility: t.field({ type: SpaceVisibilityEnum, description: 'Who can read it.', resolve: (s) => s.visibility }),
    editMode: t.field({
      type: SpaceEditModeEnum,
      nullable: true,
      description: 'Whether its live content can be edited.',
      resolve: (s) => s.editMode ?? null,
    }),
    mergeRules: t.field({
      type: MergeRulesType,
      nullable: true,
      description: 'Approval rules for merging its change requests (INHERIT follows the organization).',
      resolve: (s) => s.mergeRules ?? null,
    }),
    language: t.string({
      nullable: true,
      description: 'Language code of its content (for example `en`).',
      resolve: (s) => s.language ?? null,
    }),
    defaultLevel: t.field({
      type: DefaultLevelEnum,
      nullable: true,
      description: 'Level of access every member of the organization gets on it.',
      resolve: (s) => s.defaultLevel ?? null,
    }),
    urls: t.field({ type: SpaceUrls, description: 'Addresses of the space.', resolve: (s) => s.urls }),
    gitSync: t.field({
      type: SpaceGitSync,
      nullable: true,
      description: 'The Git repository it is synchronized with; null when it is not.',
      resolve: (s) => s.gitSync ?? null,
    }),
    visitorAuth: t.field({
      type: SpaceVisitorAuth,
      nullable: true,
      description: 'Visitor authentication settings; null when not configured.',
      resolve: (s) => s.visitorAuth ?? null,
    }),
    revisionId: t.exposeString('revision', { description: 'Id of the active revision of its content.' }),
    counts: t.field({ type: SpaceCounts, description: 'Numbers of comments and change requests.', resolve: (s) => s }),
    permissions: t.field({
      type: SpacePermissions,
      description: 'What you may do with the space.',
      resolve: (s) => s.permissions,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (s) => s.updatedAt }),
    deletedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was deleted (it stays restorable for 7 days); null for a live space.',
      resolve: (s) => s.deletedAt ?? null,
    }),
    organization: t.field({
      type: OrganizationNode,
      nullable: true,
      description:
        'The organization that owns the space; null (with NOT_FOUND) for readers of a public or shared space who are not members of it.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(OrganizationNode, s.organization, info),
    }),
    parent: t.field({
      type: CollectionNode,
      nullable: true,
      description: 'The collection the space is in; null at the top level of the organization.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(CollectionNode, s.parent, info),
    }),
  }),
});

const SpaceEdge = builder.edgeObject({
  type: SpaceNode,
  name: 'SpaceEdge',
  description: 'A space of a list, with its cursor.',
});

/** One connection type for every list of spaces, so clients can share fragments across them. */
const SpaceConnection = builder.connectionObject(
  { type: SpaceNode, name: 'SpaceConnection', description: 'A page of spaces, with the size of the whole list.' },
  SpaceEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  spaces: t.connection(
    {
      type: SpaceNode,
      nullable: true,
      description:
        'Spaces of the organization visible to you, in tree order (deleted spaces are left out); null with NOT_FOUND when you are not a member.',
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(args, listOrganizationSpaces(ctx.api, org.id));
        prime(
          SpaceNode,
          ctx,
          connection.edges.map((edge) => edge.node),
        );
        return connection;
      },
    },
    SpaceConnection,
  ),
}));

builder.objectFields(CollectionNode, (t) => ({
  spaces: t.connection(
    {
      type: SpaceNode,
      description:
        'Spaces directly in this collection visible to you, in display order (not those of nested collections).',
      resolve: async (collection, args, ctx) => {
        const connection = await listConnection(args, listCollectionSpaces(ctx.api, collection.id));
        prime(
          SpaceNode,
          ctx,
          connection.edges.map((edge) => edge.node),
        );
        return connection;
      },
    },
    SpaceConnection,
  ),
}));

builder.queryFields((t) => ({
  space: t.field({
    type: SpaceNode,
    nullable: true,
    description:
      'A space by id (platform id or global ID); null with NOT_FOUND when it is not visible to you. Its admins also find it for 7 days after its deletion.',
    args: {
      id: t.arg.id({ required: true, description: 'Platform id or global ID of the space.' }),
      shareKey: t.arg.string({
        description: 'Share key of a `SHARE_LINK` space, which lets people outside it read it.',
      }),
    },
    resolve: (_root, args, ctx) => {
      const id = platformKey(String(args.id), 'Space');
      // What a share key reveals is not what the caller sees without it: kept out of the loader.
      if (args.shareKey != null) return getSpace(ctx.api, id, { shareKey: args.shareKey });
      return id;
    },
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const SpacePayload = (mutation: string, description = 'The space after the change.') =>
  objectPayload(mutation, 'space', SpaceNode, description);

/** The payload of a write that makes a space: the space, and its edge. */
const NewSpacePayload = (mutation: string, description: string) =>
  objectPayload(mutation, 'space', SpaceNode, description, {
    type: SpaceEdge,
    what: 'space',
    lists: '`Organization.spaces` and `Collection.spaces` (of its collection)',
  });

/** The payload of a write that answered the space, the loader primed with it. */
async function spacePayload(ctx: GatewayContext, written: Promise<Space>) {
  const space = await written;
  prime(SpaceNode, ctx, [space]);
  return { space };
}

/** A space's title, as the platform takes it. */
export const spaceTitle = z
  .string({ message: 'must be 1 to 50 characters' })
  .trim()
  .min(1, 'must be 1 to 50 characters')
  .max(50, 'must be 1 to 50 characters');
const emoji = z.string().trim().min(1, 'must be an emoji').max(50, 'must be an emoji');
const language = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z]{2,3}(-[a-z0-9]{2,8})?$/, 'must be a language code such as en or pt-br');

const spaceId = inputField('ID', 'Platform id or global ID of the space.', idInput('Space'));

declareMutation('createSpace', {
  description: 'Creates a space in an organization, at the top level or in a collection (create role).',
  input: 'The space to create.',
  fields: {
    organizationId: organizationIdField,
    title: inputField('String', 'Title, 1 to 50 characters (default `Untitled`).', spaceTitle.nullish()),
    emoji: inputField('String', 'Emoji shown as its icon.', emoji.nullish()),
    parentId: inputField(
      'ID',
      'Collection to create it in (platform id or global ID); top level when left out.',
      idInput('Collection').nullish(),
    ),
    language: inputField('String', 'Language code of its content (for example `en`).', language.nullish()),
    editMode: inputField(
      SpaceEditModeEnum,
      'Whether the live content can be edited (default LIVE).',
      z.enum(enumValues(S.SpaceEditMode)).nullish(),
    ),
    visibility: inputField(
      SpaceVisibilityEnum,
      'Who can read it (default PRIVATE; IN_COLLECTION needs a parentId).',
      z.enum(enumValues(S.ContentVisibility)).nullish(),
    ),
  },
  check: (input) =>
    input.superRefine((value, ctx) => {
      if (value.visibility === 'in-collection' && value.parentId == null) {
        ctx.addIssue({ code: 'custom', path: ['visibility'], message: 'IN_COLLECTION needs a parentId' });
      }
    }),
  payload: (name) => NewSpacePayload(name, 'The new space.'),
  run: ({ organizationId, parentId, ...fields }, ctx) =>
    spacePayload(ctx, createSpace(ctx.api, organizationId, restBody({ ...fields, parent: parentId }))),
});

declareMutation('updateSpace', {
  description:
    'Changes a space: title, emoji and language need the edit role; edit mode, default level and merge rules need admin.',
  input: 'Changes to a space; fields left out stay as they are.',
  argument: 'What to change.',
  fields: {
    spaceId,
    editMode: inputField(
      SpaceEditModeEnum,
      'LOCKED locks every edit; LIVE allows them again.',
      z.enum(enumValues(S.SpaceEditMode)).nullish(),
    ),
    title: inputField('String', 'New title, 1 to 50 characters.', spaceTitle.nullish()),
    defaultLevel: inputField(
      DefaultLevelEnum,
      'Level of access every member gets on it (INHERIT follows the parent).',
      z.enum(['inherit', ...enumValues(S.MemberRole)]).nullish(),
    ),
    language: inputField('String', 'Language code of its content (for example `en`).', language.nullish()),
    mergeRules: inputField(
      MergeRulesInput,
      'Approval rules (INHERIT, NONE or RULES).',
      mergeRulesInput(true).nullish(),
    ),
    emoji: inputField('String', 'New emoji; null removes it.', emoji.nullish()),
  },
  check: (input) => input.superRefine(noNull(['editMode', 'title', 'defaultLevel', 'language', 'mergeRules'])),
  payload: SpacePayload,
  run: ({ spaceId, ...changes }, ctx) =>
    spacePayload(
      ctx,
      updateSpace(
        ctx.api,
        spaceId,
        restBody(changes, { clearable: ['emoji'], required: 'Give at least one field to change' }),
      ),
    ),
});

declareMutation('deleteSpace', {
  description: 'Deletes a space; it stays restorable with restoreSpace for 7 days (admins of the space).',
  input: 'The space to delete.',
  fields: { spaceId },
  payload: (name) =>
    deletedPayload(name, 'True when the space was deleted, false when it did not exist or was already deleted.'),
  run: (i, ctx) => deletionOf('Space', i.spaceId, deleteSpace(ctx.api, i.spaceId)),
});

declareMutation('restoreSpace', {
  description: 'Brings back a space deleted in the last 7 days (admins of the space).',
  input: 'The space to restore.',
  fields: { spaceId },
  payload: (name) => SpacePayload(name, 'The space, live again.'),
  run: (i, ctx) => spacePayload(ctx, restoreSpace(ctx.api, i.spaceId)),
});

declareMutation('duplicateSpace', {
  description: 'Copies a space, with its settings and direct grants, next to the original (create role).',
  input: 'The space to duplicate.',
  fields: { spaceId },
  payload: (name) => NewSpacePayload(name, 'The copy, placed right after the original.'),
  run: (i, ctx) => spacePayload(ctx, duplicateSpace(ctx.api, i.spaceId)),
});

declareMutation('moveSpace', {
  description: 'Moves a space into a collection or to the top level, and/or next to a sibling (admins of the space).',
  input: 'Where to move the space: give `parentId`, `position` or both.',
  argument: 'Where to move the space.',
  fields: { spaceId, ...moveTarget },
  payload: SpacePayload,
  run: (i, ctx) => spacePayload(ctx, moveSpace(ctx.api, i.spaceId, moveBody(i))),
});

declareMutation('transferSpace', {
  description:
    'Moves a space to another organization, another collection, or both (admins of the space and of the target organization). Team grants do not follow.',
  input: 'Where to transfer the space: give `organizationId`, `parentId` or both.',
  argument: 'Where to transfer the space.',
  fields: {
    spaceId,
    organizationId: inputField(
      'ID',
      'Target organization (platform id or global ID); left out keeps the current one.',
      idInput('Organization').nullish(),
    ),
    parentId: inputField(
      'ID',
      'Collection of the target organization to put it in; null for the top level; left out: the top level when the organization changes, else the current collection.',
      idInput('Collection').nullish(),
    ),
  },
  payload: SpacePayload,
  run: (i, ctx) =>
    spacePayload(
      ctx,
      transferSpace(
        ctx.api,
        i.spaceId,
        restBody(
          { organization: i.organizationId, parent: i.parentId },
          { clearable: ['parent'], required: 'Give organizationId, parentId or both' },
        ),
      ),
    ),
});

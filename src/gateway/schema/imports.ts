import { z } from 'zod';
import * as op from '../upstream/contract/operations.js';
import type { ContentImportRun } from '../upstream/contract/types.js';
import { listOf } from '../upstream/operation.js';
import { builder } from './kit/builder.js';
import { listConnection, mapNodes } from './kit/connections.js';
import { restEnum } from './kit/enums.js';
import { idInput, ownedIdInput, platformKey, readOwnedId } from './kit/ids.js';
import { follow, ownedTarget } from './kit/live.js';
import { linkTo, organizationNode, primeInOrganization } from './kit/loaders.js';
import { declareMutation, inputField } from './kit/mutations.js';
import { objectPayload } from './kit/payloads.js';
import { upstream } from './kit/upstream-cost.js';
import { BadUserInputError } from '../errors.js';
import { ChangeRequestNode, changeRequestLink, changeRequestRef } from './change-requests/change-request.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { siteLink, SiteRef } from './sites/site.js';
import { createSpace, deleteSpace } from '../upstream/spaces.js';
import { SpaceNode, spaceTitle } from './spaces.js';
import { UserNode } from './users.js';

/**
 * Content imports: an `ImportRun` (global ID with its organization) brings pages from a website or
 * from uploaded files into a space as a change request, as a job of the platform.
 * `Organization.importRuns`, `startImportRun`, `cancelImportRun`, and `importRunUpdated` to follow
 * one run's progress.
 */

export const ImportRunNode = organizationNode<ContentImportRun>('ImportRun', (organizationId, importRunId, ctx) =>
  ctx.api.read(op.getImportRun, { organizationId, importRunId }),
);

const StatusEnum = restEnum('ImportRunStatus', 'Where an import run is.', {
  pending: 'Waiting for its turn on the platform’s queue.',
  'in-progress': 'Reading its source.',
  completed: 'Its pages are in the change request.',
  failed: 'It stopped: `reason` says why. Nothing was written.',
  cancelled: 'Cancelled: nothing more was written.',
});

const StatusFilterEnum = restEnum('ImportRunStatusFilter', 'Which import runs to list, by status.', {
  active: 'Pending and in progress.',
  pending: 'Waiting for their turn.',
  'in-progress': 'Reading their source.',
  completed: 'Completed.',
  failed: 'Failed.',
  cancelled: 'Cancelled.',
});

const SourceTypeEnum = restEnum('ImportSourceType', 'Where an import run reads its pages.', {
  website: 'A website, crawled from a URL on its own origin.',
  file: 'Files uploaded to the organization’s storage: markdown, HTML or ZIP archives of them.',
});

type ImportedPage = NonNullable<ContentImportRun['pages']>[number];

const ImportRunPage = builder.objectRef<ImportedPage>('ImportRunPage').implement({
  description: 'A page an import run wrote into its change request.',
  fields: (t) => ({
    pageId: t.exposeString('id', { description: 'Id of the page in the change request’s content.' }),
    sourceUrl: t.string({
      nullable: true,
      description: 'Where it came from: the page’s URL, or the file’s path (inside its archive).',
      resolve: (page) => page.sourceURL ?? null,
    }),
  }),
});

ImportRunNode.implement({
  description:
    'A run importing content into a space, as a change request: from a website (crawled on its origin within budgets of pages, bytes and time) or from uploaded files.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the run on the platform.' }),
    status: t.field({ type: StatusEnum, description: 'Where the run is.', resolve: (run) => run.status }),
    reason: t.string({
      nullable: true,
      description: 'Why it failed (FAILED): a code, a colon, what happened.',
      resolve: (run) => run.reason ?? null,
    }),
    sourceType: t.field({
      type: SourceTypeEnum,
      nullable: true,
      description: 'Where it reads its pages.',
      resolve: (run) => run.source?.type ?? null,
    }),
    sourceUrl: t.string({
      nullable: true,
      description: 'The website’s URL (WEBSITE).',
      resolve: (run) => (run.source && 'url' in run.source ? run.source.url : null),
    }),
    sourceFiles: t.stringList({
      nullable: true,
      description: 'Storage keys of the files (FILE).',
      resolve: (run) => (run.source && 'files' in run.source ? (run.source.files ?? null) : null),
    }),
    space: t.field({
      type: SpaceNode,
      nullable: true,
      description: 'The space it imports into.',
      extensions: upstream.link,
      resolve: (run, _args, _ctx, info) => linkTo(SpaceNode, run.target?.space, info),
    }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      nullable: true,
      description: 'The change request it writes to: the one given, or the one it created once completed.',
      extensions: upstream.link,
      resolve: (run, _args, _ctx, info) =>
        run.target?.space && run.target.changeRequest
          ? changeRequestLink(run.target.space, run.target.changeRequest, info)
          : null,
    }),
    parentPageId: t.string({
      nullable: true,
      description: 'Id of the page its pages go under; null when they go at the top.',
      resolve: (run) => run.target?.page ?? null,
    }),
    site: t.field({
      type: SiteRef,
      nullable: true,
      description: 'The site it is for: named when started, or the one site publishing its space.',
      extensions: upstream.link,
      resolve: (run, _args, _ctx, info) => (run.site ? siteLink(run.organizationId, run.site, info) : null),
    }),
    createdBy: t.field({
      type: UserNode,
      nullable: true,
      description: 'Who started it.',
      extensions: upstream.link,
      resolve: (run, _args, _ctx, info) => linkTo(UserNode, run.createdBy, info),
    }),
    pages: t.field({
      type: [ImportRunPage],
      description: 'The pages it wrote (empty until it completes).',
      resolve: (run) => run.pages ?? [],
    }),
    createdAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was asked for.',
      resolve: (run) => run.createdAt ?? null,
    }),
    updatedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it last changed.',
      resolve: (run) => run.updatedAt ?? null,
    }),
    startedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it started reading.',
      resolve: (run) => run.startedAt ?? null,
    }),
    completedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it completed (COMPLETED).',
      resolve: (run) => run.completedAt ?? null,
    }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it runs in.',
      extensions: upstream.link,
      resolve: (run, _args, _ctx, info) => linkTo(OrganizationNode, run.organizationId, info),
    }),
  }),
});

const ImportRunEdge = builder.edgeObject({
  type: ImportRunNode,
  name: 'ImportRunEdge',
  description: 'An import run of a list, with its cursor.',
});

const ImportRunConnection = builder.connectionObject(
  {
    type: ImportRunNode,
    name: 'ImportRunConnection',
    description: 'A page of import runs, with the size of the whole list.',
  },
  ImportRunEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  importRuns: t.connection(
    {
      type: ImportRunNode,
      nullable: true,
      description:
        'Import runs into the spaces you can see, newest first; null with NOT_FOUND when you are not a member.',
      args: {
        status: t.arg({ type: StatusFilterEnum, description: 'Only runs in this status.' }),
        spaceId: t.arg.id({ description: 'Only runs into this space (platform id or global ID).' }),
        siteId: t.arg.id({ description: 'Only runs for this site (platform id or global ID).' }),
      },
      extensions: upstream.fetch(1),
      resolve: async (org, args, ctx) => {
        const site = args.siteId == null ? undefined : readOwnedId(String(args.siteId), 'Site')?.id;
        const pages = listOf(
          ctx.api,
          op.listImportRuns,
          { organizationId: org.id },
          {
            ...(args.status ? { status: args.status } : {}),
            ...(args.spaceId == null ? {} : { space: platformKey(String(args.spaceId), 'Space') }),
            ...(site ? { site } : {}),
          },
        );
        const connection = await listConnection(args, pages);
        return mapNodes(connection, (items) => primeInOrganization(ImportRunNode, ctx, org.id, items));
      },
    },
    ImportRunConnection,
  ),
}));

// --- Mutations ---------------------------------------------------------------------------------

const httpUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');

const fileKey = z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters');

declareMutation('startImportRun', {
  description:
    'Starts importing content into a space you can edit (`spaceId`), or into a new one (`newSpaceTitle`, create role), as a change request (the one given, or a new one): from a website (`url`: its pages on the same origin, followed from there) or from files uploaded to the organization’s storage (`files`: markdown, HTML, or ZIP archives of them). The run goes on in the background: follow it with `importRunUpdated`. A new space the platform then refuses to import into is deleted again.',
  input:
    'The organization, the source (exactly one of `url` and `files`) and the target (exactly one of `spaceId` and `newSpaceTitle`).',
  // A new space, the run; and the new space deleted again when the run is refused.
  extensions: upstream.fetch(3),
  fields: {
    organizationId: organizationIdField,
    url: inputField('String', 'The website to import, from this page (http or https).', httpUrl.nullish()),
    files: inputField(
      ['String'],
      'Storage keys of uploaded files: 1 to 50.',
      z.array(fileKey).min(1, 'must list at least one file').max(50, 'must list at most 50 files').nullish(),
    ),
    spaceId: inputField('ID', 'The space to import into: platform id or global ID.', idInput('Space').nullish()),
    newSpaceTitle: inputField(
      'String',
      'Title of a new space to import into, at the top level of the organization (1 to 50 characters).',
      spaceTitle.nullish(),
    ),
    changeRequestId: inputField(
      'ID',
      'A change request of the space to import into (global ID, or platform id); a new one when left out.',
      z.string().trim().min(1, 'must be the id of a ChangeRequest').nullish(),
    ),
    parentPageId: inputField(
      'String',
      'Id of a page of the content the pages go under; at the top when left out.',
      z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish(),
    ),
    siteId: inputField(
      'ID',
      'The site the import is for, when its space is not in the site yet (platform id or global ID).',
      ownedIdInput('Site').nullish(),
    ),
  },
  check: (input) =>
    input.superRefine((value, ctx) => {
      if ((value.url == null) === (value.files == null))
        ctx.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url and files' });
      if ((value.spaceId == null) === (value.newSpaceTitle == null))
        ctx.addIssue({ code: 'custom', path: ['spaceId'], message: 'give exactly one of spaceId and newSpaceTitle' });
      if (value.newSpaceTitle != null && (value.changeRequestId != null || value.parentPageId != null))
        ctx.addIssue({
          code: 'custom',
          path: [value.changeRequestId != null ? 'changeRequestId' : 'parentPageId'],
          message: 'cannot be given with newSpaceTitle: a new space has no change request nor page yet',
        });
      if (value.changeRequestId != null) {
        const ref = changeRequestRef(value.changeRequestId);
        if (ref.spaceId && ref.spaceId !== value.spaceId)
          ctx.addIssue({ code: 'custom', path: ['changeRequestId'], message: 'is a change request of another space' });
      }
    }),
  payload: (name) =>
    objectPayload(name, 'importRun', ImportRunNode, 'The new run (PENDING).', {
      type: ImportRunEdge,
      what: 'import run',
      lists: '`Organization.importRuns`',
    }),
  // The platform names the target's fields `target.space`, `target.changeRequest`, `target.page`.
  inputPath: (restField) => {
    if (restField?.[0] === 'target')
      return [
        { space: 'spaceId', changeRequest: 'changeRequestId', page: 'parentPageId' }[restField[1] as 'space'] ??
          'spaceId',
      ];
    if (restField?.[0] === 'source') return restField[1] === 'files' ? ['files', ...restField.slice(2)] : ['url'];
    if (restField?.[0] === 'site') return ['siteId'];
    return undefined;
  },
  run: async (i, ctx) => {
    if (i.newSpaceTitle == null) return startRun(i, i.spaceId!, ctx);
    const space = await createSpace(ctx.api, i.organizationId, { title: i.newSpaceTitle });
    try {
      return await startRun(i, space.id, ctx);
    } catch (refused) {
      await deleteSpace(ctx.api, space.id).catch(() => undefined);
      throw refused;
    }
  },
});

/** Starts the run of `startImportRun` into the space `spaceId`. */
async function startRun(
  i: {
    organizationId: string;
    url?: string | null;
    files?: string[] | null;
    changeRequestId?: string | null;
    parentPageId?: string | null;
    siteId?: string | null;
  },
  spaceId: string,
  ctx: Parameters<typeof primeInOrganization>[1],
) {
  const target = {
    space: spaceId,
    ...(i.changeRequestId != null ? { changeRequest: changeRequestRef(i.changeRequestId).id } : {}),
    ...(i.parentPageId != null ? { page: i.parentPageId } : {}),
  };
  const source = i.url != null ? { type: 'website' as const, url: i.url } : { type: 'file' as const, files: i.files! };
  const { data } = await ctx.api.write(
    op.startImportRun,
    { organizationId: i.organizationId },
    { body: { source, target, ...(i.siteId != null ? { site: i.siteId } : {}) } as never },
  );
  const [importRun] = primeInOrganization(ImportRunNode, ctx, i.organizationId, [data]);
  return { importRun };
}

declareMutation('cancelImportRun', {
  description:
    'Cancels a pending or in-progress import run (edit role on its space): it stops and writes nothing more. A finished run cannot be cancelled (BAD_USER_INPUT).',
  input: 'The run.',
  fields: {
    organizationId: inputField(
      'ID',
      'The organization (platform id or global ID); required unless `importRunId` is a global ID.',
      idInput('Organization').nullish(),
    ),
    importRunId: inputField(
      'ID',
      'The run: its global ID, or its platform id with `organizationId`.',
      z.string().trim().min(1, 'must be the id of an ImportRun'),
    ),
  },
  check: (input) =>
    input.transform((value, ctx) => {
      const read = readOwnedId(value.importRunId, 'ImportRun');
      if (!read) {
        ctx.addIssue({ code: 'custom', path: ['importRunId'], message: 'must be the id of an ImportRun' });
        return z.NEVER;
      }
      const organizationId = read.organizationId ?? value.organizationId ?? undefined;
      if (!organizationId) {
        ctx.addIssue({
          code: 'custom',
          path: ['organizationId'],
          message: 'is required when importRunId is a platform id',
        });
        return z.NEVER;
      }
      if (read.organizationId && value.organizationId && read.organizationId !== value.organizationId) {
        ctx.addIssue({ code: 'custom', path: ['importRunId'], message: 'is a run of another organization' });
        return z.NEVER;
      }
      return { organizationId, importRunId: read.id };
    }),
  payload: (name) => objectPayload(name, 'importRun', ImportRunNode, 'The run, cancelled.'),
  run: async (i, ctx) => {
    const { data } = await ctx.api.write(op.cancelImportRun, i);
    const [importRun] = primeInOrganization(ImportRunNode, ctx, i.organizationId, [data]);
    return { importRun };
  },
});

// --- Following a run ---------------------------------------------------------------------------

builder.subscriptionField('importRunUpdated', (t) =>
  t.field({
    type: ImportRunNode,
    description:
      'An import run: first as it is, then after each change of its status or pages, until you stop. One poll per run and token, shared by its subscribers. Ends with NOT_FOUND when the run is gone or no longer visible to you.',
    args: {
      importRunId: t.arg.id({
        required: true,
        description: 'The run: its global ID, or its platform id with `organizationId`.',
      }),
      organizationId: t.arg.id({ description: 'The organization, when `importRunId` is a platform id.' }),
    },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const { organizationId, id } = ownedTarget(
        String(args.importRunId),
        'ImportRun',
        'importRunId',
        args.organizationId == null ? undefined : String(args.organizationId),
      );
      if (!id) throw new BadUserInputError('importRunId is required', ['importRunId']);
      return follow(
        ctx,
        `import-run ${organizationId} ${id}`,
        async (api) => ({ ...(await api.read(op.getImportRun, { organizationId, importRunId: id })), organizationId }),
        (run) => run.updatedAt,
      );
    },
    resolve: (run) => run,
  }),
);

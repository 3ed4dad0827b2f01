import { z } from 'zod';
import { listConnection, mapNodes } from './kit/connections.js';
import type { GatewayContext } from '../context.js';
import { upstream } from './kit/upstream-cost.js';
import { BadUserInputError } from '../errors.js';
import { compositeKey, decodeKnownGlobalId, platformKey, splitKey } from './kit/ids.js';
import { selectsOnlyKeys } from './kit/links.js';
import {
  computeDocument,
  computeRevision,
  createSpec,
  deleteSpec,
  getSpec,
  getSpecVersion,
  getSpecVersionContent,
  getLatestSpecVersionRaw,
  listSpecs,
  listSpecVersions,
  putSpec,
  specSlug,
  updateSpec,
} from '../upstream/openapi.js';
import type {
  OpenAPISpec as OpenApiSpec,
  OpenAPISpecProcessingErrorCode,
  OpenAPISpecVersion as OpenApiSpecVersion,
} from '../upstream/contract/types.js';
import type { PageOfAnyType as RevisionPage } from '../upstream/content.js';
import { S } from '../upstream/contract/schemas.js';
import { builder } from './kit/builder.js';
import { follow } from './kit/live.js';
import { ComputedPageNode, DocumentPageNode } from './content/page.js';
import { linkTo, loadableNode, loadOrThrow, prime, type InOrganization } from './kit/loaders.js';
import { declareMutation, inputField, inputObject } from './kit/mutations.js';
import { OrganizationNode, organizationIdField } from './organizations.js';
import { deletedPayload, deletionOf, objectPayload, payloadType } from './kit/payloads.js';
import { DocumentType } from './kit/document.js';
import { permissionsType } from './kit/permissions.js';
import { restEnum } from './kit/enums.js';
import { SpaceNode } from './spaces.js';

/**
 * OpenAPI specifications of an organization, their versions, and the content computed from
 * them (`builtin:openapi` sources). A specification is named by its slug: its global ID carries
 * the organization and the slug; a version's carries both and the version id.
 */

type SpecHeld = InOrganization<OpenApiSpec>;
type VersionHeld = OpenApiSpecVersion & { organizationId: string; slug: string };

/** Largest specification text `OpenApiSpecVersion.document` reads. */
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export const OpenApiSpecNode = loadableNode<SpecHeld>('OpenApiSpec', {
  key: (spec) => compositeKey(spec.organizationId, spec.slug),
  load: async (key, ctx) => {
    const [organizationId, slug] = splitKey(key, 2, 'OpenApiSpec') as [string, string];
    return { ...(await getSpec(ctx.api, { organizationId, slug })), organizationId };
  },
});

export const OpenApiSpecVersionNode = loadableNode<VersionHeld>('OpenApiSpecVersion', {
  key: (version) => compositeKey(version.organizationId, version.slug, version.id),
  load: async (key, ctx) => {
    const [organizationId, slug, id] = splitKey(key, 3, 'OpenApiSpecVersion') as [string, string, string];
    return {
      ...(await getSpecVersion(ctx.api, { organizationId, slug }, id)),
      organizationId,
      slug,
    };
  },
});

function primeSpecs(ctx: GatewayContext, organizationId: string, specs: Iterable<OpenApiSpec>): SpecHeld[] {
  const held = Array.from(specs, (spec) => ({ ...spec, organizationId }));
  prime(OpenApiSpecNode, ctx, held);
  return held;
}

function primeVersions(
  ctx: GatewayContext,
  spec: Pick<SpecHeld, 'organizationId' | 'slug'>,
  versions: Iterable<OpenApiSpecVersion>,
): VersionHeld[] {
  const held = Array.from(versions, (version) => ({
    ...version,
    organizationId: spec.organizationId,
    slug: spec.slug,
  }));
  prime(OpenApiSpecVersionNode, ctx, held);
  return held;
}

const ProcessingStateEnum = restEnum('OpenApiProcessingState', 'Where the processing of a specification stands.', {
  pending: 'Waiting to be fetched and parsed.',
  progress: 'Being fetched and parsed now.',
  complete: 'Processed: see `lastProcessErrorCode` for whether it failed (the last good version stays).',
});

const SpecVisibilityEnum = restEnum('OpenApiSpecVisibility', 'Who can read a specification outside the organization.', {
  private: 'Members of the organization only.',
  public: 'Anyone with its public link (for "Try it" consoles and published references).',
});

const ProcessErrorCodeEnum = builder.enumType('OpenApiProcessErrorCode', {
  description: 'Why the last processing of a specification failed.',
  values: {
    FETCH_TIMEOUT: { value: 'FETCH_TIMEOUT', description: 'The URL source did not answer in time.' },
    FETCH_ERROR: {
      value: 'FETCH_ERROR',
      description: 'The URL source could not be fetched (refused, an error status, too large, not allowed).',
    },
    PARSE_ERROR: {
      value: 'PARSE_ERROR',
      description: 'The document is not a valid Swagger 2.0 or OpenAPI 3.x description.',
    },
  } satisfies Record<OpenAPISpecProcessingErrorCode, unknown>,
});

const ProcessingError = builder
  .objectRef<NonNullable<OpenApiSpec['lastProcessedErrors']>[number]>('OpenApiProcessingError')
  .implement({
    description: 'A problem the last processing of a specification found.',
    fields: (t) => ({
      message: t.exposeString('message', { description: 'What is wrong, and where in the document.' }),
      code: t.string({
        nullable: true,
        description: 'Code of the problem, when the parser gives one.',
        resolve: (error) => error.code ?? null,
      }),
    }),
  });

const SpecPermissions = permissionsType<OpenApiSpec['permissions']>(
  'OpenApiSpecPermissions',
  'What you may do with a specification.',
  {
    view: 'Can read it and its versions.',
    edit: 'Can change its source and visibility, and delete it (the create role and admins).',
  },
);

const SpecVersionConnection = builder.connectionObject(
  {
    type: OpenApiSpecVersionNode,
    name: 'OpenApiSpecVersionConnection',
    description: 'A page of versions of a specification, newest first, with the size of the whole list.',
  },
  { name: 'OpenApiSpecVersionEdge', description: 'A version of a list, with its cursor.' },
);

OpenApiSpecNode.implement({
  description:
    'An OpenAPI (or Swagger 2.0) description an organization keeps up to date, from a URL or a text, for API reference pages.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the specification on the platform.' }),
    slug: t.exposeString('slug', {
      description: 'Name of the specification in its organization, as content references name it.',
    }),
    sourceUrl: t.string({
      nullable: true,
      description:
        'URL the specification is fetched from (checked for changes on a schedule); null for a text source. Credentials are never shown.',
      resolve: (s) => s.sourceURL ?? null,
    }),
    processingState: t.field({
      type: ProcessingStateEnum,
      description: 'Where its processing stands.',
      resolve: (s) => s.processingState,
    }),
    visibility: t.field({
      type: SpecVisibilityEnum,
      description: 'Who can read it outside the organization.',
      resolve: (s) => s.visibility ?? 'private',
    }),
    lastProcessedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was last processed successfully.',
      resolve: (s) => s.lastProcessedAt ?? null,
    }),
    lastProcessErrorCode: t.field({
      type: ProcessErrorCodeEnum,
      nullable: true,
      description: 'Why the last processing failed; null when it succeeded.',
      resolve: (s) => s.lastProcessErrorCode ?? null,
    }),
    lastProcessedErrors: t.field({
      type: [ProcessingError],
      description: 'Problems the last processing found (the first ones; see `lastProcessedErrorCount`).',
      resolve: (s) => s.lastProcessedErrors ?? [],
    }),
    lastProcessedErrorCount: t.int({
      description: 'Number of problems the last processing found, all of them.',
      resolve: (s) => s.lastProcessedErrorCount ?? s.lastProcessedErrors?.length ?? 0,
    }),
    lastVersion: t.field({
      type: OpenApiSpecVersionNode,
      nullable: true,
      description:
        'The latest version; null before a first successful processing (read as the latest version: one request, none for its keys alone).',
      extensions: upstream.link,
      resolve: async (s, _args, ctx, info) => {
        if (!s.lastVersion) return null;
        if (selectsOnlyKeys(info))
          return { id: s.lastVersion, organizationId: s.organizationId, slug: s.slug } as VersionHeld;
        const latest = await getSpecVersion(ctx.api, s, 'latest');
        return primeVersions(ctx, s, [latest])[0]!;
      },
    }),
    document: t.string({
      nullable: true,
      description:
        'Text of the latest version, exactly as submitted or fetched; null before a first successful processing.',
      extensions: upstream.fetch(1),
      resolve: async (s, _args, ctx) => (s.lastVersion ? (await latestRaw(ctx, s)).text : null),
    }),
    format: t.field({
      type: SpecFormatEnum,
      nullable: true,
      description: 'Format of the latest version’s text; null before a first successful processing.',
      extensions: upstream.fetch(1),
      resolve: async (s, _args, ctx) => (s.lastVersion ? (await latestRaw(ctx, s)).format : null),
    }),
    content: t.field({
      type: 'JSON',
      nullable: true,
      description:
        'The latest version parsed, as the platform keeps it (`{ entrypoint, files }`); null before a first successful processing.',
      extensions: upstream.fetch(1),
      resolve: async (s, _args, ctx) => (s.lastVersion ? (await latestContent(ctx, s)).filesystem : null),
    }),
    publicDocumentUrl: t.string({
      nullable: true,
      description:
        'Public address of the latest version’s text when the specification is public (for "Try it" consoles); null otherwise.',
      extensions: upstream.fetch(1),
      resolve: async (s, _args, ctx) => (s.lastVersion ? (await latestContent(ctx, s)).urls.public : null),
    }),
    versions: t.connection(
      {
        type: OpenApiSpecVersionNode,
        description: 'Its versions, newest first: one per processing that found a changed document.',
        resolve: async (s, args, ctx) => {
          const connection = await listConnection(args, listSpecVersions(ctx.api, s));
          return mapNodes(connection, (versions) => primeVersions(ctx, s, versions));
        },
      },
      SpecVersionConnection,
    ),
    version: t.field({
      type: OpenApiSpecVersionNode,
      nullable: true,
      description: 'One of its versions by platform id or global ID; null with NOT_FOUND when there is none.',
      args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the version.' }) },
      extensions: upstream.fetch(1),
      resolve: (s, args, ctx) => {
        const id = platformKey(String(args.id), 'OpenApiSpecVersion');
        const key = id.includes('/') ? id : compositeKey(s.organizationId, s.slug, id);
        return loadOrThrow(OpenApiSpecVersionNode, ctx, key);
      },
    }),
    permissions: t.field({
      type: SpecPermissions,
      description: 'What you may do with it.',
      resolve: (s) => s.permissions,
    }),
    appUrl: t.string({ description: 'Where it is managed in the app.', resolve: (s) => s.urls.app }),
    publishedUrl: t.string({
      nullable: true,
      description: 'Its public address, when it is public and the platform gives one.',
      resolve: (s) => s.urls.published ?? null,
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was added.', resolve: (s) => s.createdAt }),
    updatedAt: t.field({ type: 'DateTime', description: 'When it last changed.', resolve: (s) => s.updatedAt }),
    organization: t.field({
      type: OrganizationNode,
      description: 'The organization it belongs to.',
      extensions: upstream.link,
      resolve: (s, _args, _ctx, info) => linkTo(OrganizationNode, s.organizationId, info),
    }),
  }),
});

OpenApiSpecVersionNode.implement({
  description: 'The document of a specification as one processing found it.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the version on the platform.' }),
    createdAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When this version was found.',
      resolve: (v) => v.createdAt ?? null,
    }),
    url: t.string({
      description:
        'Where the text of this version is served (no token needed: the URL is signed; credentials in it are never shown).',
      extensions: upstream.link,
      resolve: async (v, _args, ctx) => withoutUserInfo((await loaded(ctx, v)).url),
    }),
    document: t.string({
      nullable: true,
      description:
        'The text of the specification, exactly as it was submitted or fetched (JSON or YAML); null with an error when it cannot be read.',
      extensions: upstream.fetch(2),
      resolve: async (v, _args, ctx) => (await ctx.api.download((await loaded(ctx, v)).url, MAX_DOCUMENT_BYTES)).text,
    }),
    format: t.field({
      type: SpecFormatEnum,
      nullable: true,
      description: 'Format of the text.',
      extensions: upstream.fetch(2),
      resolve: async (v, _args, ctx) => {
        const url = (await loaded(ctx, v)).url;
        // The name of the file says it, when it has one; else what it is served as.
        const extension = /\.(json|ya?ml)$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
        if (extension) return extension === 'json' ? ('json' as const) : ('yaml' as const);
        const { contentType } = await ctx.api.download(url, MAX_DOCUMENT_BYTES);
        return contentType?.includes('json')
          ? ('json' as const)
          : contentType?.includes('yaml')
            ? ('yaml' as const)
            : null;
      },
    }),
    content: t.field({
      type: 'JSON',
      description: 'The parsed document as the platform keeps it: `{ entrypoint, files }` (its filesystem).',
      extensions: upstream.fetch(1),
      resolve: async (v, _args, ctx) => (await getSpecVersionContent(ctx.api, v, v.id)).filesystem,
    }),
    publicUrl: t.string({
      nullable: true,
      description:
        'Public address of this text when the specification is public (for "Try it" consoles); null otherwise.',
      extensions: upstream.fetch(1),
      resolve: async (v, _args, ctx) => (await getSpecVersionContent(ctx.api, v, v.id)).urls.public,
    }),
    spec: t.field({
      type: OpenApiSpecNode,
      description: 'The specification it is a version of.',
      extensions: upstream.fetch(1),
      resolve: (v, _args, ctx) => loadOrThrow(OpenApiSpecNode, ctx, compositeKey(v.organizationId, v.slug)),
    }),
  }),
});

const SpecFormatEnum = restEnum('OpenApiSpecFormat', 'Format of the text of a specification.', {
  json: 'JSON.',
  yaml: 'YAML.',
});

const latestRaw = (ctx: GatewayContext, s: SpecHeld) => getLatestSpecVersionRaw(ctx.api, s);
const latestContent = (ctx: GatewayContext, s: SpecHeld) => getSpecVersionContent(ctx.api, s, 'latest');

/** A URL with any `user:password@` removed (a signed query is kept: it is the URL's permission). */
function withoutUserInfo(value: string): string {
  const url = URL.parse(value);
  if (!url || (!url.username && !url.password)) return value;
  url.username = '';
  url.password = '';
  return url.toString();
}

/** A version in full: a link stub holds its keys only. */
async function loaded(ctx: GatewayContext, version: VersionHeld): Promise<VersionHeld> {
  if (version.url !== undefined) return version;
  return OpenApiSpecVersionNode.getDataloader(ctx).load(
    compositeKey(version.organizationId, version.slug, version.id),
  ) as Promise<VersionHeld>;
}

const OpenApiSpecEdge = builder.edgeObject({
  type: OpenApiSpecNode,
  name: 'OpenApiSpecEdge',
  description: 'An OpenAPI specification of a list, with its cursor.',
});

const SpecConnection = builder.connectionObject(
  {
    type: OpenApiSpecNode,
    name: 'OpenApiSpecConnection',
    description: 'A page of OpenAPI specifications, with the size of the whole list.',
  },
  OpenApiSpecEdge,
);

builder.objectFields(OrganizationNode, (t) => ({
  openApiSpecs: t.connection(
    {
      type: OpenApiSpecNode,
      nullable: true,
      description: 'OpenAPI specifications of the organization (members read them).',
      resolve: async (org, args, ctx) => {
        const connection = await listConnection(args, listSpecs(ctx.api, org.id));
        return mapNodes(connection, (specs) => primeSpecs(ctx, org.id, specs));
      },
    },
    SpecConnection,
  ),
  openApiSpec: t.field({
    type: OpenApiSpecNode,
    nullable: true,
    description: 'An OpenAPI specification of the organization by slug; null with NOT_FOUND when there is none.',
    args: { slug: t.arg.string({ required: true, description: 'Slug of the specification.' }) },
    extensions: upstream.fetch(1),
    resolve: (org, args, ctx) => loadOrThrow(OpenApiSpecNode, ctx, compositeKey(org.id, args.slug)),
  }),
}));

/** The specification a page's computed source depends on (its space's organization, the slug of the source). */
async function specOfPage(
  page: { spaceId: string; page: RevisionPage },
  ctx: GatewayContext,
): Promise<SpecHeld | null> {
  const slug = specSlugOf(page.page.computed);
  if (!slug) return null;
  const space = await SpaceNode.getDataloader(ctx).load(page.spaceId);
  if (space instanceof Error) throw space;
  const spec = await OpenApiSpecNode.getDataloader(ctx).load(compositeKey(space.organization, slug));
  if (spec instanceof Error) throw spec;
  return spec;
}

// The specification a computed page generates its pages from, and the one a generated page came from.
builder.objectFields(ComputedPageNode, (t) => ({
  openApiSpec: t.field({
    type: OpenApiSpecNode,
    nullable: true,
    description:
      'The OpenAPI specification the pages are generated from (`builtin:openapi` sources); null for other sources.',
    extensions: upstream.fetch(2),
    resolve: (page, _args, ctx) => specOfPage(page, ctx),
  }),
}));

builder.objectFields(DocumentPageNode, (t) => ({
  computedSource: t.field({
    type: 'JSON',
    nullable: true,
    description:
      'For a page generated by computed content (an API reference page), the source of its document; null for a written page.',
    resolve: (page) => page.page.computed ?? null,
  }),
  openApiSpec: t.field({
    type: OpenApiSpecNode,
    nullable: true,
    description: 'For a page generated from an OpenAPI specification, that specification; null otherwise.',
    extensions: upstream.fetch(2),
    resolve: (page, _args, ctx) => specOfPage(page, ctx),
  }),
}));

/** The slug a `builtin:openapi` source depends on. */
function specSlugOf(source: Record<string, unknown> | undefined): string | undefined {
  if (source?.type !== 'builtin:openapi') return undefined;
  const ref = (source.dependencies as { spec?: { ref?: { kind?: unknown; spec?: unknown } } } | undefined)?.spec?.ref;
  return ref?.kind === 'openapi' && typeof ref.spec === 'string' ? ref.spec : undefined;
}

// --- Computed content --------------------------------------------------------------------------

const slugCheck = specSlug;

const GroupingEnum = builder.enumType('OpenApiPageGrouping', {
  description: 'How an API reference lays out its pages.',
  values: {
    BY_TAG: { value: 'by-tag', description: 'One page per tag, its operations on it.' },
    BY_OPERATION: { value: 'by-operation', description: 'One page per tag, with a page per operation inside.' },
  },
});

const OpenApiReferenceInput = inputObject('OpenApiReferenceSourceInput', {
  description: 'An API reference generated from an OpenAPI specification of the organization.',
  fields: {
    spec: inputField('String', 'Slug of the specification.', slugCheck),
    models: inputField('Boolean', 'Add a "Models" page with the schemas (default true).', z.boolean().nullish()),
    downloadLink: inputField('Boolean', 'Offer the specification for download (default false).', z.boolean().nullish()),
    grouping: inputField(
      GroupingEnum,
      'How pages are laid out (default BY_TAG).',
      z.enum(['by-tag', 'by-operation']).nullish(),
    ),
  },
});

const ComputedRevisionSourceInput = inputObject('ComputedRevisionSourceInput', {
  description: 'What generates pages: one of the sources.',
  oneOf: true,
  fields: {
    openApi: inputField(
      OpenApiReferenceInput.type,
      'Pages from an OpenAPI specification (`builtin:openapi`).',
      OpenApiReferenceInput.schema.nullish(),
    ),
    json: inputField(
      'JSON',
      'Any computed source as the platform takes it (`{ type, props, dependencies }`).',
      z.record(z.string(), z.unknown()).nullish(),
    ),
  },
});

const DocumentKindEnum = builder.enumType('OpenApiDocumentKind', {
  description: 'Which part of a specification a generated document shows.',
  values: {
    MODELS: { value: 'models', description: 'The schemas (models).' },
    OPERATIONS: { value: 'operations', description: 'The operations of a page (a tag).' },
    INFO: { value: 'info', description: 'The description of a tag.' },
    TAG: { value: 'tag', description: 'A tag: its description and operations.' },
    OPERATION: { value: 'operation', description: 'One operation (give `page` as its path and `method`).' },
  },
});

const OPERATION_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace', 'hook'] as const;

const OperationMethodEnum = restEnum('OpenApiOperationMethod', 'The HTTP method of an operation of a specification.', {
  get: 'GET.',
  put: 'PUT.',
  post: 'POST.',
  delete: 'DELETE.',
  options: 'OPTIONS.',
  head: 'HEAD.',
  patch: 'PATCH.',
  trace: 'TRACE.',
  hook: 'A webhook (under `webhooks`), named by `page`.',
} satisfies Record<(typeof OPERATION_METHODS)[number], string>);

const OpenApiDocumentInput = inputObject('OpenApiDocumentSourceInput', {
  description: 'A document generated from an OpenAPI specification of the organization.',
  fields: {
    spec: inputField('String', 'Slug of the specification.', slugCheck),
    doc: inputField(
      DocumentKindEnum,
      'Which part to show.',
      z.enum(['models', 'operations', 'info', 'tag', 'operation']),
    ),
    page: inputField(
      'String',
      'The tag (or, for OPERATION, the path) the document is about; not for MODELS. At most 1000 characters.',
      z.string().min(1, 'must not be empty').max(1000, 'must be at most 1000 characters').nullish(),
    ),
    method: inputField(
      OperationMethodEnum,
      'HTTP method of the operation (OPERATION only), or HOOK for a webhook.',
      z.enum(OPERATION_METHODS).nullish(),
    ),
  },
  check: (object) =>
    object.superRefine((value, ctx) => {
      if (value.doc !== 'models' && !value.page)
        ctx.addIssue({ code: 'custom', path: ['page'], message: 'is required except for MODELS' });
      if (value.doc === 'operation' && !value.method)
        ctx.addIssue({ code: 'custom', path: ['method'], message: 'is required for OPERATION' });
    }),
});

const ComputedDocumentSourceInput = inputObject('ComputedDocumentSourceInput', {
  description: 'What generates a document: one of the sources.',
  oneOf: true,
  fields: {
    openApi: inputField(
      OpenApiDocumentInput.type,
      'A document from an OpenAPI specification (`builtin:openapi`).',
      OpenApiDocumentInput.schema.nullish(),
    ),
    json: inputField(
      'JSON',
      'Any computed source as the platform takes it (`{ type, props, dependencies }`).',
      z.record(z.string(), z.unknown()).nullish(),
    ),
  },
});

const openApiDependency = (spec: string) => ({ spec: { ref: { kind: 'openapi', spec } } });

/** The REST source of a checked `ComputedRevisionSourceInput`. */
function revisionSource(input: z.output<typeof ComputedRevisionSourceInput.schema>): Record<string, unknown> {
  if (input.json) return input.json;
  const o = input.openApi!;
  const props = {
    ...(o.models != null && { models: o.models }),
    ...(o.downloadLink != null && { downloadLink: o.downloadLink }),
    ...(o.grouping != null && { grouping: o.grouping }),
  };
  return { type: 'builtin:openapi', props, dependencies: openApiDependency(o.spec) };
}

function documentSource(input: z.output<typeof ComputedDocumentSourceInput.schema>): Record<string, unknown> {
  if (input.json) return input.json;
  const o = input.openApi!;
  const props = { doc: o.doc, ...(o.page != null && { page: o.page }), ...(o.method != null && { method: o.method }) };
  return { type: 'builtin:openapi', props, dependencies: openApiDependency(o.spec) };
}

/** Parses a field argument with its input schema; a failure is BAD_USER_INPUT naming the argument path. */
function parseArgument<S extends z.ZodType>(schema: S, value: unknown, name: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new BadUserInputError(`\`${[name, ...issue.path].join('.')}\` ${issue.message}`, [
    name,
    ...issue.path.map(String),
  ]);
}

const seedCheck = z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

interface GeneratedHeld {
  spaceId: string;
  page: RevisionPage;
}

const GeneratedPage = builder.objectRef<GeneratedHeld>('GeneratedPage');
GeneratedPage.implement({
  description: 'A page computed content generates (an API reference page, say): not stored, made on each read.',
  fields: (t) => ({
    generatedId: t.string({
      description: 'Id of the page as generated (stable for the same source and seed).',
      resolve: (g) => g.page.id,
    }),
    title: t.string({ description: 'Title of the page.', resolve: (g) => g.page.title }),
    slug: t.string({ nullable: true, description: 'Slug of the page.', resolve: (g) => g.page.slug ?? null }),
    description: t.string({
      nullable: true,
      description: 'Description of the page.',
      resolve: (g) => g.page.description ?? null,
    }),
    emoji: t.string({ nullable: true, description: 'Emoji of the page.', resolve: (g) => g.page.emoji ?? null }),
    icon: t.string({ nullable: true, description: 'Icon of the page.', resolve: (g) => g.page.icon ?? null }),
    source: t.field({
      type: 'JSON',
      nullable: true,
      description: 'The computed source of its document.',
      resolve: (g) => g.page.computed ?? null,
    }),
    seed: t.string({
      nullable: true,
      description: 'Seed its document is generated with.',
      resolve: (g) => g.page.computedSeed ?? null,
    }),
    document: t.field({
      type: DocumentType,
      nullable: true,
      description: 'Its document, generated (one request per page).',
      extensions: upstream.fetch(1),
      resolve: (g, _args, ctx) =>
        g.page.computed && g.page.computedSeed !== undefined
          ? computeDocument(ctx.api, g.spaceId, { source: g.page.computed, seed: g.page.computedSeed })
          : null,
    }),
    children: t.field({
      type: [GeneratedPage],
      description: 'Pages generated inside it.',
      resolve: (g) => (g.page.pages ?? []).map((page) => ({ spaceId: g.spaceId, page })),
    }),
  }),
});

builder.objectFields(SpaceNode, (t) => ({
  computedRevision: t.field({
    type: [GeneratedPage],
    nullable: true,
    description:
      'The pages a computed source generates in this space (an API reference from an OpenAPI specification), as they would be now; nothing is stored.',
    args: {
      source: t.arg({
        type: ComputedRevisionSourceInput.type,
        required: true,
        description: 'What generates the pages.',
      }),
      seed: t.arg.string({
        required: true,
        description: 'Seed of the generation: the same seed gives the same page ids.',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: async (space, args, ctx) => {
      const source = revisionSource(parseArgument(ComputedRevisionSourceInput.schema, args.source, 'source'));
      const seed = parseArgument(seedCheck, args.seed, 'seed');
      const answer = await computeRevision(ctx.api, space.id, { source, seed });
      return answer.pages.map((page) => ({ spaceId: space.id, page }));
    },
  }),
  computedDocument: t.field({
    type: DocumentType,
    nullable: true,
    description:
      'The document a computed source generates in this space (one operation of an OpenAPI specification, say), as it would be now.',
    args: {
      source: t.arg({
        type: ComputedDocumentSourceInput.type,
        required: true,
        description: 'What generates the document.',
      }),
      seed: t.arg.string({
        required: true,
        description: 'Seed of the generation: the same seed gives the same block keys.',
      }),
    },
    extensions: upstream.fetch(1),
    resolve: (space, args, ctx) => {
      const source = documentSource(parseArgument(ComputedDocumentSourceInput.schema, args.source, 'source'));
      const seed = parseArgument(seedCheck, args.seed, 'seed');
      return computeDocument(ctx.api, space.id, { source, seed });
    },
  }),
}));

// --- Mutations ---------------------------------------------------------------------------------

const sourceUrl = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .url('must be an absolute URL')
  .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL');

const SpecSourceInput = inputObject('OpenApiSpecSourceInput', {
  description: 'Where a specification comes from: a URL (checked for changes on a schedule) or a text.',
  oneOf: true,
  fields: {
    url: inputField(
      'String',
      'An http(s) URL serving the document (JSON or YAML), at most 2048 characters.',
      sourceUrl.nullish(),
    ),
    text: inputField(
      'String',
      'The document itself (JSON or YAML), at most 5 MiB.',
      z
        .string()
        .min(1, 'must not be empty')
        .max(5 * 1024 * 1024, 'must be at most 5 MiB')
        .nullish(),
    ),
  },
});

const restSource = (source: { url?: string | null; text?: string | null }) =>
  source.url != null ? { url: source.url } : { text: source.text! };

const SpecPayload = (name: string, description = 'The specification after the change.') =>
  objectPayload(name, 'spec', OpenApiSpecNode, description);

/** The fields naming a specification: its global ID, or its slug with `organizationId`. */
const specTarget = {
  organizationId: inputField(
    'ID',
    'Platform id or global ID of the organization; required with `slug`.',
    z.string().trim().min(1).nullish(),
  ),
  slug: inputField('String', 'Slug of the specification, with `organizationId`.', slugCheck.nullish()),
  specId: inputField(
    'ID',
    'Global ID of the specification, instead of `organizationId` and `slug`.',
    z.string().trim().min(1).nullish(),
  ),
};

/** A specification the platform does not find (its path parameter `specSlug`) is the one the input names. */
const specInputPath = (restField: string[] | null, _code: unknown, input: Record<string, unknown>) =>
  restField?.[0] === 'specSlug' ? [input.specId != null ? 'specId' : 'slug'] : undefined;

function resolveSpec<T extends { organizationId?: string | null; slug?: string | null; specId?: string | null }>(
  value: T,
  ctx: z.RefinementCtx,
): Omit<T, 'organizationId' | 'slug' | 'specId'> & { organizationId: string; slug: string } {
  let org: string | undefined;
  try {
    org = value.organizationId ? platformKey(value.organizationId, 'Organization') : undefined;
  } catch (error) {
    ctx.addIssue({ code: 'custom', path: ['organizationId'], message: (error as Error).message });
    return z.NEVER;
  }
  if (value.specId) {
    let organizationId: string;
    let slug: string;
    try {
      if (!decodeKnownGlobalId(value.specId))
        throw new Error('must be the global ID of an OpenApiSpec (or give organizationId and slug)');
      [organizationId, slug] = splitKey(platformKey(value.specId, 'OpenApiSpec'), 2, 'OpenApiSpec') as [string, string];
    } catch (error) {
      ctx.addIssue({ code: 'custom', path: ['specId'], message: (error as Error).message });
      return z.NEVER;
    }
    if ((org !== undefined && org !== organizationId) || (value.slug != null && value.slug !== slug)) {
      ctx.addIssue({
        code: 'custom',
        path: ['specId'],
        message: 'names another specification than organizationId and slug',
      });
      return z.NEVER;
    }
    return { ...value, organizationId, slug };
  }
  if (org === undefined || value.slug == null) {
    ctx.addIssue({
      code: 'custom',
      path: [org === undefined ? 'organizationId' : 'slug'],
      message: 'give specId, or organizationId and slug',
    });
    return z.NEVER;
  }
  return { ...value, organizationId: org, slug: value.slug };
}

declareMutation('createOpenApiSpec', {
  description:
    'Adds an OpenAPI specification to an organization (the create role): processed in the background (PENDING, then COMPLETE), each changed document a new version. A slug already taken is CONFLICT.',
  input: 'The slug and the source of the specification.',
  fields: {
    organizationId: organizationIdField,
    slug: inputField(
      'String',
      'Slug naming it in the organization: letters and digits in groups joined by single "-", 1 to 100 characters.',
      slugCheck,
    ),
    source: inputField(SpecSourceInput.type, 'Where the document comes from.', SpecSourceInput.schema),
  },
  payload: (name) =>
    objectPayload(name, 'spec', OpenApiSpecNode, 'The new specification.', {
      type: OpenApiSpecEdge,
      what: 'specification',
      lists: '`Organization.openApiSpecs`',
    }),
  run: async (i, ctx) => {
    const spec = await createSpec(ctx.api, i.organizationId, { slug: i.slug, source: restSource(i.source) });
    return { spec: primeSpecs(ctx, i.organizationId, [spec])[0]! };
  },
});

declareMutation('updateOpenApiSpec', {
  description:
    'Gives a specification a new source, or processes the same source again (a URL: checks it for changes now); creates the specification when the slug is new (the create role). A new version is made only when the document changed.',
  input: 'The specification and its source.',
  fields: {
    ...specTarget,
    source: inputField(SpecSourceInput.type, 'Where the document comes from.', SpecSourceInput.schema),
  },
  check: (input) => input.transform(resolveSpec),
  inputPath: specInputPath,
  payload: (name) =>
    payloadType<{ spec: SpecHeld; created: boolean }>(name, (t) => ({
      spec: t.field({
        type: OpenApiSpecNode,
        nullable: true,
        description: 'The specification, processing again.',
        resolve: (p) => p.spec ?? null,
      }),
      created: t.boolean({
        nullable: true,
        description: 'True when the slug was new and the specification created.',
        resolve: (p) => p.created ?? null,
      }),
    })),
  run: async (i, ctx) => {
    const { status, data } = await putSpec(ctx.api, i, { source: restSource(i.source) });
    return { spec: primeSpecs(ctx, i.organizationId, [data])[0]!, created: status === 201 };
  },
});

declareMutation('setOpenApiSpecVisibility', {
  description:
    'Makes a specification public (anyone with its link can read it, for "Try it" consoles) or private (the create role).',
  input: 'The specification and its visibility.',
  fields: {
    ...specTarget,
    visibility: inputField(SpecVisibilityEnum, 'Who can read it outside the organization.', S.OpenAPISpecVisibility),
  },
  check: (input) => input.transform(resolveSpec),
  inputPath: specInputPath,
  payload: SpecPayload,
  run: async (i, ctx) => {
    const spec = await updateSpec(ctx.api, i, { visibility: i.visibility });
    return { spec: primeSpecs(ctx, i.organizationId, [spec])[0]! };
  },
});

declareMutation('deleteOpenApiSpec', {
  description: 'Deletes a specification and its versions (the create role); pages computed from it generate nothing.',
  input: 'The specification to delete.',
  fields: specTarget,
  check: (input) => input.transform(resolveSpec),
  inputPath: specInputPath,
  payload: (name) => deletedPayload(name, 'True when the specification was deleted, false when it did not exist.'),
  run: (i, ctx) => deletionOf('OpenApiSpec', compositeKey(i.organizationId, i.slug), deleteSpec(ctx.api, i)),
});

builder.subscriptionField('openApiSpecUpdated', (t) =>
  t.field({
    type: OpenApiSpecNode,
    description:
      'An OpenAPI specification: first as it is, then after each change (a new version uploaded or fetched, its processing started, done or failed). Ends with NOT_FOUND when it is deleted or no longer visible to you.',
    args: {
      organizationId: t.arg.id({ required: true, description: 'Platform id or global ID of the organization.' }),
      slug: t.arg.string({ required: true, description: 'The slug of the specification.' }),
    },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const organizationId = platformKey(String(args.organizationId), 'Organization');
      const slug = args.slug.trim();
      if (!slug) throw new BadUserInputError('slug must not be empty', ['slug']);
      return follow(ctx, `openapi ${organizationId} ${slug}`, async (api) => ({
        ...(await getSpec(api, { organizationId, slug })),
        organizationId,
      }));
    },
    resolve: (spec, _args, ctx) => {
      prime(OpenApiSpecNode, ctx, [spec]);
      return spec;
    },
  }),
);

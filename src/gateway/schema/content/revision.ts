import type { FieldNode, GraphQLResolveInfo } from 'graphql';
import { selectedFieldNames, selectedFields, selectsOnlyKeys } from '../kit/links.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { GatewayError } from '../../errors.js';
import { compositeKey, platformKey, splitKey } from '../kit/ids.js';
import { getPageTree, getRevision } from '../../upstream/content.js';
import type { PageOfAnyType as RevisionPage } from '../../upstream/content.js';
import { S } from '../../upstream/contract/schemas.js';
import type { Revision, RevisionFile } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { brandAs, linkTo, loadableNode, prime } from '../kit/loaders.js';
import { restEnum } from '../kit/enums.js';
import { SpaceNode } from '../spaces.js';
import { follow } from '../kit/live.js';
import { getSpace } from '../../upstream/spaces.js';

/**
 * Revisions of a space's content, as the gateway holds them. A revision never changes once
 * written, so whatever is read under a revision id (the revision, its page tree, a page's
 * markdown, a document by id, its changes) is kept for the rest of the request, writes included.
 */

/**
 * A revision with the space it belongs to (its REST paths need both). `current`: reached as the
 * current content of its space, so its parts are read under `/spaces/{id}/content`. `light`: only
 * its address is known (the query asked nothing of it but its tree, files or single items, which
 * are then read by the narrow operations instead of the whole revision). `onePage`: of a light
 * revision, one page is asked, without its parent: it is read alone, by id or by path.
 * `changeRequest`: reached as the content of that change request, so its parts are read under
 * `/spaces/{id}/change-requests/{changeRequestId}/content`.
 */
export type RevisionHeld = Revision & {
  spaceId: string;
  current?: boolean;
  light?: boolean;
  onePage?: boolean;
  changeRequest?: string;
};

/** A page of a revision, placed in its tree. */
export interface PageHeld {
  /** The page's platform id. */
  id: string;
  page: RevisionPage;
  spaceId: string;
  revisionId: string;
  /** The revision holding it, when the gateway read it (always, except for detached pages). */
  revision: RevisionHeld | undefined;
  parent: PageHeld | undefined;
  children: PageHeld[];
  /** Read outside its revision's tree: its parent is not known without reading the tree. */
  detached?: boolean;
  /** Its children were left out of the answer it came in (a link report's locations): the tree has them. */
  childrenUnknown?: boolean;
}

/** A file of a revision. */
export type FileHeld = RevisionFile & {
  spaceId: string;
  revisionId: string;
  revision: RevisionHeld | undefined;
  changeRequest?: string | undefined;
};

/** The pages of a revision by id and by path, in tree order, and its landing page. */
export interface RevisionIndex {
  top: PageHeld[];
  byId: Map<string, PageHeld>;
  byPath: Map<string, PageHeld>;
  /** The first document page (links and computed pages skipped, groups entered): path `""`. */
  landing: PageHeld | undefined;
  files: Map<string, FileHeld>;
}

/** GraphQL type of each page variant. */
export const PAGE_TYPENAMES = {
  document: 'DocumentPage',
  group: 'GroupPage',
  link: 'LinkPage',
  computed: 'ComputedPage',
} as const;

const indexes = new WeakMap<RevisionHeld, RevisionIndex>();

/** The index of a revision's pages and files, built once per revision object. */
export function revisionIndex(revision: RevisionHeld): RevisionIndex {
  let index = indexes.get(revision);
  if (index) return index;
  index = { top: [], byId: new Map(), byPath: new Map(), landing: undefined, files: new Map() };
  const built = index;
  const walk = (pages: readonly RevisionPage[], parent: PageHeld | undefined): PageHeld[] =>
    pages.map((page) => {
      const held = placePage(page, revision.spaceId, revision.id, revision, parent);
      built.byId.set(page.id, held);
      if (
        (page.type === 'document' || page.type === 'group') &&
        page.path !== undefined &&
        !built.byPath.has(page.path)
      ) {
        built.byPath.set(page.path, held);
      }
      if (!built.landing && page.type === 'document') built.landing = held;
      held.children = walk(page.pages ?? [], held);
      return held;
    });
  index.top = walk(revision.pages, undefined);
  for (const file of revision.files) index.files.set(file.id, placeFile(file, revision.spaceId, revision.id, revision));
  indexes.set(revision, index);
  return index;
}

/** A file as held, branded as a `File`; `revision` only when the request read it whole. */
export function placeFile(
  file: Omit<RevisionFile, 'size'> & { size?: number },
  spaceId: string,
  revisionId: string,
  revision: RevisionHeld | undefined,
): FileHeld {
  const held: FileHeld = {
    size: 0,
    ...file,
    spaceId,
    revisionId,
    revision: revision && !revision.light ? revision : undefined,
  };
  // Reached through a change request: what is read of it is read through the change request too.
  if (revision?.changeRequest) held.changeRequest = revision.changeRequest;
  brandAs(held, 'File');
  return held;
}

/** A page as held, branded with its GraphQL type (pages are read through the `Page` interface). */
export function placePage(
  page: RevisionPage,
  spaceId: string,
  revisionId: string,
  revision: RevisionHeld | undefined,
  parent: PageHeld | undefined,
): PageHeld {
  const held: PageHeld = { id: page.id, page, spaceId, revisionId, revision, parent, children: [] };
  brandAs(held, PAGE_TYPENAMES[page.type]);
  return held;
}

/**
 * A page outside any tree the gateway read (read alone, or from a location): its own children
 * only; its parent, when asked, is found in the revision's tree (read then).
 */
export function detachedPage(
  page: RevisionPage,
  spaceId: string,
  revisionId: string,
  revision?: RevisionHeld,
): PageHeld {
  const held = placePage(page, spaceId, revisionId, revision, undefined);
  held.detached = true;
  held.children = (page.pages ?? []).map((child) => {
    const placed = detachedPage(child, spaceId, revisionId, revision);
    placed.parent = held;
    placed.detached = false;
    return placed;
  });
  return held;
}

/** The page at `path` (leading and trailing slashes ignored): `""` is the landing page. */
export function pageAtPath(index: RevisionIndex, path: string): PageHeld | undefined {
  const normalized = path.replace(/^\/+|\/+$/g, '');
  return normalized === '' ? index.landing : index.byPath.get(normalized);
}

/** The NOT_FOUND error of something missing from a revision the gateway read. */
export function notFound(what: string, id: string): GatewayError {
  return new GatewayError('NOT_FOUND', `${what} not found: ${JSON.stringify(id.slice(0, 100))}`);
}

// --- The per-request cache of immutable reads -----------------------------------------------------

/**
 * Reads what never changes under `key` once per request (kept by its API: `immutableReads`):
 * later asks share the first read, even after a write (which clears the other per-request
 * caches). Failures are kept too.
 */
export function readOnce<T>(ctx: GatewayContext, key: string, read: () => Promise<T>): Promise<T> {
  const reads = ctx.api.immutableReads;
  const known = reads.get(key);
  if (known) {
    ctx.api.usage.sharedReads += 1;
    return known as Promise<T>;
  }
  const promise = read();
  reads.set(key, promise);
  return promise;
}

/**
 * A document read once per request under `key`, a key that names it for good (its id, or a
 * revision's id with a page's or a reusable content's): its conversions to markdown and text may
 * be kept across requests (see `RequestConversions.immutable`).
 */
export function readDocumentOnce<T extends object>(
  ctx: GatewayContext,
  key: string,
  read: () => Promise<T>,
): Promise<T> {
  return readOnce(ctx, key, async () => {
    const document = await read();
    ctx.conversions.immutable(document, key);
    return document;
  });
}

/**
 * Keeps a revision of `spaceId` that arrived inside another answer (`raw`, not parsed yet), as if
 * it had been read by id; true when the request holds that revision (kept now or read before).
 */
export function keepRevision(ctx: GatewayContext, spaceId: string, raw: { id: string }): boolean {
  const reads = ctx.api.immutableReads;
  const key = `revision:${compositeKey(spaceId, raw.id)}`;
  if (reads.has(key)) return true;
  const parsed = S.Revision.safeParse(raw);
  if (!parsed.success) return false;
  const revision: RevisionHeld = { ...parsed.data, spaceId };
  reads.set(key, Promise.resolve(revision));
  prime(RevisionNode, ctx, [revision]);
  return true;
}

/** A revision of a space by id: one request per request, whatever asks for it. */
export function readRevision(ctx: GatewayContext, spaceId: string, revisionId: string): Promise<RevisionHeld> {
  return readOnce(ctx, `revision:${compositeKey(spaceId, revisionId)}`, async () => ({
    ...(await getRevision(ctx.api, { spaceId, id: revisionId })),
    spaceId,
  }));
}

/**
 * The revision a page, file or reusable content hands out as its `revision`: the one the request
 * holds when it was read whole, else a link by key (read whole if more than its keys is asked).
 * A light revision is never handed out: it lacks all but its address.
 */
export function revisionOfPart(
  part: { spaceId: string; revisionId: string; revision?: RevisionHeld | undefined },
  info: GraphQLResolveInfo,
): RevisionHeld | string {
  if (part.revision && !part.revision.light) return part.revision;
  return linkTo(
    RevisionNode,
    compositeKey(part.spaceId, part.revisionId),
    info,
    revisionStub(part.spaceId, part.revisionId),
  );
}

/** Fields of a revision that need nothing of it but its address. */
const ADDRESS_FIELDS: ReadonlySet<string> = new Set(['id', 'platformId', '__typename', 'space']);

/** Fields of a revision that a narrow read answers, by read: its tree, its files, one file, one reusable content. */
const NARROW_READS: Readonly<Record<string, string>> = {
  pages: 'tree',
  page: 'tree',
  files: 'files',
  file: 'file',
  reusableContent: 'reusable',
};

/**
 * How many narrow reads what is asked of a revision takes (Infinity when something needs the
 * whole revision). One is cheaper than the whole revision; two or more, and it is read whole once.
 */
function narrowReads(info: GraphQLResolveInfo): number {
  const reads = new Set<string>();
  for (const name of selectedFieldNames(info)) {
    if (ADDRESS_FIELDS.has(name)) continue;
    const read = NARROW_READS[name];
    if (!read) return Infinity;
    reads.add(read);
  }
  return reads.size;
}

/** True when `field`'s selection asks for `name` at any depth (through fragments). */
function selectsField(field: FieldNode, info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const visit = (selectionSet: FieldNode['selectionSet']): boolean =>
    (selectionSet?.selections ?? []).some((selection) => {
      if (selection.kind === 'Field') return selection.name.value === name || visit(selection.selectionSet);
      if (selection.kind === 'InlineFragment') return visit(selection.selectionSet);
      if (seen.has(selection.name.value)) return false;
      seen.add(selection.name.value);
      return visit(info.fragments[selection.name.value]?.selectionSet);
    });
  return visit(field.selectionSet);
}

/** A revision known by its address only (see `RevisionHeld.light`). */
export function lightRevision(
  spaceId: string,
  revisionId: string,
  current: boolean,
  changeRequest?: string,
): RevisionHeld {
  return { id: revisionId, spaceId, current, light: true, ...(changeRequest ? { changeRequest } : {}) } as RevisionHeld;
}

/**
 * The revision a field hands out, read as little as the query needs: a stub for its keys, its
 * address when what is asked of it takes one narrow read (its tree, its files, one file or one
 * reusable content), otherwise the whole revision (the current content by `/content`, an older
 * one by id through the loader).
 */
export function revisionFor(
  ctx: GatewayContext,
  info: GraphQLResolveInfo,
  spaceId: string,
  revisionId: string,
  current: boolean,
  changeRequest?: string,
): RevisionHeld | string | Promise<RevisionHeld> {
  // The current revision (and a change request's) exists; a revision asked by id is read to know it does.
  const known = current || changeRequest !== undefined;
  if (selectsOnlyKeys(info))
    return known
      ? { ...revisionStub(spaceId, revisionId)(), current, ...(changeRequest ? { changeRequest } : {}) }
      : compositeKey(spaceId, revisionId);
  // A revision asked by id is read narrowly only when a narrow read is asked (which fails with
  // NOT_FOUND for a revision that does not exist): asked nothing, it is read to know it exists.
  const reads = narrowReads(info);
  if (known ? reads <= 1 : reads === 1) {
    const light = lightRevision(spaceId, revisionId, current, changeRequest);
    const pages = selectedFields(info, 'page');
    // One page without its parent is one narrow read of its own; more, or a parent, take the tree.
    if (pages.length === 1 && selectedFields(info, 'pages').length === 0)
      light.onePage = !selectsField(pages[0]!, info, 'parent');
    return light;
  }
  if (changeRequest) {
    return readOnce(ctx, `revision:${compositeKey(spaceId, revisionId)}:${changeRequest}`, async () => {
      const answer = await getRevision(ctx.api, { spaceId, changeRequest });
      // The change request moved on since it was read: its revision is read by id, so that what
      // is kept under that id is that revision.
      const revision: RevisionHeld =
        answer.id === revisionId
          ? { ...answer, spaceId, changeRequest }
          : { ...(await getRevision(ctx.api, { spaceId, id: revisionId })), spaceId };
      prime(RevisionNode, ctx, [revision]);
      return revision;
    });
  }
  if (!current) return compositeKey(spaceId, revisionId);
  return readOnce(ctx, `revision:${compositeKey(spaceId, revisionId)}`, async () => {
    const answer = await getRevision(ctx.api, { spaceId, current: true });
    // The content moved since the space was read: its revision is read by id, so that what is
    // kept under that id is that revision.
    const revision: RevisionHeld =
      answer.id === revisionId
        ? { ...answer, spaceId, current: true }
        : { ...(await getRevision(ctx.api, { spaceId, id: revisionId })), spaceId };
    prime(RevisionNode, ctx, [revision]);
    return revision;
  });
}

/**
 * The index of a revision's pages: from the revision when it was read, otherwise from its page
 * tree alone (`…/pages`), read once per request.
 */
export function treeIndex(ctx: GatewayContext, revision: RevisionHeld): RevisionIndex | Promise<RevisionIndex> {
  if (!revision.light) return revisionIndex(revision);
  return readOnce(
    ctx,
    `tree:${compositeKey(revision.spaceId, revision.id)}${revision.changeRequest ? `:${revision.changeRequest}` : ''}`,
    async () => {
      const { pages } = await getPageTree(ctx.api, revision);
      return revisionIndex({ ...revision, pages, files: [], reusableContents: [] });
    },
  );
}

/** The index of a revision read by id. */
export async function indexOf(ctx: GatewayContext, spaceId: string, revisionId: string): Promise<RevisionIndex> {
  return revisionIndex(await readRevision(ctx, spaceId, revisionId));
}

/** Splits the key of a node of a revision (`spaceId/revisionId/id`). */
export function splitRevisionKey(key: string, typename: string): [spaceId: string, revisionId: string, id: string] {
  return splitKey(key, 3, typename) as [string, string, string];
}

/**
 * Reads an id given by a client for something of a revision: a global ID of one of `typenames`
 * (its last key part: the same thing in another revision of the space is this one's) or a
 * platform id. With `spaceId`, a global ID of something of another space is bad input.
 */
export function revisionPartId(value: string, typenames: string | readonly string[], spaceId?: string): string {
  const key = platformKey(value, typenames);
  if (key === value.trim()) return key;
  const parts = key.split('/');
  let decoded: string[];
  try {
    decoded = parts.map((part) => decodeURIComponent(part));
  } catch {
    throw new GatewayError(
      'BAD_USER_INPUT',
      `Not a valid id of a ${[typenames].flat().join(' or ')}: ${JSON.stringify(value.slice(0, 100))}`,
    );
  }
  // Ids stay the same across revisions, not across spaces: a global ID of another space is no id here.
  if (spaceId !== undefined && decoded.length > 1 && decoded[0] !== spaceId) {
    throw new GatewayError(
      'BAD_USER_INPUT',
      `${JSON.stringify(value.slice(0, 100))} is the id of something of another space`,
    );
  }
  return decoded.at(-1) ?? '';
}

// --- Revision ------------------------------------------------------------------------------------

export const RevisionNode = loadableNode<RevisionHeld>('Revision', {
  key: (revision) => compositeKey(revision.spaceId, revision.id),
  load: (key, ctx) => {
    const [spaceId, revisionId] = splitKey(key, 2, 'Revision') as [string, string];
    return readRevision(ctx, spaceId, revisionId);
  },
});

/** A stub of a revision for links that select only its keys. */
export const revisionStub = (spaceId: string, revisionId: string) => () =>
  ({ id: revisionId, spaceId }) as RevisionHeld;

export const RevisionTypeEnum = restEnum('RevisionType', 'How a revision came to be.', {
  edits: 'Created by editing the content.',
  merge: 'Created by merging a change request into the main content.',
  rollback: 'Created by rolling back to a previous revision.',
  update: 'Created by updating a change request with changes of the main content.',
  computed: 'Virtual: computed from a source revision.',
} satisfies Record<Revision['type'], string>);

const GitCommit = builder.objectRef<NonNullable<Revision['git']>>('GitCommit').implement({
  description: 'The Git commit a revision was synchronized from or exported to.',
  fields: (t) => ({
    oid: t.exposeString('oid', { description: 'SHA of the commit.' }),
    message: t.exposeString('message', { description: 'Message of the commit.' }),
    createdByGitBook: t.boolean({
      description: 'True when the platform made the commit (an export), false when it came from the repository.',
      resolve: (c) => c.createdByGitBook ?? false,
    }),
    url: t.string({
      nullable: true,
      description: 'URL of the commit at the Git provider.',
      resolve: (c) => c.url ?? null,
    }),
    ref: t.string({
      nullable: true,
      description: 'Name of the ref the commit came from.',
      resolve: (c) => c.ref ?? null,
    }),
  }),
});

export const GitBlob = builder.objectRef<{ oid: string; path: string }>('GitBlob').implement({
  description: 'Where a page, file or reusable content lives in the synchronized Git repository.',
  fields: (t) => ({
    oid: t.exposeString('oid', { description: 'SHA of the blob.' }),
    path: t.exposeString('path', { description: 'Path of the blob in the Git tree.' }),
  }),
});

const RevisionUrls = builder.objectRef<Revision['urls']>('RevisionUrls').implement({
  description: 'Addresses of a revision.',
  fields: (t) => ({
    app: t.exposeString('app', { description: 'URL of the revision in the web app.' }),
    published: t.string({
      nullable: true,
      description: 'URL of the published content; null for private spaces.',
      resolve: (u) => u.published ?? null,
    }),
    public: t.string({
      nullable: true,
      description: 'Public URL, for public spaces; null otherwise.',
      resolve: (u) => u.public ?? null,
    }),
  }),
});

RevisionNode.implement({
  description:
    'A revision of the content of a space: an immutable snapshot of its pages, files, reusable contents and variables. Everything read under a revision is read once per request.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the revision on the platform.' }),
    type: t.field({ type: RevisionTypeEnum, description: 'How the revision came to be.', resolve: (r) => r.type }),
    parents: t.field({
      type: [RevisionNode],
      description: 'The revisions it was made from: one, two for a merge, none for the first revision of a space.',
      extensions: upstream.links(2),
      resolve: (r, _args, _ctx, info) =>
        r.parents.map((parent) =>
          linkTo(RevisionNode, compositeKey(r.spaceId, parent), info, revisionStub(r.spaceId, parent)),
        ),
    }),
    createdAt: t.field({ type: 'DateTime', description: 'When it was created.', resolve: (r) => r.createdAt }),
    git: t.field({
      type: GitCommit,
      nullable: true,
      description: 'The Git commit it corresponds to; null when the space is not synchronized with Git.',
      resolve: (r) => r.git ?? null,
    }),
    urls: t.field({ type: RevisionUrls, description: 'Addresses of the revision.', resolve: (r) => r.urls }),
    variables: t.field({
      type: 'JSON',
      description: 'Variables of the content: an object of names to values (text, numbers or booleans).',
      resolve: (r) => r.variables ?? {},
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space the revision belongs to.',
      extensions: upstream.link,
      resolve: (r, _args, _ctx, info) => linkTo(SpaceNode, r.spaceId, info),
    }),
  }),
});

builder.objectFields(SpaceNode, (t) => ({
  content: t.field({
    type: RevisionNode,
    description:
      'The current revision of the content: its page tree, files and variables. Asked only for its pages, files or single items, it reads just those; otherwise the whole revision, once.',
    extensions: upstream.link,
    resolve: (space, _args, ctx, info) => revisionFor(ctx, info, space.id, space.revision, true),
  }),
  revision: t.field({
    type: RevisionNode,
    nullable: true,
    description:
      'A revision of the content by id, current or older; null with NOT_FOUND when the space has no such revision. Asked only for its pages, files or single items, it reads just those (and a revision that does not exist then fails in them with NOT_FOUND).',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the revision.' }) },
    extensions: upstream.fetch(1),
    resolve: (space, args, ctx, info) =>
      revisionFor(ctx, info, space.id, revisionPartId(String(args.id), 'Revision', space.id), false),
  }),
}));

builder.subscriptionField('spaceContentUpdated', (t) =>
  t.field({
    type: RevisionNode,
    description:
      "A space's current revision: first as it is, then each new one (an edit of live content, a merged change request, a Git import). Its `changes` tell what each brought. Ends with NOT_FOUND when the space is deleted or no longer visible to you.",
    args: { spaceId: t.arg.id({ required: true, description: 'Platform id or global ID of the space.' }) },
    // The space, then, at each event, its revision as `Space.content` reads it.
    extensions: upstream.follow(1, { link: true }),
    subscribe: (_root, args, ctx) => {
      const spaceId = platformKey(String(args.spaceId), 'Space');
      return follow(
        ctx,
        `space-content ${spaceId}`,
        async (api) => {
          const space = await getSpace(api, spaceId);
          // Its admins still read a deleted space (restorable for 7 days): its content is gone all the same.
          if (space.deletedAt) throw new GatewayError('NOT_FOUND', `The space ${spaceId} was deleted`);
          return space;
        },
        (space) => space.revision,
        // Each new current revision is a `space_content_updated` event of the space's organization.
        (space) => space.organization,
      );
    },
    resolve: (space, _args, ctx, info) => {
      prime(SpaceNode, ctx, [space]);
      return revisionFor(ctx, info, space.id, space.revision, true);
    },
  }),
);

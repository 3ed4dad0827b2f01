import {
  listConnection,
  mapNodes,
  restConnection,
  type ConnectionArgs,
  type ConnectionResult,
} from '../kit/connections.js';
import type { GatewayContext } from '../../context.js';
import { upstream } from '../kit/upstream-cost.js';
import { BadUserInputError } from '../../errors.js';
import { compositeKey } from '../kit/ids.js';
import { getFile, getReusableContent, getReusableContentDocument, listFiles } from '../../upstream/content.js';
import type { RevisionReusableContent as ReusableContent, RevisionFile } from '../../upstream/contract/types.js';
import { builder } from '../kit/builder.js';
import { brandAs, linkTo, loadableNode } from '../kit/loaders.js';
import { DocumentType } from '../kit/document.js';
import { SpaceNode } from '../spaces.js';
import {
  GitBlob,
  lightRevision,
  notFound,
  placeFile,
  readDocumentOnce,
  revisionIndex,
  revisionOfPart,
  RevisionNode,
  revisionPartId,
  splitRevisionKey,
  type FileHeld,
  type RevisionHeld,
} from './revision.js';

/**
 * Files and reusable contents of a revision. Both come with the revision's answer, so listing
 * them, or finding one by id, costs nothing once the revision is read; a revision asked for
 * nothing else (and a refetch by global ID) reads them by the narrow operations instead.
 */

/**
 * A relay connection over a list the gateway already holds, paged like a REST list (a page token
 * is the offset where the page starts), so cursors behave like every other connection's.
 */
export function heldConnection<T>(args: ConnectionArgs, items: readonly T[]): Promise<ConnectionResult<T>> {
  return restConnection(args, async (token, limit) => {
    const start = token === undefined ? 0 : Number(token);
    if (!Number.isInteger(start) || start < 0)
      throw new BadUserInputError('`after` is not a cursor of this connection', ['after']);
    const end = start + limit;
    return {
      count: items.length,
      items: items.slice(start, end),
      next: end < items.length ? { page: String(end) } : null,
    };
  });
}

/** A file read on its own (`…/files/{fileId}`). */
const fileHeld = (file: RevisionFile, revision: RevisionHeld): FileHeld =>
  placeFile(file, revision.spaceId, revision.id, revision);

/** One file of a revision by id: from the revision when it was read, else `…/files/{fileId}`. */
async function fileOf(ctx: GatewayContext, revision: RevisionHeld, fileId: string): Promise<FileHeld> {
  if (!revision.light) {
    const file = revisionIndex(revision).files.get(fileId);
    if (!file) throw notFound('File', fileId);
    return file;
  }
  return fileHeld(await getFile(ctx.api, revision, fileId), revision);
}

export const FileNode = loadableNode<FileHeld>('File', {
  key: (file) => compositeKey(file.spaceId, file.revisionId, file.id),
  // A refetch reads the file alone (whatever else the request reads: the count does not depend on order).
  load: (key, ctx) => {
    const [spaceId, revisionId, fileId] = splitRevisionKey(key, 'File');
    return fileOf(ctx, lightRevision(spaceId, revisionId, false), fileId);
  },
});

const Dimensions = builder.objectRef<{ width: number; height: number }>('ImageDimensions').implement({
  description: 'Size of an image, in pixels.',
  fields: (t) => ({
    width: t.exposeFloat('width', { description: 'Width in pixels.' }),
    height: t.exposeFloat('height', { description: 'Height in pixels.' }),
  }),
});

FileNode.implement({
  description: 'A file of a revision (an image, an attachment, …), with a download URL.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the file on the platform.' }),
    name: t.exposeString('name', { description: 'Name of the file.' }),
    contentType: t.exposeString('contentType', { description: 'Media type of the file (for example `image/png`).' }),
    downloadURL: t.exposeString('downloadURL', {
      description: 'URL that serves the bytes of the file; it is signed and needs no token.',
    }),
    size: t.int({ description: 'Size of the file in bytes.', resolve: (f) => f.size }),
    dimensions: t.field({
      type: Dimensions,
      nullable: true,
      description: 'Size of an image; null for other files.',
      resolve: (f) => f.dimensions ?? null,
    }),
    git: t.field({
      type: GitBlob,
      nullable: true,
      description: 'Where the file lives in the synchronized Git repository; null without Git Sync.',
      resolve: (f) => f.git ?? null,
    }),
    revision: t.field({
      type: RevisionNode,
      description: 'The revision holding the file.',
      extensions: upstream.link,
      resolve: (f, _args, _ctx, info) => revisionOfPart(f, info),
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space holding the file.',
      extensions: upstream.link,
      resolve: (f, _args, _ctx, info) => linkTo(SpaceNode, f.spaceId, info),
    }),
  }),
});

const FileConnection = builder.connectionObject(
  { type: FileNode, name: 'FileConnection', description: 'A page of files, with the size of the whole list.' },
  { name: 'FileEdge', description: 'A file of a list, with its cursor.' },
);

/** A reusable content of a revision. */
export type ReusableContentHeld = ReusableContent & { spaceId: string; revisionId: string; revision: RevisionHeld };

const reusableContentOf = (revision: RevisionHeld, item: ReusableContent): ReusableContentHeld => {
  const held = { ...item, spaceId: revision.spaceId, revisionId: revision.id, revision };
  brandAs(held, 'ReusableContent');
  return held;
};

/** One reusable content of a revision by id: from the revision when it was read, else `…/reusable-contents/{id}`. */
async function reusableOf(ctx: GatewayContext, revision: RevisionHeld, id: string): Promise<ReusableContentHeld> {
  if (!revision.light) {
    const item = revision.reusableContents.find((candidate) => candidate.id === id);
    if (!item) throw notFound('Reusable content', id);
    return reusableContentOf(revision, item);
  }
  return reusableContentOf(revision, await getReusableContent(ctx.api, revision, id));
}

export const ReusableContentNode = loadableNode<ReusableContentHeld>('ReusableContent', {
  key: (item) => compositeKey(item.spaceId, item.revisionId, item.id),
  // A refetch reads the reusable content alone (whatever else the request reads).
  load: (key, ctx) => {
    const [spaceId, revisionId, id] = splitRevisionKey(key, 'ReusableContent');
    return reusableOf(ctx, lightRevision(spaceId, revisionId, false), id);
  },
});

ReusableContentNode.implement({
  description: 'A block of content written once and used in several pages.',
  fields: (t) => ({
    platformId: t.exposeString('id', { description: 'Id of the reusable content on the platform.' }),
    title: t.exposeString('title', { description: 'Title of the reusable content.' }),
    document: t.field({
      type: DocumentType,
      nullable: true,
      description: 'Its body as a JSON document; null when it is empty. One request per reusable content.',
      extensions: upstream.fetch(1),
      resolve: (item, _args, ctx) =>
        'document' in item && item.document
          ? readDocumentOnce(ctx, `reusable-document:${compositeKey(item.spaceId, item.revisionId, item.id)}`, () =>
              getReusableContentDocument(ctx.api, item),
            )
          : null,
    }),
    git: t.field({
      type: GitBlob,
      nullable: true,
      description: 'Where it lives in the synchronized Git repository; null without Git Sync.',
      resolve: (item) => item.git ?? null,
    }),
    revision: t.field({
      type: RevisionNode,
      description: 'The revision holding it.',
      extensions: upstream.link,
      resolve: (item, _args, _ctx, info) => revisionOfPart(item, info),
    }),
  }),
});

builder.objectFields(RevisionNode, (t) => ({
  files: t.connection(
    {
      type: FileNode,
      description:
        'Files of the revision, in order. They come with the revision; when the revision is asked for nothing else, the list of files is read page by page.',
      resolve: async (r, args, ctx) => {
        if (!r.light) return heldConnection(args, [...revisionIndex(r).files.values()]);
        return mapNodes(await listConnection(args, listFiles(ctx.api, r)), (files) =>
          files.map((file) => fileHeld(file, r)),
        );
      },
    },
    FileConnection,
  ),
  file: t.field({
    type: FileNode,
    nullable: true,
    description: 'A file of the revision by id; null with NOT_FOUND when there is none.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the file.' }) },
    extensions: upstream.fetch(1),
    resolve: (r, args, ctx) => fileOf(ctx, r, revisionPartId(String(args.id), 'File', r.spaceId)),
  }),
  reusableContents: t.field({
    type: [ReusableContentNode],
    description: 'Reusable contents of the revision.',
    resolve: (r) => r.reusableContents.map((item) => reusableContentOf(r, item)),
  }),
  reusableContent: t.field({
    type: ReusableContentNode,
    nullable: true,
    description: 'A reusable content of the revision by id; null with NOT_FOUND when there is none.',
    args: { id: t.arg.id({ required: true, description: 'Platform id or global ID of the reusable content.' }) },
    extensions: upstream.fetch(1),
    resolve: (r, args, ctx) => reusableOf(ctx, r, revisionPartId(String(args.id), 'ReusableContent', r.spaceId)),
  }),
}));

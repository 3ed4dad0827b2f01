import type { ArgBuilder } from '@pothos/core';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import * as op from '../upstream/contract/operations.js';
import type { Comment, CommentReply, EmojiReactions, User } from '../upstream/contract/types.js';
import { listOf, deleteOf, type RestPages } from '../upstream/operation.js';
import type { Query } from '../upstream/client.js';
import { builder, type SchemaTypesOf } from './kit/builder.js';
import { listConnection, mapNodes, type ConnectionArgs } from './kit/connections.js';
import { DocumentType, type DocumentValue } from './kit/document.js';
import { restEnum } from './kit/enums.js';
import { compositeKey, decodeKnownGlobalId, idInput, platformKey, readingId, splitKey } from './kit/ids.js';
import { BadUserInputError } from '../errors.js';
import { documentFromLines } from '../../document/lines.js';
import { linkTo, loadableNode, loadOrThrow, prime } from './kit/loaders.js';
import { declareMutation, inputField, inputObject, restBody } from './kit/mutations.js';
import { deletedPayload, deletionOf, edgeField, payloadType } from './kit/payloads.js';
import { permissionsType } from './kit/permissions.js';
import { upstream } from './kit/upstream-cost.js';
import { DocumentPageNode, PageInterface } from './content/page.js';
import { lightRevision, RevisionNode, revisionStub, treeIndex } from './content/revision.js';
import { MemberNode, primeMembers } from './members.js';
import { SpaceNode } from './spaces.js';
import { UserNode } from './users.js';

/**
 * Comments: threads on a space's content (`Space.comments`, `DocumentPage.comments`), each with its
 * replies (`Comment.replies`) and reactions, who commented (`Space.commenters`), and the mutations
 * that post, edit, resolve, react to and delete comments and replies. A comment's global ID
 * carries its space, so `node(id:)` refetches it; a reply's carries its comment too. Bodies are
 * documents: given as markdown, plain text or JSON, read as `Document` (JSON, text, markdown).
 */

/** Where a comment lives: its space. */
export interface ThreadAddress {
  spaceId: string;
}

type CommentHeld = Comment & ThreadAddress;
type ReplyHeld = CommentReply & ThreadAddress & { commentId: string };

const commentKey = (c: ThreadAddress & { id: string }) => compositeKey(c.spaceId, c.id);
const replyKey = (r: ReplyHeld) => compositeKey(r.spaceId, r.commentId, r.id);

/** A comment's address from its key: `spaceId/commentId`. */
function splitCommentKey(key: string): ThreadAddress & { commentId: string } {
  const [spaceId, commentId] = splitKey(key, 2, 'Comment') as [string, string];
  return { spaceId, commentId };
}

function splitReplyKey(key: string): ThreadAddress & { commentId: string; replyId: string } {
  const [spaceId, commentId, replyId] = splitKey(key, 3, 'CommentReply') as [string, string, string];
  return { spaceId, commentId, replyId };
}

/** Users embedded in a comment's answer go to the user loader: a link to them costs nothing. */
function primeUsers(ctx: GatewayContext, items: Array<Comment | CommentReply>): void {
  const users: User[] = [];
  for (const item of items) {
    users.push(item.postedBy);
    if ('resolvedBy' in item && item.resolvedBy) users.push(item.resolvedBy);
    if ('repliers' in item) for (const replier of item.repliers) users.push(replier.user);
    for (const reaction of item.reactions) for (const by of reaction.users) users.push(by.user);
  }
  prime(UserNode, ctx, users);
}

function placeComments(ctx: GatewayContext, at: ThreadAddress, items: Comment[]): CommentHeld[] {
  primeUsers(ctx, items);
  const held = items.map((item) => ({ ...item, ...at }));
  prime(CommentNode, ctx, held);
  return held;
}

function placeReplies(ctx: GatewayContext, at: ThreadAddress & { commentId: string }, items: CommentReply[]) {
  primeUsers(ctx, items);
  const held: ReplyHeld[] = items.map((item) => ({ ...item, ...at }));
  prime(CommentReplyNode, ctx, held);
  return held;
}

export const CommentNode = loadableNode<CommentHeld>('Comment', {
  key: commentKey,
  load: async (key, ctx) => {
    const { spaceId, commentId } = splitCommentKey(key);
    const comment = await ctx.api.read(op.getCommentInSpace, { spaceId, commentId });
    return placeComments(ctx, { spaceId }, [comment])[0]!;
  },
});

export const CommentReplyNode = loadableNode<ReplyHeld>('CommentReply', {
  key: replyKey,
  load: async (key, ctx) => {
    const { spaceId, commentId, replyId } = splitReplyKey(key);
    const reply = await ctx.api.read(op.getCommentReplyInSpace, { spaceId, commentId, commentReplyId: replyId });
    return placeReplies(ctx, { spaceId, commentId }, [reply])[0]!;
  },
});

// --- Shared parts ---------------------------------------------------------------------------------

const CommentStatusEnum = restEnum('CommentStatus', 'Whether a comment thread is still open.', {
  open: 'Open: the discussion goes on.',
  resolved: 'Resolved: settled, kept for the record.',
});

const CommentStatusFilterEnum = restEnum('CommentStatusFilter', 'Which comments a list holds, by status.', {
  all: 'Open and resolved comments (the default).',
  open: 'Open comments only.',
  resolved: 'Resolved comments only.',
});

const CommentOrderEnum = restEnum('CommentOrder', 'The order of a list of comments, by when they were posted.', {
  desc: 'Newest first (the default).',
  asc: 'Oldest first.',
});

const CommentPermissions = permissionsType<Comment['permissions']>(
  'CommentPermissions',
  'What you may do with a comment or a reply.',
  {
    edit: 'Change its body (its author, or an admin of the space); for a comment, resolve or reopen it too.',
    reply: 'Reply to it and react to it (the comment role).',
    delete: 'Delete it (its author, or an admin of the space).',
  },
);

type Reaction = EmojiReactions[number];

const CommentReactionType = builder.objectRef<Reaction>('CommentReaction').implement({
  description: 'An emoji and the people who reacted with it.',
  fields: (t) => ({
    emoji: t.exposeString('emoji', { description: 'The emoji, as given.' }),
    count: t.exposeInt('count', { description: 'How many people reacted with it.' }),
    users: t.field({
      type: [UserNode],
      description: 'Who reacted with it, first reaction first.',
      resolve: (r) => r.users.map((by) => by.user),
    }),
  }),
});

type Replier = Comment['repliers'][number];

const CommentReplierType = builder.objectRef<Replier>('CommentReplier').implement({
  description: 'Someone who replied to a comment.',
  fields: (t) => ({
    user: t.field({ type: UserNode, description: 'Who replied.', resolve: (r) => r.user }),
    count: t.exposeInt('count', { description: 'How many replies they posted.' }),
    lastRepliedAt: t.field({
      type: 'DateTime',
      description: 'When they last replied (or edited a reply).',
      resolve: (r) => r.updatedAt,
    }),
  }),
});

/** The document of a body: the platform answers `{ document }` (or, asked for it, `{ markdown }`). */
function bodyDocument(body: Comment['body']): DocumentValue {
  const value = body as { document?: unknown };
  return (value.document ?? body) as DocumentValue;
}

/** The fields a comment and a reply share. */
function postedFields<T extends Comment | CommentReply>(t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, T>) {
  return {
    platformId: t.string({ description: 'Id on the platform.', resolve: (c) => c.id }),
    body: t.field({
      type: DocumentType,
      description: 'What it says: a document, read as JSON, plain text or markdown.',
      resolve: (c) => bodyDocument(c.body),
    }),
    author: t.field({ type: UserNode, description: 'Who posted it.', resolve: (c) => c.postedBy }),
    postedAt: t.field({ type: 'DateTime', description: 'When it was posted.', resolve: (c) => c.postedAt }),
    editedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When its body last changed; null when it never did.',
      resolve: (c) => c.editedAt ?? null,
    }),
    reactions: t.field({
      type: [CommentReactionType],
      description: 'Its emoji reactions, one entry per emoji.',
      resolve: (c) => c.reactions,
    }),
    viewerCan: t.field({
      type: CommentPermissions,
      description: 'What you may do with it.',
      resolve: (c) => c.permissions,
    }),
  };
}

// --- Comment ----------------------------------------------------------------------------------------

const CommentReplyEdge = builder.edgeObject({
  type: CommentReplyNode,
  name: 'CommentReplyEdge',
  description: 'A reply, with its cursor.',
});
const CommentReplyConnection = builder.connectionObject(
  { type: CommentReplyNode, name: 'CommentReplyConnection', description: 'A page of replies, oldest first.' },
  CommentReplyEdge,
);

/** The current revision of a comment's thread: of its space. */
async function threadRevision(ctx: GatewayContext, c: CommentHeld): Promise<string> {
  return (await loadOrThrow(SpaceNode, ctx, c.spaceId)).revision;
}

CommentNode.implement({
  description:
    'A comment on the content of a space: on the space, on a page, or on a block of a page; with its replies and reactions, open or resolved.',
  fields: (t) => ({
    ...postedFields(t),
    status: t.field({ type: CommentStatusEnum, description: 'Open or resolved.', resolve: (c) => c.status }),
    resolvedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When it was resolved; null while it is open.',
      resolve: (c) => (c.status === 'resolved' ? c.resolvedAt : null),
    }),
    resolvedBy: t.field({
      type: UserNode,
      nullable: true,
      description: 'Who resolved it; null while it is open.',
      resolve: (c) => (c.status === 'resolved' ? c.resolvedBy : null),
    }),
    replyCount: t.exposeInt('replies', { description: 'How many replies it has.' }),
    repliers: t.field({
      type: [CommentReplierType],
      description: 'Who replied to it, with how many replies each.',
      resolve: (c) => c.repliers,
    }),
    space: t.field({
      type: SpaceNode,
      description: 'The space it is in.',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) => linkTo(SpaceNode, c.spaceId, info),
    }),
    revision: t.field({
      type: RevisionNode,
      description:
        'The content its anchor is found in: the current content while its page (and block) is there, whatever was merged since; else the last content that held it (see `outdated`).',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) =>
        linkTo(
          RevisionNode,
          compositeKey(c.spaceId, c.target.revision),
          info,
          revisionStub(c.spaceId, c.target.revision),
        ),
    }),
    page: t.field({
      type: PageInterface,
      nullable: true,
      description:
        'The page it is anchored to, as it is in `revision`; null for a comment on the whole space. Reads that revision’s page tree once per request.',
      extensions: upstream.fetch(1),
      resolve: async (c, _a, ctx) => {
        const pageId = c.target.page?.id;
        if (!pageId) return null;
        const index = await treeIndex(ctx, lightRevision(c.spaceId, c.target.revision, false));
        return index.byId.get(pageId) ?? null;
      },
    }),
    pageId: t.string({
      nullable: true,
      description: 'Platform id of the page it is anchored to; null for a comment on the whole space. Free.',
      resolve: (c) => c.target.page?.id ?? null,
    }),
    blockId: t.string({
      nullable: true,
      description: 'Key of the block of the page it is anchored to; null for a comment on a whole page or space.',
      resolve: (c) => c.target.node?.id ?? null,
    }),
    outdated: t.boolean({
      description:
        'True when the page (or block) it is anchored to is no longer in the current content: a merge removed it. Reads the space once per request.',
      extensions: upstream.fetch(1),
      resolve: async (c, _a, ctx) => Boolean(c.target.page) && c.target.revision !== (await threadRevision(ctx, c)),
    }),
    replies: t.connection(
      {
        type: CommentReplyNode,
        description: 'Its replies, oldest first.',
        extensions: upstream.fetch(1),
        resolve: async (c, args, ctx) => {
          const at = { spaceId: c.spaceId, commentId: c.id };
          const list = await listConnection(
            args,
            listOf(ctx.api, op.listCommentRepliesInSpace, { spaceId: c.spaceId, commentId: c.id }),
          );
          return mapNodes(list, (items) => placeReplies(ctx, at, items));
        },
      },
      CommentReplyConnection,
    ),
  }),
});

CommentReplyNode.implement({
  description: 'A reply in the thread of a comment.',
  fields: (t) => ({
    ...postedFields(t),
    comment: t.field({
      type: CommentNode,
      description: 'The comment it replies to.',
      extensions: upstream.link,
      resolve: (r, _a, _ctx, info) =>
        linkTo(
          CommentNode,
          commentKey({ spaceId: r.spaceId, id: r.commentId }),
          info,
          () => ({ id: r.commentId, spaceId: r.spaceId }) as CommentHeld,
        ),
    }),
  }),
});

// --- Lists --------------------------------------------------------------------------------------------

export const CommentEdge = builder.edgeObject({
  type: CommentNode,
  name: 'CommentEdge',
  description: 'A comment, with its cursor.',
});
const CommentConnection = builder.connectionObject(
  { type: CommentNode, name: 'CommentConnection', description: 'A page of comments, with their number.' },
  CommentEdge,
);
const CommenterConnection = builder.connectionObject(
  {
    type: MemberNode,
    name: 'CommenterConnection',
    description: 'A page of the members who commented, first commenter first.',
  },
  { name: 'CommenterEdge', description: 'A member who commented, with their cursor.' },
);

/** The filters of a list of comments, as arguments. */
const listArgs = (arg: ArgBuilder<SchemaTypesOf>) => ({
  status: arg({ type: CommentStatusFilterEnum, description: 'Which comments, by status (default ALL).' }),
  order: arg({ type: CommentOrderEnum, description: 'Newest or oldest first (default DESC).' }),
  authors: arg.idList({
    description: 'Only comments posted by these users (platform ids or global IDs of users), at most 100.',
  }),
});

type ListArgs = ConnectionArgs & {
  status?: 'all' | 'open' | 'resolved' | null;
  order?: 'asc' | 'desc' | null;
  authors?: ReadonlyArray<string | number> | null;
};

/** The REST filters of a list of comments, from its arguments (users' global IDs read). */
function listFilters(args: ListArgs, page?: string) {
  if (args.authors && args.authors.length > 100)
    throw new BadUserInputError(`\`authors\` names at most 100 users, got ${args.authors.length}`, ['authors']);
  const authors = args.authors?.map((author) => platformKey(String(author), 'User'));
  return restBody({ status: args.status, order: args.order, targetPage: page, authors }) as Query;
}

/** One page of the comments of a space, on one page of its content when `page` is given. */
async function commentsOf(ctx: GatewayContext, spaceId: string, args: ListArgs, page?: string) {
  const pages: RestPages<Comment> = listOf(ctx.api, op.listCommentsInSpace, { spaceId }, listFilters(args, page));
  return mapNodes(await listConnection(args, pages), (items) => placeComments(ctx, { spaceId }, items));
}

builder.objectFields(SpaceNode, (t) => ({
  comments: t.connection(
    {
      type: CommentNode,
      description:
        'Its comments (not those of its change requests): top-level ones, each with its replies. Newest first unless `order` says otherwise.',
      args: listArgs(t.arg),
      extensions: upstream.fetch(1),
      resolve: (s, args, ctx) => commentsOf(ctx, s.id, args),
    },
    CommentConnection,
  ),
  commenters: t.connection(
    {
      type: MemberNode,
      description: 'The members of the organization who posted a comment or a reply in it.',
      extensions: upstream.fetch(1),
      resolve: async (s, args, ctx) =>
        mapNodes(await listConnection(args, listOf(ctx.api, op.listCommentersInSpace, { spaceId: s.id })), (members) =>
          primeMembers(ctx, s.organization, members),
        ),
    },
    CommenterConnection,
  ),
}));

builder.objectFields(DocumentPageNode, (t) => ({
  comments: t.connection(
    {
      type: CommentNode,
      description:
        'The comments of its space anchored to it (to the page or to one of its blocks): a page with a body is what people comment on.',
      args: listArgs(t.arg),
      extensions: upstream.fetch(1),
      resolve: (p, args, ctx) => commentsOf(ctx, p.spaceId, args, p.id),
    },
    CommentConnection,
  ),
}));

// --- Mutations ------------------------------------------------------------------------------------------

const MAX_BODY_CHARS = 64 * 1024;

const CommentBodyInput = inputObject('CommentBodyInput', {
  description: 'The body of a comment or a reply: set exactly one field.',
  oneOf: true,
  fields: {
    markdown: inputField(
      'String',
      'Markdown, as pages take it (a leading `# heading` stays in the body); at most 65536 characters.',
      z.string().max(MAX_BODY_CHARS, `must be at most ${MAX_BODY_CHARS} characters`).nullish(),
    ),
    text: inputField(
      'String',
      'Plain text: each line a paragraph; at most 65536 characters.',
      z.string().max(MAX_BODY_CHARS, `must be at most ${MAX_BODY_CHARS} characters`).nullish(),
    ),
    json: inputField('JSON', 'A full document `{ object: "document", data, nodes }`.', z.unknown().optional()),
  },
  check: (object) =>
    object.transform((value, ctx) => {
      if (typeof value.markdown === 'string') return { markdown: value.markdown };
      if (typeof value.text === 'string') return { document: documentFromLines(value.text) };
      if (value.json != null) return { document: value.json };
      ctx.addIssue({ code: 'custom', message: 'set exactly one of markdown, text or json' });
      return z.NEVER;
    }),
});

const reactionsInput = (what: string) =>
  z
    .array(z.string().trim().min(1, 'must not be empty').max(32, 'must be at most 32 characters'))
    .max(20, `must hold at most 20 ${what}`)
    .nullish();

/** A comment named by its global ID, or by its platform id with `spaceId`. */
const commentIdInput = z
  .string()
  .trim()
  .min(1, 'must be the id of a comment')
  .transform(
    readingId((value): { id: string; spaceId?: string } => {
      const global = decodeKnownGlobalId(value);
      if (!global) return { id: value };
      if (global.typename !== 'Comment') throw new Error(`must be the id of a Comment, not of a ${global.typename}`);
      const { spaceId, commentId } = splitCommentKey(global.id);
      return { id: commentId, spaceId };
    }),
  );

const replyIdInput = z
  .string()
  .trim()
  .min(1, 'must be the id of a comment reply')
  .transform(
    readingId((value): { id: string; spaceId?: string; commentId?: string } => {
      const global = decodeKnownGlobalId(value);
      if (!global) return { id: value };
      if (global.typename !== 'CommentReply')
        throw new Error(`must be the id of a CommentReply, not of a ${global.typename}`);
      const { spaceId, commentId, replyId } = splitReplyKey(global.id);
      return { id: replyId, spaceId, commentId };
    }),
  );

const spaceField = inputField(
  'ID',
  'The space: its platform id or global ID; required unless the comment is named by its global ID.',
  idInput('Space').nullish(),
);

/** The space of the input, from `spaceId` or the global ID of what it names, which must agree. */
function inSpace<T extends { spaceId?: string | null | undefined }>(
  value: T,
  ctx: z.core.$RefinementCtx,
  named: { spaceId?: string | undefined },
  field: string,
): (T & { spaceId: string }) | typeof z.NEVER {
  const spaceId = named.spaceId ?? value.spaceId ?? undefined;
  if (!spaceId) {
    ctx.addIssue({ code: 'custom', path: ['spaceId'], message: `is required when ${field} is not a global ID` });
    return z.NEVER;
  }
  if (named.spaceId && value.spaceId && named.spaceId !== value.spaceId) {
    ctx.addIssue({ code: 'custom', path: [field], message: 'is in another space than spaceId' });
    return z.NEVER;
  }
  return { ...value, spaceId };
}

const commentTarget = {
  spaceId: spaceField,
  commentId: inputField('ID', 'The comment: its global ID, or its platform id with `spaceId`.', commentIdInput),
};
const resolveComment = <T extends { spaceId?: string | null; commentId: { id: string; spaceId?: string } }>(
  value: T,
  ctx: z.core.$RefinementCtx,
) => inSpace(value, ctx, value.commentId, 'commentId');

const replyTarget = {
  spaceId: spaceField,
  commentId: inputField(
    'ID',
    'The comment replied to: its global ID, or its platform id with `spaceId`; required unless `replyId` is a global ID.',
    commentIdInput.nullish(),
  ),
  replyId: inputField('ID', 'The reply: its global ID, or its platform id with `commentId`.', replyIdInput),
};
function resolveReply<
  T extends {
    spaceId?: string | null;
    commentId?: { id: string; spaceId?: string } | null;
    replyId: { id: string; spaceId?: string; commentId?: string };
  },
>(value: T, ctx: z.core.$RefinementCtx) {
  const commentId = value.replyId.commentId ?? value.commentId?.id;
  if (!commentId) {
    ctx.addIssue({ code: 'custom', path: ['commentId'], message: 'is required when replyId is not a global ID' });
    return z.NEVER;
  }
  if (value.replyId.commentId && value.commentId && value.commentId.id !== value.replyId.commentId) {
    ctx.addIssue({ code: 'custom', path: ['replyId'], message: 'replies to another comment than commentId' });
    return z.NEVER;
  }
  const placed = inSpace(value, ctx, { spaceId: value.replyId.spaceId ?? value.commentId?.spaceId }, 'replyId');
  return placed === z.NEVER ? z.NEVER : { ...placed, thread: commentId };
}

const commentPayloadFields = (name: string) =>
  payloadType<{ comment: CommentHeld }>(name, (t) => ({
    comment: t.field({
      type: CommentNode,
      nullable: true,
      description: 'The comment after the write.',
      resolve: (p) => p.comment ?? null,
    }),
    ...(name === 'postComment'
      ? {
          commentEdge: edgeField(
            t,
            { type: CommentEdge, what: 'comment', lists: '`Space.comments` and `DocumentPage.comments`' },
            (p) => p.comment,
          ),
        }
      : {}),
  }));

declareMutation('postComment', {
  description:
    'Posts a comment on a space, on one of its pages, or on a block of a page (the comment role on the space).',
  input: 'Where to comment, and what to say.',
  fields: {
    spaceId: inputField('ID', 'The space: its platform id or global ID.', idInput('Space')),
    pageId: inputField(
      'ID',
      'The page to comment on, in the current content: its platform id or global ID; none comments on the whole space.',
      z.string().trim().min(1, 'must be the id of a page').max(100, 'must be at most 100 characters').nullish(),
    ),
    blockId: inputField(
      'String',
      'The key of a block of that page to comment on (needs `pageId`).',
      z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish(),
    ),
    body: inputField(CommentBodyInput.type, 'What the comment says.', CommentBodyInput.schema),
  },
  check: (input) =>
    input.superRefine((value, ctx) => {
      if (value.blockId && !value.pageId)
        ctx.addIssue({ code: 'custom', path: ['blockId'], message: 'needs pageId: a block is in a page' });
    }),
  payload: commentPayloadFields,
  inputPath: (restField) =>
    restField?.[0] === 'page' ? ['pageId'] : restField?.[0] === 'node' ? ['blockId'] : undefined,
  run: async (i, ctx) => {
    const pageId = i.pageId ? pagePlatformId(i.pageId) : undefined;
    const { data } = await ctx.api.write(
      op.postCommentInSpace,
      { spaceId: i.spaceId },
      { body: { body: i.body, ...restBody({ page: pageId, node: i.blockId }) } as never },
    );
    return { comment: placeComments(ctx, { spaceId: i.spaceId }, [data])[0]! };
  },
});

/** The platform id of a page given as its global ID (which holds its space and revision) or as its id. */
function pagePlatformId(value: string): string {
  const global = decodeKnownGlobalId(value);
  if (!global) return value;
  return global.id.split('/').map(decodeURIComponent).at(-1) ?? value;
}

declareMutation('updateComment', {
  description:
    'Changes a comment: its body or its status (its author, or an admin of the space), and your reactions to it (the comment role). What is left out stays.',
  input: 'The comment and what to change.',
  fields: {
    ...commentTarget,
    body: inputField(CommentBodyInput.type, 'Its new body.', CommentBodyInput.schema.nullish()),
    resolved: inputField('Boolean', 'True resolves it; false reopens it.', z.boolean().nullish()),
    addReactions: inputField(['String'], 'Emoji to react with (at most 20).', reactionsInput('reactions')),
    removeReactions: inputField(['String'], 'Emoji of yours to take back (at most 20).', reactionsInput('reactions')),
  },
  check: (input) => input.transform(resolveComment),
  payload: commentPayloadFields,
  run: async (i, ctx) => {
    const body = restBody(
      {
        body: i.body,
        resolved: i.resolved,
        addedReactions: i.addReactions,
        removedReactions: i.removeReactions,
      },
      { required: 'Give at least one of body, resolved, addReactions or removeReactions' },
    );
    const { data } = await ctx.api.write(
      op.updateCommentInSpace,
      { spaceId: i.spaceId, commentId: i.commentId.id },
      { body },
    );
    return { comment: placeComments(ctx, { spaceId: i.spaceId }, [data])[0]! };
  },
});

declareMutation('deleteComment', {
  description: 'Deletes a comment and its replies (its author, or an admin of the space).',
  input: 'The comment to delete.',
  fields: commentTarget,
  check: (input) => input.transform(resolveComment),
  payload: (name) => deletedPayload(name, 'True when the comment was deleted, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf(
      'Comment',
      commentKey({ spaceId: i.spaceId, id: i.commentId.id }),
      deleteOf(ctx.api, op.deleteCommentInSpace, { spaceId: i.spaceId, commentId: i.commentId.id }),
    ),
});

const replyPayload = (name: string) =>
  payloadType<{ reply: ReplyHeld }>(name, (t) => ({
    reply: t.field({
      type: CommentReplyNode,
      nullable: true,
      description: 'The reply after the write.',
      resolve: (p) => p.reply ?? null,
    }),
    ...(name === 'postCommentReply'
      ? {
          replyEdge: edgeField(
            t,
            { type: CommentReplyEdge, what: 'reply', lists: '`Comment.replies`' },
            (p) => p.reply,
          ),
        }
      : {}),
    comment: t.field({
      type: CommentNode,
      nullable: true,
      description: 'The comment replied to, after the write.',
      extensions: upstream.link,
      resolve: (p) => (p.reply ? commentKey({ spaceId: p.reply.spaceId, id: p.reply.commentId }) : null),
    }),
  }));

declareMutation('postCommentReply', {
  description: 'Replies to a comment (the comment role on its space).',
  input: 'The comment and the reply.',
  fields: {
    ...commentTarget,
    body: inputField(CommentBodyInput.type, 'What the reply says.', CommentBodyInput.schema),
  },
  check: (input) => input.transform(resolveComment),
  payload: replyPayload,
  run: async (i, ctx) => {
    const at = { spaceId: i.spaceId, commentId: i.commentId.id };
    const { data } = await ctx.api.write(op.postCommentReplyInSpace, at, { body: { body: i.body } as never });
    return { reply: placeReplies(ctx, at, [data])[0]! };
  },
});

declareMutation('updateCommentReply', {
  description:
    'Changes a reply: its body (its author, or an admin of the space) and your reactions to it (the comment role).',
  input: 'The reply and what to change.',
  fields: {
    ...replyTarget,
    body: inputField(CommentBodyInput.type, 'Its new body.', CommentBodyInput.schema.nullish()),
    addReactions: inputField(['String'], 'Emoji to react with (at most 20).', reactionsInput('reactions')),
    removeReactions: inputField(['String'], 'Emoji of yours to take back (at most 20).', reactionsInput('reactions')),
  },
  check: (input) => input.transform(resolveReply),
  payload: replyPayload,
  run: async (i, ctx) => {
    const body = restBody(
      { body: i.body, addedReactions: i.addReactions, removedReactions: i.removeReactions },
      { required: 'Give at least one of body, addReactions or removeReactions' },
    );
    const at = { spaceId: i.spaceId, commentId: i.thread };
    const { data } = await ctx.api.write(
      op.updateCommentReplyInSpace,
      { ...at, commentReplyId: i.replyId.id },
      { body: body as never },
    );
    return { reply: placeReplies(ctx, at, [data])[0]! };
  },
});

declareMutation('deleteCommentReply', {
  description: 'Deletes a reply (its author, or an admin of the space).',
  input: 'The reply to delete.',
  fields: replyTarget,
  check: (input) => input.transform(resolveReply),
  payload: (name) => deletedPayload(name, 'True when the reply was deleted, false when it did not exist.'),
  run: (i, ctx) =>
    deletionOf(
      'CommentReply',
      compositeKey(i.spaceId, i.thread, i.replyId.id),
      deleteOf(ctx.api, op.deleteCommentReplyInSpace, {
        spaceId: i.spaceId,
        commentId: i.thread,
        commentReplyId: i.replyId.id,
      }),
    ),
});

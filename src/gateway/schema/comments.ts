import type { ArgBuilder } from '@pothos/core';
import { z } from 'zod';
import type { GatewayContext } from '../context.js';
import * as op from '../upstream/contract/operations.js';
import type { Comment, CommentReply, EmojiReactions, User } from '../upstream/contract/types.js';
import { listOf, deleteOf, type ListFilters, type RestPages } from '../upstream/operation.js';
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
import { follow } from './kit/live.js';
import { DocumentPageNode, PageInterface } from './content/page.js';
import { lightRevision, RevisionNode, revisionStub, treeIndex } from './content/revision.js';
import { MemberNode, primeMembers } from './members.js';
import { SpaceNode } from './spaces.js';
import { ChangeRequestNode, changeRequestLink, changeRequestRef } from './change-requests/change-request.js';
import { UserNode } from './users.js';

/**
 * Comments: threads on a space's content (`Space.comments`, `DocumentPage.comments`), each with its
 * replies (`Comment.replies`) and reactions, who commented (`Space.commenters`), and the mutations
 * that post, edit, resolve, react to and delete comments and replies. A comment's global ID
 * carries its space, so `node(id:)` refetches it; a reply's carries its comment too. Bodies are
 * documents: given as markdown, plain text or JSON, read as `Document` (JSON, text, markdown).
 */

/** Where a comment lives: its space, and the change request it was posted in (none for the space's own). */
export interface ThreadAddress {
  spaceId: string;
  changeRequestId?: string | undefined;
}

const threadParts = (at: ThreadAddress) => (at.changeRequestId ? [at.spaceId, at.changeRequestId] : [at.spaceId]);

type CommentHeld = Comment & ThreadAddress;
type ReplyHeld = CommentReply & ThreadAddress & { commentId: string };

const commentKey = (c: ThreadAddress & { id: string }) => compositeKey(...threadParts(c), c.id);
const replyKey = (r: ReplyHeld) => compositeKey(...threadParts(r), r.commentId, r.id);

/** The parts of a key whose thread may be a change request's (one more part then). */
function splitThreadKey(key: string, own: number, typename: string): { at: ThreadAddress; rest: string[] } {
  const parts = splitKey(key, key.split('/').length === own + 2 ? own + 2 : own + 1, typename);
  const [spaceId, ...rest] = parts as [string, ...string[]];
  return rest.length > own
    ? { at: { spaceId, changeRequestId: rest[0] }, rest: rest.slice(1) }
    : { at: { spaceId }, rest };
}

/** A comment's address from its key: `spaceId/commentId`, or `spaceId/changeRequestId/commentId`. */
function splitCommentKey(key: string): ThreadAddress & { commentId: string } {
  const { at, rest } = splitThreadKey(key, 1, 'Comment');
  return { ...at, commentId: rest[0]! };
}

/** A reply's address from its key: its comment's, then its own id. */
function splitReplyKey(key: string): ThreadAddress & { commentId: string; replyId: string } {
  const { at, rest } = splitThreadKey(key, 2, 'CommentReply');
  return { ...at, commentId: rest[0]!, replyId: rest[1]! };
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
  // The answer names its change request by id, where the input may have given its number.
  const held = items.map((item) => ({
    ...item,
    spaceId: at.spaceId,
    changeRequestId: item.target.changeRequest ?? at.changeRequestId,
  }));
  prime(CommentNode, ctx, held);
  return held;
}

function placeReplies(ctx: GatewayContext, at: ThreadAddress & { commentId: string }, items: CommentReply[]) {
  primeUsers(ctx, items);
  const held: ReplyHeld[] = items.map((item) => ({
    ...item,
    spaceId: at.spaceId,
    changeRequestId: at.changeRequestId,
    commentId: at.commentId,
  }));
  prime(CommentReplyNode, ctx, held);
  return held;
}

export const CommentNode = loadableNode<CommentHeld>('Comment', {
  key: commentKey,
  load: async (key, ctx) => {
    const { commentId, ...at } = splitCommentKey(key);
    const comment = at.changeRequestId
      ? await ctx.api.read(op.getCommentInChangeRequest, { ...at, changeRequestId: at.changeRequestId, commentId })
      : await ctx.api.read(op.getCommentInSpace, { spaceId: at.spaceId, commentId });
    return placeComments(ctx, at, [comment])[0]!;
  },
});

export const CommentReplyNode = loadableNode<ReplyHeld>('CommentReply', {
  key: replyKey,
  load: async (key, ctx) => {
    const { replyId, ...at } = splitReplyKey(key);
    const reply = at.changeRequestId
      ? await ctx.api.read(op.getCommentReplyInChangeRequest, {
          ...at,
          changeRequestId: at.changeRequestId,
          commentReplyId: replyId,
        })
      : await ctx.api.read(op.getCommentReplyInSpace, {
          spaceId: at.spaceId,
          commentId: at.commentId,
          commentReplyId: replyId,
        });
    return placeReplies(ctx, at, [reply])[0]!;
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

/** The current content of a comment's thread: its change request's, else its space's. */
async function threadRevision(ctx: GatewayContext, c: CommentHeld): Promise<string> {
  if (c.changeRequestId)
    return (await loadOrThrow(ChangeRequestNode, ctx, compositeKey(c.spaceId, c.changeRequestId))).revision;
  return (await loadOrThrow(SpaceNode, ctx, c.spaceId)).revision;
}

CommentNode.implement({
  description:
    'A comment on the content of a space or of a change request: on the whole, on a page, or on a block of a page; with its replies and reactions, open or resolved.',
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
    changeRequest: t.field({
      type: ChangeRequestNode,
      nullable: true,
      description: 'The change request it was posted in; null for a comment on the space’s own content.',
      extensions: upstream.link,
      resolve: (c, _a, _ctx, info) =>
        c.changeRequestId ? changeRequestLink(c.spaceId, c.changeRequestId, info) : null,
    }),
    revision: t.field({
      type: RevisionNode,
      description:
        'The content its anchor is found in: the current content of its space (or of its change request) while its page (and block) is there, whatever was merged since; else the last content that held it (see `outdated`).',
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
        'True when the page (or block) it is anchored to is no longer in the current content of its space (or change request): a merge removed it. Reads the space (or the change request) once per request.',
      extensions: upstream.fetch(1),
      resolve: async (c, _a, ctx) => Boolean(c.target.page) && c.target.revision !== (await threadRevision(ctx, c)),
    }),
    replies: t.connection(
      {
        type: CommentReplyNode,
        description: 'Its replies, oldest first.',
        extensions: upstream.fetch(1),
        resolve: async (c, args, ctx) => {
          const at = { spaceId: c.spaceId, changeRequestId: c.changeRequestId, commentId: c.id };
          const pages: RestPages<CommentReply> = c.changeRequestId
            ? listOf(ctx.api, op.listCommentRepliesInChangeRequest, {
                spaceId: c.spaceId,
                changeRequestId: c.changeRequestId,
                commentId: c.id,
              })
            : listOf(ctx.api, op.listCommentRepliesInSpace, { spaceId: c.spaceId, commentId: c.id });
          const list = await listConnection(args, pages);
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
          commentKey({ spaceId: r.spaceId, changeRequestId: r.changeRequestId, id: r.commentId }),
          info,
          () => ({ id: r.commentId, spaceId: r.spaceId, changeRequestId: r.changeRequestId }) as CommentHeld,
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
  return restBody({ status: args.status, order: args.order, targetPage: page, authors }) as ListFilters;
}

/** One page of the comments of a thread, on one page of its content when `page` is given. */
async function commentsOf(ctx: GatewayContext, at: ThreadAddress, args: ListArgs, page?: string) {
  const filters = listFilters(args, page);
  const pages: RestPages<Comment> = at.changeRequestId
    ? listOf(
        ctx.api,
        op.listCommentsInChangeRequest,
        { spaceId: at.spaceId, changeRequestId: at.changeRequestId },
        filters,
      )
    : listOf(ctx.api, op.listCommentsInSpace, { spaceId: at.spaceId }, filters);
  return mapNodes(await listConnection(args, pages), (items) => placeComments(ctx, at, items));
}

builder.objectFields(SpaceNode, (t) => ({
  comments: t.connection(
    {
      type: CommentNode,
      description:
        'Its comments (not those of its change requests): top-level ones, each with its replies. Newest first unless `order` says otherwise.',
      args: listArgs(t.arg),
      extensions: upstream.fetch(1),
      resolve: (s, args, ctx) => commentsOf(ctx, { spaceId: s.id }, args),
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
        'The comments anchored to it (to the page or to one of its blocks): those of its change request for a page of a change request’s content, else those of its space. A page with a body is what people comment on.',
      args: listArgs(t.arg),
      extensions: upstream.fetch(1),
      resolve: (p, args, ctx) =>
        commentsOf(ctx, { spaceId: p.spaceId, changeRequestId: p.revision?.changeRequest }, args, p.id),
    },
    CommentConnection,
  ),
}));

builder.objectFields(ChangeRequestNode, (t) => ({
  comments: t.connection(
    {
      type: CommentNode,
      description:
        'Its comments: on it, on pages of its content, or on their blocks; top-level ones, each with its replies. Newest first unless `order` says otherwise.',
      args: listArgs(t.arg),
      extensions: upstream.fetch(1),
      resolve: (r, args, ctx) => commentsOf(ctx, { spaceId: r.space, changeRequestId: r.id }, args),
    },
    CommentConnection,
  ),
  commenters: t.connection(
    {
      type: MemberNode,
      description:
        'The members of the organization who posted a comment or a reply in it. Reads its space once per request (for its organization).',
      extensions: upstream.fetch(2),
      resolve: async (r, args, ctx) => {
        const [list, space] = await Promise.all([
          listConnection(
            args,
            listOf(ctx.api, op.listCommentersInChangeRequest, { spaceId: r.space, changeRequestId: r.id }),
          ),
          loadOrThrow(SpaceNode, ctx, r.space),
        ]);
        return mapNodes(list, (members) => primeMembers(ctx, space.organization, members));
      },
    },
    CommenterConnection,
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

/** What a global ID of a comment or a reply names: its thread, its comment, its own id. */
type Named = { id: string; spaceId?: string; changeRequestId?: string; commentId?: string };

/** A comment or a reply named by its global ID (which holds its thread), or by its platform id. */
function namedInput(typename: 'Comment' | 'CommentReply') {
  const message = `must be the id of a ${typename}`;
  return z
    .string()
    .trim()
    .min(1, message)
    .transform(
      readingId((value): Named => {
        const global = decodeKnownGlobalId(value);
        if (!global) return { id: value };
        if (global.typename !== typename) throw new Error(`${message}, not of a ${global.typename}`);
        if (typename === 'Comment') {
          const { commentId, ...at } = splitCommentKey(global.id);
          return { ...at, id: commentId } as Named;
        }
        const { replyId, ...at } = splitReplyKey(global.id);
        return { ...at, id: replyId } as Named;
      }),
    );
}

/** The thread fields of an input: the space, and the change request when the comment is in one. */
const threadFields = {
  spaceId: inputField(
    'ID',
    'The space: its platform id or global ID; required unless the comment (or its change request) is named by its global ID.',
    idInput('Space').nullish(),
  ),
  changeRequestId: inputField(
    'ID',
    'The change request the comment is in: its global ID, or its platform id or number with `spaceId`; none for a comment on the space’s own content (or one named by its global ID).',
    z.string().trim().min(1, 'must be the id of a change request').transform(readingId(changeRequestRef)).nullish(),
  ),
};

type ThreadInput = {
  spaceId?: string | null | undefined;
  changeRequestId?: { id: string; spaceId?: string } | null | undefined;
};

/** The thread of the input, from its fields and the global ID of what it names, which must agree. */
function inThread<T extends ThreadInput>(value: T, ctx: z.core.$RefinementCtx, named: Named, field: string) {
  const request = value.changeRequestId ?? undefined;
  const spaceId = named.spaceId ?? request?.spaceId ?? value.spaceId ?? undefined;
  if (!spaceId) {
    ctx.addIssue({ code: 'custom', path: ['spaceId'], message: `is required when ${field} is not a global ID` });
    return z.NEVER;
  }
  const spaces = [named.spaceId, request?.spaceId, value.spaceId].filter((id) => id != null);
  const changeRequestId = named.spaceId ? named.changeRequestId : request?.id;
  if (spaces.some((id) => id !== spaceId) || (named.spaceId && request && request.id !== named.changeRequestId)) {
    ctx.addIssue({
      code: 'custom',
      path: [field],
      message: 'is in another space or change request than the input names',
    });
    return z.NEVER;
  }
  return { ...value, at: { spaceId, changeRequestId } as ThreadAddress };
}

const commentTarget = {
  ...threadFields,
  commentId: inputField(
    'ID',
    'The comment: its global ID, or its platform id with `spaceId` (and `changeRequestId`).',
    namedInput('Comment'),
  ),
};
const resolveComment = <T extends ThreadInput & { commentId: Named }>(value: T, ctx: z.core.$RefinementCtx) =>
  inThread(value, ctx, value.commentId, 'commentId');

const replyTarget = {
  ...threadFields,
  commentId: inputField(
    'ID',
    'The comment replied to: its global ID, or its platform id with `spaceId`; required unless `replyId` is a global ID.',
    namedInput('Comment').nullish(),
  ),
  replyId: inputField(
    'ID',
    'The reply: its global ID, or its platform id with `commentId`.',
    namedInput('CommentReply'),
  ),
};
function resolveReply<T extends ThreadInput & { commentId?: Named | null; replyId: Named }>(
  value: T,
  ctx: z.core.$RefinementCtx,
) {
  const commentId = value.replyId.commentId ?? value.commentId?.id;
  if (!commentId) {
    ctx.addIssue({ code: 'custom', path: ['commentId'], message: 'is required when replyId is not a global ID' });
    return z.NEVER;
  }
  if (value.replyId.commentId && value.commentId && value.commentId.id !== value.replyId.commentId) {
    ctx.addIssue({ code: 'custom', path: ['replyId'], message: 'replies to another comment than commentId' });
    return z.NEVER;
  }
  const named = value.replyId.spaceId ? value.replyId : (value.commentId ?? value.replyId);
  const placed = inThread(value, ctx, named, 'replyId');
  return placed === z.NEVER ? z.NEVER : { ...placed, thread: commentId };
}

/** The REST path parameters of a comment of a thread. */
const commentParams = (
  at: ThreadAddress,
  commentId: string,
): { spaceId: string; commentId: string; changeRequestId?: string } =>
  at.changeRequestId
    ? { spaceId: at.spaceId, changeRequestId: at.changeRequestId, commentId }
    : { spaceId: at.spaceId, commentId };

/** The parameters of a change request's thread, or undefined for the space's own. */
const inRequest = <P extends { changeRequestId?: string | undefined }>(params: P) =>
  params.changeRequestId === undefined ? undefined : (params as P & { changeRequestId: string });

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
            {
              type: CommentEdge,
              what: 'comment',
              lists: '`Space.comments`, `ChangeRequest.comments` and `DocumentPage.comments`',
            },
            (p) => p.comment,
          ),
        }
      : {}),
  }));

declareMutation('postComment', {
  description:
    'Posts a comment on a space or a change request, on one of the pages of its content, or on a block of a page (the comment role on the space).',
  input: 'Where to comment, and what to say.',
  fields: {
    ...threadFields,
    pageId: inputField(
      'ID',
      'The page to comment on, in the current content (of the change request, if given): its platform id or global ID; none comments on the whole.',
      z.string().trim().min(1, 'must be the id of a page').max(512, 'must be at most 512 characters').nullish(),
    ),
    blockId: inputField(
      'String',
      'The key of a block of that page to comment on (needs `pageId`).',
      z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters').nullish(),
    ),
    body: inputField(CommentBodyInput.type, 'What the comment says.', CommentBodyInput.schema),
  },
  check: (input) =>
    input
      .superRefine((value, ctx) => {
        if (value.blockId && !value.pageId)
          ctx.addIssue({ code: 'custom', path: ['blockId'], message: 'needs pageId: a block is in a page' });
      })
      .transform((value, ctx) => inThread(value, ctx, { id: '' }, 'changeRequestId')),
  payload: commentPayloadFields,
  inputPath: (restField) =>
    restField?.[0] === 'page' ? ['pageId'] : restField?.[0] === 'node' ? ['blockId'] : undefined,
  run: async (i, ctx) => {
    const body = {
      body: i.body,
      ...restBody({ page: i.pageId ? pagePlatformId(i.pageId) : undefined, node: i.blockId }),
    };
    const { data } = i.at.changeRequestId
      ? await ctx.api.write(
          op.postCommentInChangeRequest,
          { spaceId: i.at.spaceId, changeRequestId: i.at.changeRequestId },
          { body: body as never },
        )
      : await ctx.api.write(op.postCommentInSpace, { spaceId: i.at.spaceId }, { body: body as never });
    return { comment: placeComments(ctx, i.at, [data])[0]! };
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
    const params = commentParams(i.at, i.commentId.id);
    const { data } = inRequest(params)
      ? await ctx.api.write(op.updateCommentInChangeRequest, inRequest(params)!, { body })
      : await ctx.api.write(op.updateCommentInSpace, params, { body });
    return { comment: placeComments(ctx, i.at, [data])[0]! };
  },
});

declareMutation('deleteComment', {
  description: 'Deletes a comment and its replies (its author, or an admin of the space).',
  input: 'The comment to delete.',
  fields: commentTarget,
  check: (input) => input.transform(resolveComment),
  payload: (name) => deletedPayload(name, 'True when the comment was deleted, false when it did not exist.'),
  run: (i, ctx) => {
    const params = commentParams(i.at, i.commentId.id);
    return deletionOf(
      'Comment',
      commentKey({ ...i.at, id: i.commentId.id }),
      inRequest(params)
        ? deleteOf(ctx.api, op.deleteCommentInChangeRequest, inRequest(params)!)
        : deleteOf(ctx.api, op.deleteCommentInSpace, params),
    );
  },
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
      resolve: (p, _a, _ctx, info) => {
        const reply = p.reply;
        if (!reply) return null;
        const at = { spaceId: reply.spaceId, changeRequestId: reply.changeRequestId };
        return linkTo(CommentNode, commentKey({ ...at, id: reply.commentId }), info, () => ({
          ...(at as CommentHeld),
          id: reply.commentId,
        }));
      },
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
    const params = commentParams(i.at, i.commentId.id);
    const body = { body: { body: i.body } as never };
    const { data } = inRequest(params)
      ? await ctx.api.write(op.postCommentReplyInChangeRequest, inRequest(params)!, body)
      : await ctx.api.write(op.postCommentReplyInSpace, params, body);
    return { reply: placeReplies(ctx, { ...i.at, commentId: i.commentId.id }, [data])[0]! };
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
    const body = {
      body: restBody(
        { body: i.body, addedReactions: i.addReactions, removedReactions: i.removeReactions },
        { required: 'Give at least one of body, addReactions or removeReactions' },
      ) as never,
    };
    const params = { ...commentParams(i.at, i.thread), commentReplyId: i.replyId.id };
    const { data } = inRequest(params)
      ? await ctx.api.write(op.updateCommentReplyInChangeRequest, inRequest(params)!, body)
      : await ctx.api.write(op.updateCommentReplyInSpace, params, body);
    return { reply: placeReplies(ctx, { ...i.at, commentId: i.thread }, [data])[0]! };
  },
});

declareMutation('deleteCommentReply', {
  description: 'Deletes a reply (its author, or an admin of the space).',
  input: 'The reply to delete.',
  fields: replyTarget,
  check: (input) => input.transform(resolveReply),
  payload: (name) => deletedPayload(name, 'True when the reply was deleted, false when it did not exist.'),
  run: (i, ctx) => {
    const params = { ...commentParams(i.at, i.thread), commentReplyId: i.replyId.id };
    return deletionOf(
      'CommentReply',
      compositeKey(...threadParts(i.at), i.thread, i.replyId.id),
      inRequest(params)
        ? deleteOf(ctx.api, op.deleteCommentReplyInChangeRequest, inRequest(params)!)
        : deleteOf(ctx.api, op.deleteCommentReplyInSpace, params),
    );
  },
});

// --- Following comments -----------------------------------------------------------------------------------

/** Comments a `commentsUpdated` event holds: the newest, each with its reply count and repliers. */
const FOLLOWED_COMMENTS = 100;

interface CommentsEvent {
  at: ThreadAddress;
  comments: Comment[];
  count: number;
}

const CommentsUpdateType = builder.objectRef<CommentsEvent>('CommentsUpdate').implement({
  description: 'The comments of a space or of a change request, as they are now.',
  fields: (t) => ({
    space: t.field({
      type: SpaceNode,
      description: 'The space followed (or the space of the change request followed).',
      extensions: upstream.link,
      resolve: (e, _a, _ctx, info) => linkTo(SpaceNode, e.at.spaceId, info),
    }),
    changeRequest: t.field({
      type: ChangeRequestNode,
      nullable: true,
      description: 'The change request followed; null when it is the space’s own comments.',
      extensions: upstream.link,
      resolve: (e, _a, _ctx, info) =>
        e.at.changeRequestId ? changeRequestLink(e.at.spaceId, e.at.changeRequestId, info) : null,
    }),
    totalCount: t.int({ description: 'How many top-level comments there are.', resolve: (e) => e.count }),
    comments: t.field({
      type: [CommentNode],
      description: `The newest ${FOLLOWED_COMMENTS} top-level comments, newest first, each with its reply count and repliers (its \`replies\` list is read on demand).`,
      resolve: (e, _a, ctx) => placeComments(ctx, e.at, e.comments),
    }),
  }),
});

builder.subscriptionField('commentsUpdated', (t) =>
  t.field({
    type: CommentsUpdateType,
    description:
      'The comments of a space (its own) or of a change request: first as they are, then after each change (a comment posted, edited, resolved, reopened, deleted or reacted to; a reply posted, edited or deleted). One poll per followed thread and token, shared by its subscribers. Ends with NOT_FOUND when the space or change request is gone or no longer visible to you.',
    args: {
      spaceId: t.arg.id({
        description:
          'The space whose own comments to follow, or the space of `changeRequestId` when it is a platform id or number.',
      }),
      changeRequestId: t.arg.id({
        description:
          'The change request whose comments to follow: its global ID, or its platform id or number with `spaceId`.',
      }),
    },
    extensions: upstream.follow(1),
    subscribe: (_root, args, ctx) => {
      const request = args.changeRequestId == null ? undefined : changeRequestRef(String(args.changeRequestId));
      const given = args.spaceId == null ? undefined : platformKey(String(args.spaceId), 'Space');
      const spaceId = request?.spaceId ?? given;
      if (!spaceId)
        throw new BadUserInputError('Give spaceId, or changeRequestId as a global ID (or with spaceId)', ['spaceId']);
      if (request?.spaceId && given && request.spaceId !== given)
        throw new BadUserInputError('changeRequestId is a change request of another space than spaceId', [
          'changeRequestId',
        ]);
      const at: ThreadAddress = { spaceId, changeRequestId: request?.id };
      const query = { limit: FOLLOWED_COMMENTS };
      return follow(ctx, `comments ${spaceId} ${request?.id ?? '-'}`, async (api): Promise<CommentsEvent> => {
        const page = request
          ? await api.read(op.listCommentsInChangeRequest, { spaceId, changeRequestId: request.id }, query)
          : await api.read(op.listCommentsInSpace, { spaceId }, query);
        return { at, comments: page.items, count: page.count };
      });
    },
    resolve: (event) => event,
  }),
);

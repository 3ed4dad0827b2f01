import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway } from '../../src/gateway/http/server.js';
import { changeRequest } from '../fixtures/change-requests.js';
import { subscribe } from '../fixtures/subscriptions.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';

/**
 * Comments end to end: threads on a space and its pages (posted, listed, filtered, replied to,
 * edited, resolved, reacted to, deleted) through the graph, with the permissions of the API
 * description, bodies as markdown in and out, the space's `comments` count, who commented, and an
 * anchor kept across merges until a merge removes what it names.
 */

const ORG = 'lakeside';
let g: TestGateway;
let org: TestOrg;
const users = {} as Record<'ada' | 'dee' | 'cole' | 'finn', TestUser>;
let spaceId: string;
const pages = {} as Record<'guide' | 'setup', string>;
/** Key of the block "Ports" of the guide. */
let portsBlock: string;

/** ada admin, dee `edit`, cole `comment`, finn `read`; a space with the pages Guide and Setup. */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'dee', 'cole', 'finn'] as const) users[key] = addUser(g.platform, key);
  org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', dee: 'edit', cole: 'comment', finn: 'read' }, users });
  spaceId = await org.space('Handbook');
  await g.platform.api('PATCH', `/spaces/${spaceId}`, { body: { mergeRules: { type: 'none' } } });
  const first = await changeRequest(org, spaceId, {
    subject: 'First pages',
    pages: ['# Guide\n\nStart here.\n\n## Ports\n\nThe server listens on 8080.\n', '# Setup\n\nInstall the server.\n'],
  });
  await merge(first.id);
  [pages.guide, pages.setup] = first.pages as [string, string];
  const read = await g.platform.api('GET', `/spaces/${spaceId}/content/page/${pages.guide}`, {
    query: { format: 'document' },
  });
  portsBlock = (read.body.document.nodes as Array<{ key: string; type: string }>).find(
    (node) => node.type === 'heading-1',
  )!.key;
});
afterAll(() => g.destroy());

async function merge(requestId: string) {
  const merged = await g.platform.api('POST', `/spaces/${spaceId}/change-requests/${requestId}/merge`);
  expect(merged.body.result).toBe('merge');
}

const spaceGid = () => encodeGlobalID('Space', spaceId);

async function ok<T = any>(query: string, variables: Record<string, unknown> = {}, as?: keyof typeof users) {
  const result = await g.gql<T>(query, variables, as ? { token: users[as].token } : {});
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  for (const value of Object.values(result.data as Record<string, unknown>)) {
    if (value && typeof value === 'object' && 'userErrors' in value)
      expect((value as { userErrors: unknown[] }).userErrors).toEqual([]);
  }
  return result;
}

const named = (requests: string[]) => requests.map((request) => request.split(spaceId).join('<space>'));

const POST = `mutation Post($input: PostCommentInput!) {
  postComment(input: $input) {
    comment { id platformId status pageId blockId outdated author { displayName } body { markdown } }
    commentEdge { node { platformId } }
    userErrors { message code field }
  }
}`;

async function post(as: keyof typeof users, input: Record<string, unknown>) {
  const result = await ok(POST, { input: { spaceId, ...input } }, as);
  return result.data.postComment.comment as { id: string; platformId: string };
}

describe('posting comments', () => {
  it('posts on a block of a page in markdown, anchored to it', async () => {
    const result = await ok(
      POST,
      {
        input: {
          spaceId,
          pageId: pages.guide,
          blockId: portsBlock,
          body: { markdown: '# Which port?\n\nShould we say **8443** for TLS?' },
        },
      },
      'dee',
    );
    const { comment } = result.data.postComment;
    expect(comment).toMatchObject({
      status: 'OPEN',
      pageId: pages.guide,
      blockId: portsBlock,
      author: { displayName: 'Dee' },
      body: { markdown: '## Which port?\n\nShould we say **8443** for TLS?\n' },
    });
    expect(result.data.postComment.commentEdge.node.platformId).toBe(comment.platformId);
    // The post, and the space read once to tell whether the anchor is outdated.
    expect(named(result.upstreamRequests)).toEqual(['POST /v1/spaces/<space>/comments', 'GET /v1/spaces/<space>']);
    expect(comment.outdated).toBe(false);
  });

  it('refuses a reader, an unknown page, a block without a page and an oversized body, each naming its field', async () => {
    const refused = async (as: keyof typeof users, input: Record<string, unknown>) => {
      const result = await g.gql(POST, { input: { spaceId, ...input } }, { token: users[as].token });
      expect(result.errors).toBeUndefined();
      return result.data.postComment.userErrors;
    };
    expect(await refused('finn', { body: { text: 'Hello' } })).toEqual([
      { message: 'Commenting needs the comment role', code: 'FORBIDDEN', field: null },
    ]);
    expect(await refused('dee', { pageId: 'no-such-page', body: { text: 'Hello' } })).toEqual([
      { message: expect.stringContaining('Page not found'), code: 'NOT_FOUND', field: ['pageId'] },
    ]);
    expect(await refused('dee', { blockId: portsBlock, body: { text: 'Hello' } })).toEqual([
      { message: expect.stringContaining('needs pageId'), code: 'BAD_USER_INPUT', field: ['blockId'] },
    ]);
    expect((await refused('dee', { body: { markdown: 'x'.repeat(70_000) } }))[0]).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['body', 'markdown'],
    });
    // The platform's own budget, for other clients: a coded 413 naming the limit, the value and the maximum.
    const direct = await g.platform.api('POST', `/spaces/${spaceId}/comments`, {
      token: users.dee.token,
      body: { body: { markdown: 'y'.repeat(70_000) } },
    });
    expect(direct.status).toBe(413);
    expect(direct.body).toMatchObject({ error: { limit: 'commentBytes', value: 70_000, max: 65_536 } });
  });
});

describe('threads', () => {
  let general: { id: string; platformId: string };
  let onSetup: { id: string; platformId: string };

  beforeAll(async () => {
    general = await post('cole', { body: { text: 'Who owns this space?\nAsking for the audit.' } });
    onSetup = await post('dee', { pageId: pages.setup, body: { markdown: 'Add the **Windows** steps.' } });
  });

  it('lists the comments of the space newest first, filtered by page, author and status, with its count', async () => {
    const result = await ok(
      `query($id: ID!, $setup: ID!, $cole: [ID!], $both: [ID!]) { node(id: $id) { ... on Space {
        counts { comments }
        all: comments { totalCount nodes { platformId } }
        oldest: comments(order: ASC, first: 1) { nodes { platformId } pageInfo { hasNextPage } }
        byCole: comments(authors: $cole) { nodes { platformId body { text } } }
        byBoth: comments(authors: $both) { totalCount }
        content { page(id: $setup) { ... on DocumentPage { comments { nodes { platformId page { title } } } } } }
      } } }`,
      {
        id: spaceGid(),
        setup: pages.setup,
        cole: [users.cole.id],
        both: [
          users.cole.id,
          encodeGlobalID('User', users.dee.id),
          // Ten more names than fit in 100 characters: the filter takes up to 100 authors.
          ...Array.from({ length: 10 }, (_, n) => `user-nobody-${String(n).padStart(8, '0')}`),
        ],
      },
    );
    const space = result.data.node;
    expect(space.counts.comments).toBe(3);
    expect(space.all.totalCount).toBe(3);
    expect(space.all.nodes[0].platformId).toBe(onSetup.platformId);
    expect(space.all.nodes[1].platformId).toBe(general.platformId);
    expect(space.oldest).toEqual({ nodes: [space.all.nodes[2]], pageInfo: { hasNextPage: true } });
    expect(space.byCole.nodes).toEqual([
      { platformId: general.platformId, body: { text: 'Who owns this space?\nAsking for the audit.' } },
    ]);
    expect(space.byBoth.totalCount).toBe(3);
    expect(space.content.page.comments.nodes).toEqual([{ platformId: onSetup.platformId, page: { title: 'Setup' } }]);
  });

  it('replies, reacts and refetches a comment and a reply by global ID', async () => {
    const replied = await ok(
      `mutation($c: ID!) { postCommentReply(input: { commentId: $c, body: { markdown: "The platform team." } }) {
        reply { id platformId author { displayName } body { markdown } }
        replyEdge { node { platformId } }
        comment { replyCount repliers { user { displayName } count } }
        userErrors { code } } }`,
      { c: general.id },
      'ada',
    );
    const reply = replied.data.postCommentReply.reply;
    expect(reply).toMatchObject({ author: { displayName: 'Ada' }, body: { markdown: 'The platform team.\n' } });
    expect(replied.data.postCommentReply.comment).toEqual({
      replyCount: 1,
      repliers: [{ user: { displayName: 'Ada' }, count: 1 }],
    });
    await ok(
      `mutation($c: ID!, $r: ID!) {
        a: updateComment(input: { commentId: $c, addReactions: ["👍", "🎉"] }) { userErrors { code } }
        b: updateCommentReply(input: { replyId: $r, addReactions: ["👍"] }) { userErrors { code } }
      }`,
      { c: general.id, r: reply.id },
      'cole',
    );
    await ok(
      `mutation($c: ID!) { updateComment(input: { commentId: $c, addReactions: ["👍"], removeReactions: ["🎉"] }) { userErrors { code } } }`,
      { c: general.id },
      'dee',
    );
    const read = await ok(
      `query($c: ID!, $r: ID!) {
        comment: node(id: $c) { ... on Comment { platformId reactions { emoji count users { displayName } }
          replies { totalCount nodes { id } } viewerCan { edit reply delete } } }
        reply: node(id: $r) { ... on CommentReply { body { text } reactions { emoji count } comment { platformId } } }
      }`,
      { c: general.id, r: reply.id },
      'cole',
    );
    expect(read.data).toEqual({
      comment: {
        platformId: general.platformId,
        reactions: [
          { emoji: '👍', count: 2, users: [{ displayName: 'Cole' }, { displayName: 'Dee' }] },
          { emoji: '🎉', count: 1, users: [{ displayName: 'Cole' }] },
        ],
        replies: { totalCount: 1, nodes: [{ id: reply.id }] },
        viewerCan: { edit: true, reply: true, delete: true },
      },
      reply: {
        body: { text: 'The platform team.' },
        reactions: [{ emoji: '👍', count: 1 }],
        comment: { platformId: general.platformId },
      },
    });
    expect(named(read.upstreamRequests).sort()).toEqual([
      `GET /v1/spaces/<space>/comments/${general.platformId}`,
      `GET /v1/spaces/<space>/comments/${general.platformId}/replies/${reply.platformId}`,
      `GET /v1/spaces/<space>/comments/${general.platformId}/replies?limit=50`,
    ]);
  });

  it('lets only the author or an admin edit, resolve and delete; resolving changes the count', async () => {
    const update = `mutation($input: UpdateCommentInput!) { updateComment(input: $input) {
      comment { status resolvedBy { displayName } editedAt body { text } } userErrors { message code } } }`;
    const byOther = await g.gql(
      update,
      { input: { commentId: onSetup.id, resolved: true } },
      { token: users.cole.token },
    );
    expect(byOther.data.updateComment.userErrors).toEqual([
      { message: 'Only its author or an admin of the space can resolve a comment', code: 'FORBIDDEN' },
    ]);
    const edited = await ok(
      update,
      { input: { spaceId, commentId: onSetup.platformId, body: { text: 'Add the Windows and macOS steps.' } } },
      'dee',
    );
    expect(edited.data.updateComment.comment).toMatchObject({
      status: 'OPEN',
      resolvedBy: null,
      body: { text: 'Add the Windows and macOS steps.' },
      editedAt: expect.any(String),
    });
    const resolved = await ok(update, { input: { commentId: onSetup.id, resolved: true } }, 'ada');
    expect(resolved.data.updateComment.comment).toMatchObject({
      status: 'RESOLVED',
      resolvedBy: { displayName: 'Ada' },
    });
    const counts = await ok(
      `query($id: ID!) { node(id: $id) { ... on Space { counts { comments } open: comments(status: OPEN) { totalCount }
        resolved: comments(status: RESOLVED) { nodes { platformId } } } } }`,
      { id: spaceGid() },
    );
    expect(counts.data.node).toEqual({
      counts: { comments: 2 },
      open: { totalCount: 2 },
      resolved: { nodes: [{ platformId: onSetup.platformId }] },
    });
  });

  it('lists who commented, as members, first commenter first', async () => {
    const result = await ok(
      `query($id: ID!) { node(id: $id) { ... on Space { commenters { totalCount nodes { role user { displayName } } } } } }`,
      { id: spaceGid() },
    );
    expect(result.data.node.commenters).toEqual({
      totalCount: 3,
      nodes: [
        { role: 'EDIT', user: { displayName: 'Dee' } },
        { role: 'COMMENT', user: { displayName: 'Cole' } },
        { role: 'ADMIN', user: { displayName: 'Ada' } },
      ],
    });
  });

  it('deletes a reply, then a comment with its replies; deleting again answers deleted: false', async () => {
    const thread = await post('cole', { body: { text: 'Temporary thread' } });
    const reply = await ok(
      `mutation($c: ID!) { postCommentReply(input: { commentId: $c, body: { text: "Soon gone" } }) { reply { id platformId } userErrors { code } } }`,
      { c: thread.id },
      'dee',
    );
    const replyId = reply.data.postCommentReply.reply.id;
    const refused = await g.gql(
      `mutation($r: ID!) { deleteCommentReply(input: { replyId: $r }) { deleted userErrors { code } } }`,
      { r: replyId },
      { token: users.cole.token },
    );
    expect(refused.data.deleteCommentReply).toEqual({ deleted: false, userErrors: [{ code: 'FORBIDDEN' }] });
    const deleteReply = `mutation($r: ID!) { deleteCommentReply(input: { replyId: $r }) { deleted deletedId userErrors { code } } }`;
    expect((await ok(deleteReply, { r: replyId }, 'dee')).data.deleteCommentReply).toEqual({
      deleted: true,
      deletedId: replyId,
      userErrors: [],
    });
    const deleteComment = `mutation($c: ID!) { deleteComment(input: { commentId: $c }) { deleted deletedId userErrors { code } } }`;
    expect((await ok(deleteComment, { c: thread.id }, 'ada')).data.deleteComment).toEqual({
      deleted: true,
      deletedId: thread.id,
      userErrors: [],
    });
    expect((await ok(deleteComment, { c: thread.id }, 'ada')).data.deleteComment.deleted).toBe(false);
    const gone = await g.gql(`query($c: ID!) { node(id: $c) { id } }`, { c: thread.id });
    expect(gone.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });

  it('answers a body as markdown on the platform with format=markdown', async () => {
    const answer = await g.platform.api('GET', `/spaces/${spaceId}/comments/${onSetup.platformId}`, {
      token: users.finn.token,
      query: { format: 'markdown' },
    });
    expect(answer.body.body).toEqual({ markdown: 'Add the Windows and macOS steps.\n' });
    expect(answer.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false });
  });
});

describe('anchors across merges', () => {
  it('keeps a comment on its page and block through a merge that changes the page, and says outdated once a merge removes it', async () => {
    const anchored = await post('dee', {
      pageId: pages.guide,
      blockId: portsBlock,
      body: { text: 'Document the TLS port too.' },
    });
    const READ = `query($c: ID!) { node(id: $c) { ... on Comment { outdated pageId revision { platformId }
      page { title } space { content { platformId } } } } }`;
    const before = (await ok(READ, { c: anchored.id })).data.node;
    expect(before.outdated).toBe(false);

    const edit = await changeRequest(org, spaceId, { subject: 'Reword the guide' });
    await g.platform.api('POST', `/spaces/${spaceId}/change-requests/${edit.id}/content`, {
      body: { changes: [{ operation: 'update_page', page: pages.guide, description: 'Where to begin.' }] },
    });
    await merge(edit.id);
    const kept = (await ok(READ, { c: anchored.id })).data.node;
    expect(kept.outdated).toBe(false);
    expect(kept.revision.platformId).toBe(kept.space.content.platformId);
    expect(kept.revision.platformId).not.toBe(before.revision.platformId);

    const removal = await changeRequest(org, spaceId, { subject: 'Drop the guide' });
    await g.platform.api('POST', `/spaces/${spaceId}/change-requests/${removal.id}/content`, {
      body: { changes: [{ operation: 'delete_page', page: pages.guide }] },
    });
    await merge(removal.id);
    const lost = (await ok(READ, { c: anchored.id })).data.node;
    expect(lost.outdated).toBe(true);
    // Its revision is the content it was last found in, where its page still reads.
    expect(lost.revision.platformId).toBe(before.revision.platformId);
    expect(lost.page).toEqual({ title: 'Guide' });
    expect(lost.space.content.platformId).not.toBe(lost.revision.platformId);
  });
});

describe('comments of a change request', () => {
  it('threads on a change request and its pages: counted, listed, refetched, replied to, resolved, merged', async () => {
    const request = await changeRequest(org, spaceId, {
      subject: 'Deployment page',
      pages: ['# Deploy\n\nPush the image, then roll out.\n'],
      status: 'open',
      as: 'dee',
    });
    const requestGid = encodeGlobalID('ChangeRequest', `${spaceId}/${request.id}`);
    const posted = await ok(
      `mutation($r: ID!, $p: ID!) { postComment(input: { changeRequestId: $r, pageId: $p, body: { markdown: "Which registry?" } }) {
        comment { id platformId changeRequest { subject } page { title } outdated } userErrors { code } } }`,
      { r: requestGid, p: request.pages[0] },
      'cole',
    );
    const comment = posted.data.postComment.comment;
    expect(comment).toMatchObject({
      changeRequest: { subject: 'Deployment page' },
      page: { title: 'Deploy' },
      outdated: false,
    });
    // The post, then the change request (is the anchor outdated?) and its revision's tree (the page), together.
    expect(named(posted.upstreamRequests)).toHaveLength(3);
    expect(named(posted.upstreamRequests)).toEqual(
      expect.arrayContaining([
        `POST /v1/spaces/<space>/change-requests/${request.id}/comments`,
        `GET /v1/spaces/<space>/change-requests/${request.id}`,
        expect.stringMatching(/^GET \/v1\/spaces\/<space>\/revisions\/\w+\/pages/),
      ]),
    );
    await ok(
      `mutation($c: ID!) { postCommentReply(input: { commentId: $c, body: { text: "Ours, on ghcr." } }) { reply { id } userErrors { code } } }`,
      { c: comment.id },
      'dee',
    );
    const read = await ok(
      `query($r: ID!, $c: ID!) {
        request: node(id: $r) { ... on ChangeRequest { openComments
          comments { totalCount nodes { platformId replies { nodes { body { text } } } } }
          commenters { nodes { user { displayName } } }
          contributors { nodes { user { displayName } kind } }
          content { page(id: "${request.pages[0]}") { ... on DocumentPage { comments { nodes { platformId } } } } } } }
        comment: node(id: $c) { ... on Comment { platformId replyCount } }
        space: space(id: "${spaceId}") { comments(first: 1000) { nodes { platformId } } }
      }`,
      { r: requestGid, c: comment.id },
    );
    expect(read.data.request).toEqual({
      openComments: 1,
      comments: {
        totalCount: 1,
        nodes: [{ platformId: comment.platformId, replies: { nodes: [{ body: { text: 'Ours, on ghcr.' } }] } }],
      },
      commenters: { nodes: [{ user: { displayName: 'Cole' } }, { user: { displayName: 'Dee' } }] },
      contributors: { nodes: expect.arrayContaining([{ user: { displayName: 'Cole' }, kind: 'COMMENT' }]) },
      content: { page: { comments: { nodes: [{ platformId: comment.platformId }] } } },
    });
    expect(read.data.comment).toEqual({ platformId: comment.platformId, replyCount: 1 });
    // The space's own comments are apart.
    expect(read.data.space.comments.nodes).not.toContainEqual({ platformId: comment.platformId });
    expect(named(read.upstreamRequests)).toContain(
      `GET /v1/spaces/<space>/change-requests/${request.id}/comments/${comment.platformId}`,
    );

    const resolved = await ok(
      `mutation($c: ID!, $s: ID!, $r: ID!) { updateComment(input: { spaceId: $s, changeRequestId: $r, commentId: $c, resolved: true }) {
        comment { status changeRequest { openComments } } userErrors { code } } }`,
      { c: comment.platformId, s: spaceId, r: request.id },
      'cole',
    );
    expect(resolved.data.updateComment.comment).toEqual({ status: 'RESOLVED', changeRequest: { openComments: 0 } });

    await merge(request.id);
    const after = await ok(`query($c: ID!) { node(id: $c) { ... on Comment { outdated page { title } } } }`, {
      c: comment.id,
    });
    expect(after.data.node).toEqual({ outdated: false, page: { title: 'Deploy' } });

    const replies = await ok(`query($c: ID!) { node(id: $c) { ... on Comment { replies { nodes { id } } } } }`, {
      c: comment.id,
    });
    const replyId = replies.data.node.replies.nodes[0].id;
    const edited = await ok(
      `mutation($r: ID!) { updateCommentReply(input: { replyId: $r, body: { text: "Ours, on GHCR." } }) { reply { body { text } } comment { platformId } userErrors { code } } }`,
      { r: replyId },
      'dee',
    );
    expect(edited.data.updateCommentReply).toMatchObject({
      reply: { body: { text: 'Ours, on GHCR.' } },
      comment: { platformId: comment.platformId },
    });
    expect(
      (await ok(`query($r: ID!) { node(id: $r) { ... on CommentReply { body { text } } } }`, { r: replyId })).data.node,
    ).toEqual({
      body: { text: 'Ours, on GHCR.' },
    });
    const deleted = await ok(
      `mutation($r: ID!, $c: ID!) {
        reply: deleteCommentReply(input: { replyId: $r }) { deleted userErrors { code } }
        comment: deleteComment(input: { commentId: $c }) { deleted userErrors { code } } }`,
      { r: replyId, c: comment.id },
      'ada',
    );
    expect(deleted.data).toEqual({
      reply: { deleted: true, userErrors: [] },
      comment: { deleted: true, userErrors: [] },
    });
  });
});

describe('following comments', () => {
  it('sends the comments of a space, then each change: a comment posted, resolved, replied to; one poll for two subscribers of one token', async () => {
    const live = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 50 },
    });
    const server = createServer(live.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const query = `subscription ($s: ID!) { commentsUpdated(spaceId: $s) {
        totalCount space { title } changeRequest { id } comments { platformId status replyCount } } }`;
      const [first, second] = await Promise.all(
        [0, 1].map(() => subscribe(url, query, { token: users.cole.token, variables: { s: spaceId } })),
      );
      const initial = (await first!.next()).data.commentsUpdated;
      expect(initial).toMatchObject({ space: { title: 'Handbook' }, changeRequest: null });
      expect((await second!.next()).data.commentsUpdated).toEqual(initial);

      const posted = await g.platform.api('POST', `/spaces/${spaceId}/comments`, {
        token: users.dee.token,
        body: { body: { markdown: 'Followed?' } },
      });
      const added = (await first!.next()).data.commentsUpdated;
      expect(added.totalCount).toBe(initial.totalCount + 1);
      expect(added.comments[0]).toEqual({ platformId: posted.body.id, status: 'OPEN', replyCount: 0 });
      expect((await second!.next()).data.commentsUpdated).toEqual(added);

      const polls = () =>
        g.platform.app.stats.requests.filter((line) => line.startsWith(`GET /v1/spaces/${spaceId}/comments?`)).length;
      g.platform.app.stats.reset();
      await g.platform.api('PUT', `/spaces/${spaceId}/comments/${posted.body.id}`, {
        token: users.dee.token,
        body: { resolved: true },
      });
      const resolved = (await first!.next()).data.commentsUpdated;
      expect(resolved.comments[0]).toMatchObject({ platformId: posted.body.id, status: 'RESOLVED' });
      expect((await second!.next()).data.commentsUpdated).toEqual(resolved);
      // Two subscribers of one thread with one token: one watch, polled once per interval for both.
      expect({ subscriptions: live.live.subscriptions, polled: live.live.polled }).toEqual({
        subscriptions: 2,
        polled: 1,
      });
      const pollsBefore = polls();
      await g.platform.api('POST', `/spaces/${spaceId}/comments/${posted.body.id}/replies`, {
        token: users.cole.token,
        body: { body: { markdown: 'Yes.' } },
      });
      const replied = (await first!.next()).data.commentsUpdated;
      expect(replied.comments[0]).toMatchObject({ replyCount: 1 });
      await second!.next();
      expect(polls() - pollsBefore).toBeGreaterThan(0);
      first!.close();
      second!.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await live.close();
    }
  });

  it('follows the comments of a change request by its global ID, and refuses a call that names no thread', async () => {
    const request = await changeRequest(org, spaceId, { subject: 'Followed request', status: 'open', as: 'dee' });
    const requestGid = encodeGlobalID('ChangeRequest', `${spaceId}/${request.id}`);
    const refused = await g.gql(`subscription { commentsUpdated { totalCount } }`, {}, { token: users.cole.token });
    expect(JSON.stringify(refused)).toContain('BAD_USER_INPUT');
    const live = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      subscriptions: { pollMs: 50 },
    });
    const server = createServer(live.handle);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const sub = await subscribe(
        url,
        `subscription ($r: ID!) { commentsUpdated(changeRequestId: $r) { totalCount changeRequest { subject } comments { body { text } } } }`,
        { token: users.cole.token, variables: { r: requestGid } },
      );
      expect((await sub.next()).data.commentsUpdated).toEqual({
        totalCount: 0,
        changeRequest: { subject: 'Followed request' },
        comments: [],
      });
      await g.platform.api('POST', `/spaces/${spaceId}/change-requests/${request.id}/comments`, {
        token: users.cole.token,
        body: { body: { markdown: 'Ready for review?' } },
      });
      expect((await sub.next()).data.commentsUpdated).toMatchObject({
        totalCount: 1,
        comments: [{ body: { text: 'Ready for review?' } }],
      });
      sub.close();
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await live.close();
    }
  });
});

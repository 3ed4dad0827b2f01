import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, sampleContent, textDocument } from '../fixtures/content.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';

/** Spaces the tests use: Runbooks holds the sample content; the others are spaces of the same organization. */
const S = {
  userGrant: 'Runbooks',
  teamGrant: 'Architecture decisions',
  gitSynced: 'Company handbook',
  guestComment: 'Tutorials',
  locked: 'Security hardening',
};
/** ada admin and finn (`read`, `edit` on Runbooks) of Northwind; ivy is in no organization. */
const users = {} as Record<'ada' | 'finn' | 'ivy', TestUser>;
const U = {} as Record<keyof typeof users, string>;

let g: TestGateway;
let spaceId: string;
let firstRevision: string;
/** The top pages and the parents of the space's revision before the sample content. */
let firstPages: Array<{ title: string }>;
let firstParents: string[];
let revision: string;
let ids: ReturnType<typeof sampleContent>['ids'];

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  for (const key of ['ada', 'finn', 'ivy'] as const) {
    users[key] = addUser(g.platform, key);
    U[key] = users[key].email;
  }
  const org = addOrg(g.platform, { id: 'northwind', members: { ada: 'admin', finn: 'read' }, users });
  spaceId = await org.space(S.userGrant);
  await org.grant({ space: spaceId }, 'edit', { users: ['finn'] });
  for (const title of [S.teamGrant, S.gitSynced, S.guestComment, S.locked]) await org.space(title);
  // Two more spaces whose pages mention installing, so that the organization's search spans several spaces.
  for (const title of ['Getting started', 'Release notes']) {
    const other = await org.space(title);
    commitContent(g.platform.db, other, sampleContent(g.platform.db, other).content);
  }
  // A first revision with a page of its own, which the sample content replaces.
  const oldPage = {
    id: 'pg-old-runbook',
    type: 'document' as const,
    title: 'Old runbook',
    slug: 'old-runbook',
    documentId: putDocument(g.platform.db, spaceId, textDocument([[0, 'Restart the service by hand.']])),
    pages: [],
  };
  commitContent(g.platform.db, spaceId, { pages: [oldPage], files: [], reusableContents: [], variables: {} });
  firstRevision = g.platform.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
  const seeded = (await g.platform.api('GET', `/spaces/${spaceId}/content`)).body as {
    pages: Array<{ title: string }>;
    parents: string[];
  };
  firstPages = seeded.pages.map(({ title }) => ({ title }));
  firstParents = seeded.parents;
  const sample = sampleContent(g.platform.db, spaceId, '', g.platform.url.replace(/\/v1$/, '/app'));
  ids = sample.ids;
  revision = commitContent(g.platform.db, spaceId, sample.content);
});
afterAll(() => g?.destroy());

const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });
const key = (...parts: string[]) => parts.map(encodeURIComponent).join('/');
const revisionGid = (id = revision) => encodeGlobalID('Revision', key(spaceId, id));
const pageGid = (typename: string, pageId: string) => encodeGlobalID(typename, key(spaceId, revision, pageId));
const fileGid = (fileId: string) => encodeGlobalID('File', key(spaceId, revision, fileId));

/** The parts of an answer a test asserts as a whole: data, errors without locations, upstream requests. */
async function run(query: string, variables?: Record<string, unknown>, options?: { token?: string }) {
  const result = await g.gql(query, variables, options);
  return {
    data: result.data,
    errors: result.errors?.map(({ message, path, extensions }) => ({ message, path, extensions })),
    upstream: result.upstream,
    requests: result.upstreamRequests.map((request) =>
      request
        .replace(/^GET \/v1/, '')
        .replaceAll(spaceId, 'S')
        .replaceAll(revision, 'R'),
    ),
  };
}

describe('Space.content: the page tree', () => {
  it('reads the tree of the current revision in one request, with paths, kinds and nesting', async () => {
    const answer = await run(
      `query Tree($id: ID!) {
        space(id: $id) {
          content {
            id platformId type createdAt variables
            parents { platformId }
            urls { app }
            pages {
              __typename platformId title type hidden
              ... on GroupPage { path slug }
              ... on DocumentPage { path slug }
              ... on LinkPage { url }
              children {
                __typename title ... on DocumentPage { path description }
                children { title emoji ... on DocumentPage { path } }
              }
            }
          }
        }
      }`,
      { id: spaceId },
    );
    expect(answer.errors).toBeUndefined();
    const content = answer.data!.space.content;
    expect(content).toMatchObject({
      id: revisionGid(),
      platformId: revision,
      type: 'EDITS',
      variables: { product: 'Acme Docs', version: 3 },
      parents: [{ platformId: firstRevision }],
    });
    expect(content.urls.app).toContain(`/s/${spaceId}/~/revisions/${revision}`);
    expect(content.pages).toEqual([
      {
        __typename: 'GroupPage',
        platformId: ids.group,
        title: 'Getting started',
        type: 'GROUP',
        hidden: false,
        path: 'getting-started',
        slug: 'getting-started',
        children: [
          {
            __typename: 'DocumentPage',
            title: 'Introduction',
            path: 'getting-started/introduction',
            description: null,
            children: [],
          },
          {
            __typename: 'DocumentPage',
            title: 'Install',
            path: 'getting-started/install',
            description: 'Set it up in five minutes',
            children: [{ title: 'On Linux', emoji: '🐧', path: 'getting-started/install/linux' }],
          },
        ],
      },
      {
        __typename: 'DocumentPage',
        platformId: ids.api,
        title: 'API reference',
        type: 'DOCUMENT',
        hidden: true,
        path: 'api',
        slug: 'api',
        children: [],
      },
      {
        __typename: 'LinkPage',
        platformId: ids.status,
        title: 'Status',
        type: 'LINK',
        hidden: false,
        url: 'https://status.example.test',
        children: [],
      },
    ]);
    expect(answer.requests).toEqual(['/spaces/S', '/spaces/S/content']);
  });

  it('answers pages, page(id:), page(path:), parent and children from that one read of the tree', async () => {
    const answer = await run(
      `query Lookups($id: ID!, $linux: ID!, $install: ID!) {
        space(id: $id) {
          content {
            pages { title }
            landing: page(path: "") { title ... on DocumentPage { path } }
            byPath: page(path: "/getting-started/install/linux/") { platformId parent { title parent { title parent { title } } } }
            byId: page(id: $linux) { title }
            byGlobalId: page(id: $install) { title children { title parent { title } } }
            group: page(path: "getting-started") { __typename children { title } }
          }
        }
      }`,
      { id: spaceId, linux: ids.linux, install: pageGid('DocumentPage', ids.install) },
    );
    expect(answer).toEqual({
      data: {
        space: {
          content: {
            pages: [{ title: 'Getting started' }, { title: 'API reference' }, { title: 'Status' }],
            landing: { title: 'Introduction', path: 'getting-started/introduction' },
            byPath: {
              platformId: ids.linux,
              parent: { title: 'Install', parent: { title: 'Getting started', parent: null } },
            },
            byId: { title: 'On Linux' },
            byGlobalId: { title: 'Install', children: [{ title: 'On Linux', parent: { title: 'Install' } }] },
            group: { __typename: 'GroupPage', children: [{ title: 'Introduction' }, { title: 'Install' }] },
          },
        },
      },
      errors: undefined,
      upstream: 2,
      requests: ['/spaces/S', '/spaces/S/content/pages'],
    });
  });

  it('reads a revision by its global ID in exactly one request, tree lookups included', async () => {
    const answer = await run(
      `query ByNode($id: ID!) {
        node(id: $id) {
          ... on Revision {
            pages { title children { title } }
            a: page(path: "") { title }
            b: page(path: "api") { title parent { title } }
            c: page(id: "${ids.linux}") { parent { title } }
          }
        }
      }`,
      { id: revisionGid() },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.node.b).toEqual({ title: 'API reference', parent: null });
    expect(answer.data!.node.c).toEqual({ parent: { title: 'Install' } });
    expect(answer.requests).toEqual(['/spaces/S/revisions/R']);
  });

  it('gives a missing page null with NOT_FOUND and the rest of the answer', async () => {
    const answer = await run(
      `query Missing($id: ID!) { space(id: $id) { content { a: page(id: "nope") { title } b: page(path: "no/such/page") { title } c: page(path: "api") { title } } } }`,
      { id: spaceId },
    );
    expect(answer.data).toEqual({ space: { content: { a: null, b: null, c: { title: 'API reference' } } } });
    expect(answer.errors).toEqual([
      { message: 'Page not found: "nope"', path: ['space', 'content', 'a'], extensions: { code: 'NOT_FOUND' } },
      {
        message: 'Page at path not found: "no/such/page"',
        path: ['space', 'content', 'b'],
        extensions: { code: 'NOT_FOUND' },
      },
    ]);
  });

  it('costs nothing for Space.content when only its id is asked', async () => {
    const answer = await run(`query ContentId($id: ID!) { space(id: $id) { content { id platformId } } }`, {
      id: spaceId,
    });
    expect(answer).toMatchObject({
      data: { space: { content: { id: revisionGid(), platformId: revision } } },
      upstream: 1,
    });
  });
});

describe('revisions', () => {
  it('reads an older revision by id, unchanged by what came after, and follows parents', async () => {
    const answer = await run(
      `query Older($id: ID!, $first: ID!) {
        space(id: $id) {
          older: revision(id: $first) { platformId parents { id } pages { title } }
          content { parents { platformId pages { title } } }
        }
      }`,
      { id: spaceId, first: firstRevision },
    );
    expect(answer).toEqual({
      data: {
        space: {
          older: {
            platformId: firstRevision,
            parents: firstParents.map((id) => ({ id: revisionGid(id) })),
            pages: firstPages,
          },
          content: { parents: [{ platformId: firstRevision, pages: firstPages }] },
        },
      },
      errors: undefined,
      upstream: 3,
      requests: ['/spaces/S', '/spaces/S/content', `/spaces/S/revisions/${firstRevision}`],
    });
  });

  it('gives a revision the space does not have null with NOT_FOUND', async () => {
    const answer = await run(
      `query NoRevision($id: ID!) { space(id: $id) { title revision(id: "nope") { platformId } } }`,
      { id: spaceId },
    );
    expect(answer.data).toEqual({ space: { title: S.userGrant, revision: null } });
    expect(answer.errors).toEqual([
      expect.objectContaining({ path: ['space', 'revision'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }),
    ]);
  });

  it('lets a reader of the space read its content, and answers NOT_FOUND to someone outside it', async () => {
    const query = `query AsUser($id: ID!) { space(id: $id) { content { pages { title } } } }`;
    const reader = await run(query, { id: spaceId }, as(U.finn));
    expect(reader.errors).toBeUndefined();
    expect(reader.data!.space.content.pages).toHaveLength(3);
    const outsider = await run(query, { id: spaceId }, as(U.ivy));
    expect(outsider.data).toEqual({ space: null });
    expect(outsider.errors).toEqual([
      expect.objectContaining({ path: ['space'], extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }),
    ]);
    const byNode = await run(
      `query PageAsOutsider($id: ID!) { node(id: $id) { id } }`,
      { id: pageGid('DocumentPage', ids.api) },
      as(U.ivy),
    );
    expect(byNode).toMatchObject({
      data: { node: null },
      errors: [{ extensions: { code: 'NOT_FOUND', upstreamStatus: 404 } }],
      upstream: 1,
    });
  });

  it('lists what a revision changed as a union of change kinds', async () => {
    const answer = await run(
      `query Changes($id: ID!) {
        space(id: $id) {
          content {
            changes(limit: 100) {
              more
              changes {
                __typename
                ... on PageCreatedChange { page { __typename title parent { title } } }
                ... on FileCreatedChange { file { name size } }
                ... on VariablesEditedChange { variables { name before after } }
              }
            }
          }
        }
      }`,
      { id: spaceId },
    );
    expect(answer.errors).toBeUndefined();
    const { changes, more } = answer.data!.space.content.changes;
    expect(more).toBe(0);
    expect(
      changes.filter((change: any) => change.__typename === 'PageCreatedChange').map((change: any) => change.page),
    ).toEqual([
      { __typename: 'GroupPage', title: 'Getting started', parent: null },
      { __typename: 'DocumentPage', title: 'Introduction', parent: { title: 'Getting started' } },
      { __typename: 'DocumentPage', title: 'Install', parent: { title: 'Getting started' } },
      { __typename: 'DocumentPage', title: 'On Linux', parent: { title: 'Install' } },
      { __typename: 'DocumentPage', title: 'API reference', parent: null },
      { __typename: 'LinkPage', title: 'Status', parent: null },
    ]);
    expect(changes.filter((change: any) => change.__typename === 'FileCreatedChange')).toEqual([
      { __typename: 'FileCreatedChange', file: { name: 'architecture diagram.png', size: 81 } },
      { __typename: 'FileCreatedChange', file: { name: 'notes.txt', size: 14 } },
    ]);
    expect(changes.find((change: any) => change.__typename === 'VariablesEditedChange').variables).toEqual([
      { name: 'product', before: null, after: 'Acme Docs' },
      { name: 'version', before: null, after: 3 },
    ]);
    // The pages and files of the changes come from the revision's tree: space, revision, changes.
    expect(answer.requests).toEqual(['/spaces/S', '/spaces/S/content', '/spaces/S/revisions/R/changes?limit=100']);
  });

  it('resolves deleted pages from the parent revision, read once', async () => {
    const space = g.platform.spaceId(S.teamGrant);
    const { content } = sampleContent(g.platform.db, space);
    commitContent(g.platform.db, space, content);
    commitContent(g.platform.db, space, { ...content, pages: content.pages.slice(1) });
    const answer = await run(
      `query Deleted($id: ID!) {
        space(id: $id) {
          content { changes { changes { __typename ... on PageDeletedChange { page { title children { title } revision { id } } } } } }
        }
      }`,
      { id: space },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.space.content.changes.changes).toEqual([
      expect.objectContaining({
        __typename: 'PageDeletedChange',
        page: expect.objectContaining({
          title: 'Getting started',
          children: [{ title: 'Introduction' }, { title: 'Install' }],
        }),
      }),
      ...Array.from({ length: 3 }, () => expect.objectContaining({ __typename: 'PageDeletedChange' })),
    ]);
    expect(answer.upstream).toBe(4);
  });
});

describe('documents', () => {
  const documents = `query Documents($id: ID!) {
    space(id: $id) {
      content {
        a: page(path: "getting-started/install") { ... on DocumentPage { document { text } } }
        b: page(path: "getting-started/install/linux") { ... on DocumentPage { document { text } } }
        c: page(path: "api") { ... on DocumentPage { document { json } } }
        again: page(path: "api") { ... on DocumentPage { document { text } } }
      }
    }
  }`;

  it('costs one request per page body, shared when asked twice, with the text computed from the JSON', async () => {
    const answer = await run(documents, { id: spaceId });
    expect(answer.errors).toBeUndefined();
    const content = answer.data!.space.content;
    expect(content.a.document.text).toBe('Install: download and run the installer\nDetails\nMore about install.');
    expect(content.b.document.text).toBe('On Linux: use the package manager\nDetails\nMore about on linux.');
    expect(content.again.document.text).toBe('API reference: every endpoint\nDetails\nMore about api reference.');
    expect(content.c.document.json).toMatchObject({
      object: 'document',
      nodes: [{ type: 'paragraph' }, { type: 'heading-1' }, { type: 'paragraph' }],
    });
    expect(Object.keys(content.c.document.json)).toEqual(['object', 'data', 'nodes']);
    expect(answer.upstream).toBe(2 + 3);
    expect(answer.requests.filter((request) => request.includes('/documents/'))).toHaveLength(3);
  });

  it('walks the leaves of links inside paragraphs, one line per paragraph', async () => {
    const answer = await run(`query Intro($id: ID!) { node(id: $id) { ... on DocumentPage { document { text } } } }`, {
      id: pageGid('DocumentPage', ids.introduction),
    });
    expect(answer.data!.node.document.text).toBe(
      'Introduction: start with the installation, then Linux.\nSee the old guide and the dashboard.\nRead the website or the install guide again.',
    );
    expect(answer.upstream).toBe(2);
  });

  it("gives a page's markdown (one request) and a document's (converted here, free)", async () => {
    const answer = await run(
      `query Markdown($id: ID!) { node(id: $id) { ... on DocumentPage { markdown document { markdown } } } }`,
      { id: pageGid('DocumentPage', ids.install) },
    );
    expect(answer.errors).toBeUndefined();
    // The page's markdown: front matter, title, body; the document's: the body alone.
    expect(answer.data!.node.markdown).toMatch(
      /^---\ndescription: Set it up in five minutes\n---\n\n# Install\n\nInstall: download and run the installer\n/,
    );
    expect(answer.data!.node.document.markdown).toBe(
      'Install: download and run the installer\n\n## Details\n\nMore about install.\n',
    );
    expect(answer.requests).toEqual([
      '/spaces/S/revisions/R',
      expect.stringMatching(/^\/spaces\/S\/revisions\/R\/page\/pg-install\?format=markdown$/),
      expect.stringMatching(/\/documents\//),
    ]);
  });
});

describe('reusable contents', () => {
  it('lists them with the revision, finds one by id or global ID, and reads its document', async () => {
    const space = g.platform.spaceId(S.gitSynced);
    const { content } = sampleContent(g.platform.db, space);
    const documentId = putDocument(
      g.platform.db,
      space,
      textDocument([
        [0, 'Contact support at any time.'],
        [0, 'We answer within a day.'],
      ]),
    );
    const reusable = commitContent(g.platform.db, space, {
      ...content,
      reusableContents: [{ id: 'rc-support', title: 'Support', documentId }],
    });
    const gid = encodeGlobalID('ReusableContent', key(space, reusable, 'rc-support'));
    const answer = await run(
      `query Reusable($id: ID!, $gid: ID!) {
        space(id: $id) { content { reusableContents { id title } reusableContent(id: "rc-support") { document { text } } missing: reusableContent(id: "nope") { title } } }
        node(id: $gid) { ... on ReusableContent { platformId revision { platformId } } }
      }`,
      { id: space, gid },
    );
    expect(answer.data).toEqual({
      space: {
        content: {
          reusableContents: [{ id: gid, title: 'Support' }],
          reusableContent: { document: { text: 'Contact support at any time.\nWe answer within a day.' } },
          missing: null,
        },
      },
      node: { platformId: 'rc-support', revision: { platformId: reusable } },
    });
    expect(answer.errors).toEqual([
      {
        message: 'Reusable content not found: "nope"',
        path: ['space', 'content', 'missing'],
        extensions: { code: 'NOT_FOUND' },
      },
    ]);
    // The space, its revision (shared by the node), the document.
    // The space, the revision (its reusable contents are listed), the document, and the refetch by
    // global ID, which runs before the revision is read and so reads the reusable content alone.
    expect(answer.upstream).toBe(4);
  });

  it("charges a document's conversions once however many fields ask, and keeps them for the next request", async () => {
    const space = g.platform.spaceId(S.guestComment);
    const { content } = sampleContent(g.platform.db, space);
    const documentId = putDocument(g.platform.db, space, textDocument([[0, 'Converted once, kept after.']]));
    commitContent(g.platform.db, space, {
      ...content,
      reusableContents: [{ id: 'rc-kept', title: 'Kept', documentId }],
    });
    const query = `query Kept($id: ID!) { space(id: $id) { content { reusableContent(id: "rc-kept") {
      a: document { markdown text } b: document { markdown } c: document { text }
    } } } }`;
    const first = await g.gql(query, { id: space });
    expect(first.data.space.content.reusableContent).toEqual({
      a: { markdown: 'Converted once, kept after.\n', text: 'Converted once, kept after.' },
      b: { markdown: 'Converted once, kept after.\n' },
      c: { text: 'Converted once, kept after.' },
    });
    // Two conversions (markdown, text) of a document of a few hundred bytes: one point.
    expect(first.extensions?.cost).toMatchObject({ gatewayPoints: 1 });
    // Read under its revision's id, the document never changes: read again, not converted again.
    const second = await g.gql(query, { id: space });
    expect(second.data).toEqual(first.data);
    expect(second.upstream).toBe(first.upstream);
    expect(second.extensions?.cost).not.toHaveProperty('gatewayPoints');
  });
});

describe('node(id:)', () => {
  it('refetches pages and their revision with one read of it, and a file alone, from their global IDs', async () => {
    const answer = await run(
      `query Nodes($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Page { title } ... on File { name } ... on Revision { platformId } } }`,
      { ids: [pageGid('DocumentPage', ids.linux), pageGid('GroupPage', ids.group), fileGid(ids.image), revisionGid()] },
    );
    expect(answer).toEqual({
      data: {
        nodes: [
          { __typename: 'DocumentPage', id: pageGid('DocumentPage', ids.linux), title: 'On Linux' },
          { __typename: 'GroupPage', id: pageGid('GroupPage', ids.group), title: 'Getting started' },
          { __typename: 'File', id: fileGid(ids.image), name: 'architecture diagram.png' },
          { __typename: 'Revision', id: revisionGid(), platformId: revision },
        ],
      },
      errors: undefined,
      upstream: 2,
      requests: ['/spaces/S/revisions/R', '/spaces/S/revisions/R/files/file-diagram'],
    });
  });

  it('refuses a page ID of the wrong kind with NOT_FOUND', async () => {
    const answer = await run(`query WrongKind($id: ID!) { node(id: $id) { id } }`, {
      id: pageGid('GroupPage', ids.linux),
    });
    expect(answer.errors).toEqual([
      { message: 'Page not found: "pg-linux"', path: ['node'], extensions: { code: 'NOT_FOUND' } },
    ]);
  });
});

describe('files', () => {
  it('lists files with download URLs that serve the bytes, pages them, and finds one by id', async () => {
    const answer = await run(
      `query Files($id: ID!, $file: ID!) {
        space(id: $id) {
          content {
            files(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { platformId name contentType size dimensions { width height } downloadURL } }
            file(id: $file) { name size dimensions { width } }
          }
        }
      }`,
      { id: spaceId, file: fileGid(ids.text) },
    );
    expect(answer.errors).toBeUndefined();
    const { files, file } = answer.data!.space.content;
    expect(files).toMatchObject({
      totalCount: 2,
      pageInfo: { hasNextPage: true },
      nodes: [
        {
          platformId: ids.image,
          name: 'architecture diagram.png',
          contentType: 'image/png',
          size: 81,
          dimensions: { width: 40, height: 30 },
        },
      ],
    });
    expect(file).toEqual({ name: 'notes.txt', size: 14, dimensions: null });
    expect(answer.upstream).toBe(2);
    const download = await fetch(files.nodes[0].downloadURL);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect((await download.arrayBuffer()).byteLength).toBe(81);

    const next = await run(
      `query NextFiles($id: ID!, $after: String) { node(id: $id) { ... on Revision { files(after: $after) { pageInfo { hasNextPage } nodes { name } } } } }`,
      {
        id: revisionGid(),
        after: files.pageInfo.endCursor,
      },
    );
    expect(next.data).toEqual({
      node: { files: { pageInfo: { hasNextPage: false }, nodes: [{ name: 'notes.txt' }] } },
    });
    expect(next.upstream).toBe(1);
  });
});

describe('links', () => {
  it('reports the links of a space with stats, targets resolved to pages, files and URLs at no extra cost', async () => {
    const answer = await run(
      `query Links($id: ID!) {
        space(id: $id) {
          links {
            totalCount
            stats { total broken }
            nodes {
              status relation
              target {
                __typename
                ... on Page { title parent { title } }
                ... on File { name }
                ... on UrlLinkTarget { url }
              }
              pages { title ... on DocumentPage { path } }
            }
          }
        }
      }`,
      { id: spaceId },
    );
    expect(answer.errors).toBeUndefined();
    const introduction = [{ title: 'Introduction', path: 'getting-started/introduction' }];
    const app = g.platform.url.replace(/\/v1$/, '/app');
    expect(answer.data!.space.links).toEqual({
      totalCount: 6,
      stats: { total: 6, broken: 1 },
      nodes: [
        {
          status: 'OK',
          relation: 'REFERENCE',
          target: { __typename: 'DocumentPage', title: 'Install', parent: { title: 'Getting started' } },
          pages: introduction,
        },
        {
          status: 'OK',
          relation: 'REFERENCE',
          target: { __typename: 'DocumentPage', title: 'On Linux', parent: { title: 'Install' } },
          pages: introduction,
        },
        { status: 'BROKEN', relation: 'REFERENCE', target: null, pages: introduction },
        {
          status: 'IN_APP',
          relation: 'REFERENCE',
          target: { __typename: 'UrlLinkTarget', url: `${app}/s/elsewhere` },
          pages: introduction,
        },
        {
          status: 'OK',
          relation: 'REFERENCE',
          target: { __typename: 'UrlLinkTarget', url: 'https://example.test/' },
          pages: introduction,
        },
        { status: 'OK', relation: 'REFERENCE', target: { __typename: 'File', name: 'notes.txt' }, pages: introduction },
      ],
    });
    // The report carries the revision its pages are in: their tree is not read.
    expect(answer.requests).toEqual(['/spaces/S', '/spaces/S/links?limit=50']);

    // With the tree read by the same query, the targets are its pages, read once.
    const withTree = await run(
      `query LinksAndTree($id: ID!) {
        space(id: $id) { content { pages { id } } links(first: 2) { nodes { target { ... on Page { id title } } pages { id } } } }
      }`,
      { id: spaceId },
    );
    expect(withTree.data!.space.links.nodes).toEqual([
      {
        target: { id: pageGid('DocumentPage', ids.install), title: 'Install' },
        pages: [{ id: pageGid('DocumentPage', ids.introduction) }],
      },
      {
        target: { id: pageGid('DocumentPage', ids.linux), title: 'On Linux' },
        pages: [{ id: pageGid('DocumentPage', ids.introduction) }],
      },
    ]);
    expect(withTree.requests.sort()).toEqual(['/spaces/S', '/spaces/S/content/pages', '/spaces/S/links?limit=2']);
  });

  it('filters by status, and reports the links of one page', async () => {
    const answer = await run(
      `query PageLinks($id: ID!) {
        node(id: $id) {
          ... on DocumentPage {
            broken: links(status: BROKEN) { totalCount stats { total broken } }
            links(first: 2) { totalCount pageInfo { hasNextPage } nodes { target { ... on Page { id } } } }
          }
        }
      }`,
      { id: pageGid('DocumentPage', ids.introduction) },
    );
    expect(answer).toMatchObject({
      data: {
        node: {
          broken: { totalCount: 1, stats: { total: 6, broken: 1 } },
          links: {
            totalCount: 6,
            pageInfo: { hasNextPage: true },
            nodes: [
              { target: { id: pageGid('DocumentPage', ids.install) } },
              { target: { id: pageGid('DocumentPage', ids.linux) } },
            ],
          },
        },
      },
      upstream: 3,
    });
  });

  it('finds the backlinks of a page and of a file', async () => {
    const answer = await run(
      `query Backlinks($install: ID!, $file: ID!, $api: ID!) {
        install: node(id: $install) { ... on DocumentPage { backlinks { totalCount nodes { page { title } space { platformId } revision { platformId } } } } }
        api: node(id: $api) { ... on DocumentPage { backlinks { totalCount } } }
        file: node(id: $file) { ... on File { backlinks { nodes { page { ... on DocumentPage { path } } } } } }
      }`,
      { install: pageGid('DocumentPage', ids.install), api: pageGid('DocumentPage', ids.api), file: fileGid(ids.text) },
    );
    expect(answer).toEqual({
      data: {
        install: {
          backlinks: {
            totalCount: 1,
            nodes: [
              { page: { title: 'Introduction' }, space: { platformId: spaceId }, revision: { platformId: revision } },
            ],
          },
        },
        api: { backlinks: { totalCount: 0 } },
        file: { backlinks: { nodes: [{ page: { path: 'getting-started/introduction' } }] } },
      },
      errors: undefined,
      // The pages' revision once; the file, refetched by its global ID, alone.
      upstream: 5,
      requests: [
        '/spaces/S/revisions/R',
        '/spaces/S/revisions/R/files/file-notes',
        '/spaces/S/content/page/pg-install/backlinks?limit=50',
        '/spaces/S/content/page/pg-api/backlinks?limit=1',
        '/spaces/S/content/files/file-notes/backlinks?limit=50',
      ],
    });
  });

  it('gives the meta links of a page, one request per page', async () => {
    const answer = await run(
      `query Meta($id: ID!) { node(id: $id) { ... on DocumentPage { metaLinks { canonical { url } alternates { url } } } } }`,
      {
        id: pageGid('DocumentPage', ids.api),
      },
    );
    expect(answer).toMatchObject({ data: { node: { metaLinks: { canonical: null, alternates: [] } } }, upstream: 2 });
    expect(answer.requests).toEqual(['/spaces/S/revisions/R', `/spaces/S/revisions/R/page/${ids.api}/meta-links`]);
  });
});

describe('search and PDF', () => {
  it('searches a space and an organization, with results linked to pages and spaces', async () => {
    const answer = await run(
      `query Search($id: ID!) {
        space(id: $id) {
          search(query: "installer") { totalCount nodes { title path rank ancestors sections { body } page { __typename platformId } } }
        }
        organization(id: "northwind") { search(query: "installer", first: 5) { nodes { title space { platformId } pages { title } } } }
      }`,
      { id: spaceId },
    );
    expect(answer.errors).toBeUndefined();
    const [hit] = answer.data!.space.search.nodes;
    expect(answer.data!.space.search.totalCount).toBe(answer.data!.space.search.nodes.length);
    expect(hit).toMatchObject({
      title: 'Install',
      path: 'getting-started/install',
      rank: 1,
      ancestors: ['Getting started'],
      page: { __typename: 'DocumentPage', platformId: ids.install },
    });
    expect(hit.sections[0].body).toContain('<mark>installer</mark>');
    const inSpace = answer.data!.organization.search.nodes.find((node: any) => node.space.platformId === spaceId);
    expect(inSpace).toMatchObject({
      title: S.userGrant,
      pages: expect.arrayContaining([{ title: 'Install' }]),
    });
    // The pages of the results resolve from one read of the current revision.
    expect(answer.requests).toEqual(
      expect.arrayContaining([
        '/spaces/S',
        '/orgs/northwind',
        '/orgs/northwind/search?limit=5&query=installer',
        '/spaces/S/search?limit=50&query=installer',
        '/spaces/S/revisions/R',
      ]),
    );
    expect(answer.requests.filter((request) => request.includes('/revisions/'))).toEqual(['/spaces/S/revisions/R']);
  });

  it("pages an organization's search by space: each space once, none lost, whatever the page size", async () => {
    const SEARCH = `query ($first: Int!, $after: String) {
      organization(id: "northwind") { search(query: "install", first: $first, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } nodes { space { platformId } pages { rank } }
      } }
    }`;
    const whole = (await g.gql(SEARCH, { first: 100 })).data.organization.search;
    const spaces = whole.nodes.map((node: any) => node.space.platformId);
    expect(whole.totalCount).toBe(spaces.length);
    expect(new Set(spaces).size).toBe(spaces.length);
    // Every matching page is in one space's list, each rank once.
    const ranks = whole.nodes
      .flatMap((node: any) => node.pages.map((page: any) => page.rank))
      .sort((a: number, b: number) => a - b);
    expect(new Set(ranks).size).toBe(ranks.length);
    for (const first of [1, 2, 5]) {
      const seen: string[] = [];
      let after: string | null = null;
      for (let page = 0; page < 50; page += 1) {
        const search: any = (await g.gql(SEARCH, { first, after })).data.organization.search;
        expect(search.totalCount).toBe(spaces.length);
        seen.push(...search.nodes.map((node: any) => node.space.platformId));
        if (!search.pageInfo.hasNextPage) break;
        after = search.pageInfo.endCursor;
      }
      expect({ first, seen }).toEqual({ first, seen: spaces });
    }
  });

  it('refuses an empty query before asking the platform', async () => {
    const answer = await run(`query EmptySearch($id: ID!) { space(id: $id) { search(query: "  ") { totalCount } } }`, {
      id: spaceId,
    });
    expect(answer.errors).toEqual([
      {
        message: '`query` must not be empty',
        path: ['space', 'search'],
        extensions: { code: 'BAD_USER_INPUT', field: ['query'] },
      },
    ]);
    expect(answer.upstream).toBe(1);
  });

  it('gives a temporary URL of a PDF of the space or of one page', async () => {
    const answer = await run(
      `query Pdf($id: ID!, $page: ID!) { space(id: $id) { all: pdf { url } one: pdf(pageId: $page, only: true) { url } } }`,
      {
        id: spaceId,
        page: pageGid('DocumentPage', ids.install),
      },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.space.all.url).toMatch(/^http/);
    expect(new URL(answer.data!.space.one.url).searchParams.get('page')).toBe(ids.install);
    expect(answer.upstream).toBe(3);
  });
});

describe('narrow reads', () => {
  it('reads a page alone (by path or id) when nothing else of the revision is asked, its parent from the tree', async () => {
    const alone = await run(
      `query ($id: ID!) { space(id: $id) { content { page(path: "getting-started/install") { title children { title } } } } }`,
      { id: spaceId },
    );
    expect(alone.data!.space.content.page).toEqual({ title: 'Install', children: [{ title: 'On Linux' }] });
    expect(alone.requests).toEqual(['/spaces/S', '/spaces/S/content/path/getting-started/install']);

    const withParent = await run(
      `query ($id: ID!) { space(id: $id) { content { page(id: "pg-linux") { title parent { title } } } } }`,
      { id: spaceId },
    );
    expect(withParent.data!.space.content.page).toEqual({ title: 'On Linux', parent: { title: 'Install' } });
    expect(withParent.requests).toEqual(['/spaces/S', '/spaces/S/content/pages']);

    const landing = await run(`query ($id: ID!) { space(id: $id) { content { page(path: "") { title } } } }`, {
      id: spaceId,
    });
    expect(landing.data!.space.content.page).toEqual({ title: 'Introduction' });
    expect(landing.requests).toEqual(['/spaces/S', '/spaces/S/content/path']);

    // The landing page of a revision read by its id: its own operation (the empty page path).
    const inRevision = await run(
      `query ($id: ID!, $revision: ID!) { space(id: $id) { revision(id: $revision) { page(path: "") { title } } } }`,
      { id: spaceId, revision },
    );
    expect(inRevision.data!.space.revision.page).toEqual({ title: 'Introduction' });
    expect(inRevision.requests).toEqual(['/spaces/S', '/spaces/S/revisions/R/path']);
  });

  it('reads the files alone, or one file, and the whole revision once when more is asked', async () => {
    const files = await run(
      `query ($id: ID!) { space(id: $id) { content { files(first: 1) { totalCount nodes { name } } } } }`,
      { id: spaceId },
    );
    expect(files.data!.space.content.files).toEqual({ totalCount: 2, nodes: [{ name: 'architecture diagram.png' }] });
    expect(files.requests).toEqual(['/spaces/S', '/spaces/S/content/files?limit=1']);

    const file = await run(
      `query ($id: ID!) { space(id: $id) { content { file(id: "${ids.text}") { name size } } } }`,
      { id: spaceId },
    );
    expect(file.data!.space.content.file).toEqual({ name: 'notes.txt', size: 14 });
    expect(file.requests).toEqual(['/spaces/S', `/spaces/S/content/files/${ids.text}`]);

    const both = await run(
      `query ($id: ID!) { space(id: $id) { content { createdAt pages { title } files { totalCount } file(id: "${ids.text}") { name } } } }`,
      { id: spaceId },
    );
    expect(both.errors).toBeUndefined();
    expect(both.requests).toEqual(['/spaces/S', '/spaces/S/content']);
  });

  it('hands out whole revisions from pages and files read narrowly, never the narrow read itself', async () => {
    const answer = await run(
      `query ($id: ID!) { space(id: $id) { content { pages { revision { createdAt type } } page(id: "${ids.linux}") { revision { platformId } } } } }`,
      { id: spaceId },
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data!.space.content.pages[0].revision.type).toBe('EDITS');
    expect(typeof answer.data!.space.content.pages[0].revision.createdAt).toBe('string');
    expect(answer.requests).toEqual(['/spaces/S', '/spaces/S/content/pages', '/spaces/S/revisions/R']);
    const file = await run(
      `query ($id: ID!) { space(id: $id) { content { file(id: "${ids.text}") { revision { createdAt } } } } }`,
      { id: spaceId },
    );
    expect(file.errors).toBeUndefined();
    expect(typeof file.data!.space.content.file.revision.createdAt).toBe('string');
  });

  it('answers null with NOT_FOUND for a revision by id that does not exist, asked nothing narrow', async () => {
    const answer = await run(
      `query ($id: ID!) { space(id: $id) { revision(id: "nope") { __typename space { platformId } } } }`,
      { id: spaceId },
    );
    expect(answer.data!.space.revision).toBeNull();
    expect(answer.errors!.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });

  it('fails the fields of a revision asked by id that does not exist, when it was read narrowly', async () => {
    const missing = await run(
      `query ($id: ID!) { space(id: $id) { revision(id: "nope") { pages { title } } checked: revision(id: "nope") { platformId } } }`,
      { id: spaceId },
    );
    expect(missing.data!.space.checked).toBeNull();
    expect(missing.errors!.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
  });
});

describe('ids of pages, files and reusable contents', () => {
  it('refuses, as bad input, the global ID of something of another space', async () => {
    const other = g.platform.spaceId(S.teamGrant);
    const answer = await run(
      `query ($id: ID!, $page: ID!) { space(id: $id) { content { page(id: $page) { title } } } }`,
      {
        id: other,
        page: pageGid('DocumentPage', ids.install),
      },
    );
    expect(answer.data!.space.content.page).toBeNull();
    expect(answer.errors!.map((error) => error.extensions?.code)).toEqual(['BAD_USER_INPUT']);
    expect(answer.upstream).toBe(1);
  });
});

describe('changes of reusable contents', () => {
  it('gives a deleted reusable content as it was, from the revision before', async () => {
    const space = g.platform.spaceId(S.locked);
    const { content } = sampleContent(g.platform.db, space);
    const documentId = putDocument(g.platform.db, space, textDocument([[0, 'Old snippet text.']]));
    commitContent(g.platform.db, space, {
      ...content,
      reusableContents: [{ id: 'rc-old', title: 'Old snippet', documentId }],
    });
    commitContent(g.platform.db, space, content);
    const answer = await g.gql(
      `query ($id: ID!) { space(id: $id) { content { changes { changes { __typename ... on ReusableContentDeletedChange { reusableContent { title document { text } } } } } } } }`,
      { id: space },
    );
    expect(answer.errors).toBeUndefined();
    const deleted = answer.data.space.content.changes.changes.find(
      (change: { __typename: string }) => change.__typename === 'ReusableContentDeletedChange',
    );
    expect(deleted.reusableContent).toEqual({ title: 'Old snippet', document: { text: 'Old snippet text.' } });
  });
});

describe('evaluated documents through the graph', () => {
  it('resolves conditional blocks and expressions when asked, in one request', async () => {
    const { markdownToDocument } = await import('../../src/document/markdown.js');
    const { putDocument } = await import('../../src/platform/content/revisions.js');
    const { commitContent } = await import('../fixtures/content.js');
    const created = await g.gql(
      `mutation { createSpace(input: { organizationId: "northwind", title: "Evaluated in the graph" }) { space { platformId } } }`,
    );
    const spaceId = created.data.createSpace.space.platformId;
    const documentId = putDocument(
      g.platform.db,
      spaceId,
      markdownToDocument(
        'Hello <code class="expression">space.vars.product</code>.\n\n{% if space.vars.tier == "pro" %}\nPro.\n{% endif %}\n',
      ).document,
    );
    commitContent(g.platform.db, spaceId, {
      pages: [{ id: 'pg-graph-eval', type: 'document', title: 'Home', slug: 'home', documentId, pages: [] }],
      files: [],
      reusableContents: [],
      variables: { product: 'Acme', tier: 'pro' },
    });
    const result = await g.gql(
      `query ($id: ID!) { space(id: $id) { content { page(id: "pg-graph-eval") { ... on DocumentPage { raw: document { text } evaluated: document(evaluated: ALL) { text } } } } } }`,
      { id: spaceId },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.space.content.page).toEqual({
      raw: { text: 'Hello .\nPro.' },
      evaluated: { text: 'Hello Acme.\nPro.' },
    });
  });
});

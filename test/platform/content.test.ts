import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catchUpSearchIndex } from '../../src/platform/content/current.js';
import { parseDocument } from '../../src/document/model.js';
import { putDocument, storedBytes } from '../../src/platform/content/revisions.js';
import { sign } from '../../src/platform/content/signing.js';
import { commitContent, pngImage, sampleContent, textDocument } from '../fixtures/content.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

let p: TestPlatform;
/** Admin `admin`, `finn` (read, `edit` on Runbooks), `gus` (a guest with no grant); `hana` is in another one. */
let org: TestOrg;
let elsewhere: TestOrg;
/** Private spaces: Runbooks (the sample content's), Architecture decisions; and a `share-link` one. */
const S = { userGrant: 'Runbooks', teamGrant: 'Architecture decisions', shareLink: 'Erste Schritte' };
let spaceId: string;
let firstRevision: string;
/** The pages of the space's first revision, as served before the sample content was committed on it. */
let firstPages: { tree: unknown; list: unknown };
let revision: string;
let ids: ReturnType<typeof sampleContent>['ids'];

const spaceRow = (title: string) =>
  p.db.prepare('SELECT id, revision, share_key FROM spaces WHERE title = ? ORDER BY created_at LIMIT 1').get(title) as {
    id: string;
    revision: string;
    share_key: string;
  };

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  org = addOrg(p, { id: 'handbook', members: { admin: 'admin', finn: 'read', gus: null } });
  elsewhere = addOrg(p, { id: 'elsewhere', members: { hana: 'admin' } });
  const runbooks = await org.space(S.userGrant);
  await org.grant({ space: runbooks }, 'edit', { users: ['finn'] });
  await org.space(S.teamGrant);
  await org.space(S.shareLink, { visibility: 'share-link' });
  // A first revision with a page of its own, which the sample content replaces.
  const oldPage = {
    id: 'pg-old-runbook',
    type: 'document' as const,
    title: 'Old runbook',
    slug: 'old-runbook',
    documentId: putDocument(p.db, runbooks, textDocument([[0, 'Restart the service by hand.']])),
    pages: [],
  };
  commitContent(p.db, runbooks, { pages: [oldPage], files: [], reusableContents: [], variables: {} });
  const space = spaceRow(S.userGrant);
  spaceId = space.id;
  firstRevision = space.revision;
  firstPages = {
    tree: (await get(`/spaces/${spaceId}/revisions/${firstRevision}`)).body.pages,
    list: (await get(`/spaces/${spaceId}/revisions/${firstRevision}/pages`)).body,
  };
  const sample = sampleContent(p.db, spaceId, '', p.url.replace(/\/v1$/, '/app'));
  ids = sample.ids;
  revision = commitContent(p.db, spaceId, sample.content);
});

afterAll(async () => {
  await p?.destroy();
});

const get = (path: string, options: Parameters<TestPlatform['api']>[2] = {}) => p.api('GET', path, options);

describe('revisions', () => {
  it('gives every space a first revision, empty, under the id the space names', async () => {
    const created = await p.api('POST', `/orgs/${org.id}/spaces`, { body: { title: 'Fresh space' } });
    const answer = await get(`/spaces/${(created.body as { id: string }).id}/content`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: 'revision',
      id: (created.body as { revision: string }).revision,
      type: 'edits',
      parents: [],
      pages: [],
      files: [],
      reusableContents: [],
      variables: {},
    });
  });

  it('serves the current revision with its page tree, paths and variables', async () => {
    const answer = await get(`/spaces/${spaceId}/content`);
    expect(answer.status).toBe(200);
    const body = answer.body as any;
    expect(body.id).toBe(revision);
    expect(body.parents).toEqual([firstRevision]);
    expect(body.variables).toEqual({ product: 'Acme Docs', version: 3 });
    expect(body.urls.app).toContain(`/s/${spaceId}/~/revisions/${revision}`);
    expect(body.urls.published).toBeUndefined();
    const [group, api, status] = body.pages;
    expect(group).toMatchObject({
      id: ids.group,
      type: 'group',
      kind: 'group',
      slug: 'getting-started',
      path: 'getting-started',
    });
    expect(group.pages.map((page: any) => [page.title, page.path])).toEqual([
      ['Introduction', 'getting-started/introduction'],
      ['Install', 'getting-started/install'],
    ]);
    expect(group.pages[1].pages[0]).toMatchObject({
      id: ids.linux,
      path: 'getting-started/install/linux',
      emoji: '🐧',
    });
    expect(api).toMatchObject({ type: 'document', kind: 'sheet', path: 'api', hidden: true, tags: [] });
    expect(api.layout.width).toBe('default');
    expect(status).toMatchObject({ type: 'link', target: { kind: 'url', url: 'https://status.example.test' } });
    expect(status.path).toBeUndefined();
  });

  it('serves an older revision by id, unchanged by what came after', async () => {
    const answer = await get(`/spaces/${spaceId}/revisions/${firstRevision}`);
    expect(answer.status).toBe(200);
    expect((answer.body as any).pages.map((page: { id: string }) => page.id)).not.toContain(ids.group);
    expect((answer.body as any).pages).toEqual(firstPages.tree);
    expect((await get(`/spaces/${spaceId}/revisions/${firstRevision}/pages`)).body).toEqual(firstPages.list);
  });

  it('answers 404 for a revision of another space or none', async () => {
    const other = spaceRow(S.teamGrant);
    expect((await get(`/spaces/${spaceId}/revisions/${other.revision}`)).status).toBe(404);
    expect((await get(`/spaces/${spaceId}/revisions/nope`)).status).toBe(404);
  });

  it('lists the page tree alone', async () => {
    const answer = await get(`/spaces/${spaceId}/content/pages`);
    expect((answer.body as any).pages.map((page: any) => page.id)).toEqual([ids.group, ids.api, ids.status]);
  });
});

describe('pages', () => {
  it('finds a page by id, with its document when asked', async () => {
    const plain = await get(`/spaces/${spaceId}/content/page/${ids.install}`);
    expect(plain.status).toBe(200);
    expect(plain.body).toMatchObject({
      id: ids.install,
      description: 'Set it up in five minutes',
      path: 'getting-started/install',
    });
    expect((plain.body as any).document).toBeUndefined();
    const withDocument = await get(`/spaces/${spaceId}/revisions/${revision}/page/${ids.install}`, {
      query: { format: 'document' },
    });
    const document = (withDocument.body as any).document;
    expect(document.object).toBe('document');
    expect(document.nodes[0].nodes[0].leaves[0].text).toBe('Install: download and run the installer');
  });

  it('finds pages by path: nested, a group, and the landing page at ""', async () => {
    expect((await get(`/spaces/${spaceId}/content/path/getting-started/install/linux`)).body).toMatchObject({
      id: ids.linux,
    });
    expect((await get(`/spaces/${spaceId}/content/path/getting-started`)).body).toMatchObject({
      id: ids.group,
      type: 'group',
    });
    // The first document page, inside the group, is the landing page; its own path still works.
    expect((await get(`/spaces/${spaceId}/content/path/`)).body).toMatchObject({ id: ids.introduction });
    expect(
      (await get(`/spaces/${spaceId}/revisions/${revision}/path/getting-started/introduction`)).body,
    ).toMatchObject({
      id: ids.introduction,
    });
    expect((await get(`/spaces/${spaceId}/content/path/nowhere`)).status).toBe(404);
    // A lone percent sign (decoded once by the router) finds nothing, and is no server error.
    expect((await get(`/spaces/${spaceId}/content/path/100%25`)).status).toBe(404);
    expect((await get(`/spaces/${spaceId}/revisions/${firstRevision}/path/api`)).status).toBe(404);
  });

  it('serves page documents, documents by id and meta links', async () => {
    const page = (await get(`/spaces/${spaceId}/content/page/${ids.api}`)).body as { documentId: string };
    const byPage = await get(`/spaces/${spaceId}/revisions/${revision}/page/${ids.api}/document`);
    const byId = await get(`/spaces/${spaceId}/documents/${page.documentId}`);
    expect(byPage.status).toBe(200);
    expect(byId.body).toEqual(byPage.body);
    // Stored documents are completed (a heading gets its anchor in `meta.id`).
    expect(byId.body).toEqual(
      parseDocument(
        textDocument([
          [0, 'API reference: every endpoint'],
          [1, 'Details'],
          [0, 'More about api reference.'],
        ]),
      ),
    );
    expect((byId.body as any).nodes[1].meta).toEqual({ id: 'details' });
    expect((await get(`/spaces/${spaceId}/content/page/${ids.api}/meta-links`)).body).toEqual({ alternates: [] });
    expect((await get(`/spaces/${spaceId}/revisions/${revision}/page/${ids.status}/document`)).status).toBe(404);
  });

  it('keeps documents to the spaces that hold them', async () => {
    const page = (await get(`/spaces/${spaceId}/content/page/${ids.api}`)).body as { documentId: string };
    const other = spaceRow(S.teamGrant).id;
    expect((await get(`/spaces/${other}/documents/${page.documentId}`)).status).toBe(404);
  });

  it('refuses bad query values with the field named', async () => {
    const answer = await get(`/spaces/${spaceId}/content/page/${ids.api}`, { query: { format: 'pdf' } });
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body)).toContain('format');
  });
});

describe('access', () => {
  it('lets readers of the space read its content, and nobody else', async () => {
    expect((await get(`/spaces/${spaceId}/content`, { token: org.token('finn') })).status).toBe(200);
    expect((await get(`/spaces/${spaceId}/content/page/${ids.api}`, { token: elsewhere.token('hana') })).status).toBe(
      404,
    );
    expect((await get(`/spaces/${spaceId}/content`, { token: null })).status).toBe(401);
  });

  it('opens a share-link space with its share key', async () => {
    const shared = spaceRow(S.shareLink);
    expect((await get(`/spaces/${shared.id}/content`, { token: elsewhere.token('hana') })).status).toBe(404);
    const opened = await get(`/spaces/${shared.id}/content`, {
      token: elsewhere.token('hana'),
      query: { shareKey: shared.share_key },
    });
    expect(opened.status).toBe(200);
  });
});

describe('storage', () => {
  it('shares what did not change: a one-paragraph edit of a 200-page space stores a tiny part of it', async () => {
    const created = await p.api('POST', `/orgs/${org.id}/spaces`, { body: { title: 'Big space' } });
    const big = (created.body as { id: string }).id;
    const before = storedBytes(p.db);
    const chapters = Array.from({ length: 20 }, (_, chapter) => ({
      id: `ch${chapter}`,
      type: 'document' as const,
      title: `Chapter ${chapter}`,
      slug: `chapter-${chapter}`,
      pages: Array.from({ length: 9 }, (_, section) => ({
        id: `ch${chapter}s${section}`,
        type: 'document' as const,
        title: `Section ${chapter}.${section}`,
        slug: `section-${section}`,
        pages: [],
      })),
    }));
    const bodyOf = (id: string, edit = '') =>
      textDocument(
        Array.from({ length: 12 }, (_, index) => [
          index % 4 === 0 ? 2 : 0,
          `${id} paragraph ${index}${index === 5 ? edit : ''} `.repeat(6),
        ]),
      );
    const withDocuments = (edit: string) => ({
      pages: chapters.map((chapter) => ({
        ...chapter,
        documentId: putDocumentFor(big, bodyOf(chapter.id)),
        pages: chapter.pages.map((section) => ({
          ...section,
          documentId: putDocumentFor(big, bodyOf(section.id, section.id === 'ch7s3' ? edit : '')),
        })),
      })),
      files: [],
      reusableContents: [],
      variables: {},
    });
    commitContent(p.db, big, withDocuments(''));
    const spaceBytes = storedBytes(p.db) - before;
    commitContent(p.db, big, withDocuments(' (edited)'));
    const editBytes = storedBytes(p.db) - before - spaceBytes;
    console.log(`200-page space: ${spaceBytes} bytes stored; a one-paragraph edit: ${editBytes} bytes`);
    expect(chapters.length * 10).toBe(200);
    expect(editBytes).toBeGreaterThan(0);
    expect(editBytes).toBeLessThan(spaceBytes / 50);
  });

  it('gives a duplicated space the content of its source without copying it', async () => {
    const before = storedBytes(p.db);
    const copy = await p.api('POST', `/spaces/${spaceId}/duplicate`);
    expect(copy.status).toBe(201);
    const pages = await get(`/spaces/${(copy.body as { id: string }).id}/content/pages`);
    expect((pages.body as any).pages.map((page: any) => page.id)).toEqual([ids.group, ids.api, ids.status]);
    const page = (await get(`/spaces/${(copy.body as { id: string }).id}/content/page/${ids.api}`)).body as {
      documentId: string;
    };
    expect((await get(`/spaces/${(copy.body as { id: string }).id}/documents/${page.documentId}`)).status).toBe(200);
    expect(storedBytes(p.db)).toBe(before);
  });
});

function putDocumentFor(space: string, document: unknown): string {
  // Through the store, as the content writers (change requests, Git sync) will.
  return putDocument(p.db, space, document);
}

describe('files', () => {
  it('lists the files of a revision with their size and a download URL that serves the bytes without a token', async () => {
    const answer = await get(`/spaces/${spaceId}/content/files`);
    expect(answer.status).toBe(200);
    const body = answer.body as { count: number; items: Array<Record<string, any>> };
    expect(body.count).toBe(2);
    const [image, text] = body.items;
    expect(image).toMatchObject({
      id: ids.image,
      name: 'architecture diagram.png',
      contentType: 'image/png',
      size: pngImage(40, 30).length,
      dimensions: { width: 40, height: 30 },
    });
    expect(text!.dimensions).toBeUndefined();
    expect(text).toMatchObject({ id: ids.text, name: 'notes.txt', contentType: 'text/plain', size: 14 });
    const download = await fetch(text!.downloadURL);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/plain');
    expect(await download.text()).toBe('Release notes\n');
    const png = await fetch(image!.downloadURL);
    expect(Buffer.from(await png.arrayBuffer()).equals(pngImage(40, 30))).toBe(true);
  });

  it('refuses a download URL that was altered', async () => {
    const file = (await get(`/spaces/${spaceId}/content/files/${ids.text}`)).body as { downloadURL: string };
    const url = new URL(file.downloadURL);
    const otherType = new URL(url);
    otherType.searchParams.set('type', 'text/html');
    expect((await fetch(otherType)).status).toBe(403);
    const otherSignature = new URL(url);
    otherSignature.searchParams.set('sig', 'x'.repeat(43));
    expect((await fetch(otherSignature)).status).toBe(403);
    const otherName = new URL(url.href.replace('notes.txt', 'secrets.txt'));
    expect((await fetch(otherName)).status).toBe(403);
  });

  it('finds a file of a revision by id, and pages through files', async () => {
    const byId = await get(`/spaces/${spaceId}/revisions/${revision}/files/${ids.image}`);
    expect(byId.body).toMatchObject({ id: ids.image });
    expect((await get(`/spaces/${spaceId}/revisions/${firstRevision}/files/${ids.image}`)).status).toBe(404);
    const first = await get(`/spaces/${spaceId}/revisions/${revision}/files`, { query: { limit: 1 } });
    const next = (first.body as { next: { page: string } }).next.page;
    const second = await get(`/spaces/${spaceId}/revisions/${revision}/files`, { query: { limit: 1, page: next } });
    expect((second.body as { items: Array<{ id: string }> }).items.map((file) => file.id)).toEqual([ids.text]);
  });
});

describe('semantic changes', () => {
  it('compares a revision with its first parent: pages, files, variables', async () => {
    const space = spaceRow(S.teamGrant).id;
    const base = sampleContent(p.db, space);
    const baseRevision = commitContent(p.db, space, base.content);
    const [group, api, status] = base.content.pages as [any, any, any];
    const install = group.pages[1];
    const edited = {
      ...base.content,
      pages: [
        // Introduction deleted; Install renamed and given a new body; Linux moved to the top level.
        {
          ...group,
          pages: [
            {
              ...install,
              title: 'Installation',
              pages: [],
              documentId: putDocument(p.db, space, textDocument([[0, 'New body']])),
            },
          ],
        },
        { ...install.pages[0] },
        api,
        status,
        { id: 'pg-new', type: 'document', title: 'What is new', slug: 'new', pages: [] },
      ],
      files: base.content.files.slice(0, 1),
      variables: { product: 'Acme Docs', version: 4, channel: 'beta' },
    };
    const next = commitContent(p.db, space, edited as any);
    const answer = await get(`/spaces/${space}/revisions/${next}/changes`, { query: { limit: 100 } });
    expect(answer.status).toBe(200);
    const { changes, more } = answer.body as { changes: any[]; more: number };
    expect(more).toBe(0);
    const summary = changes.map(
      (change) =>
        `${change.type} ${change.page?.id ?? change.file?.id ?? Object.keys(change.variables ?? {}).join(',')}`,
    );
    expect(summary).toEqual([
      `page_edited ${base.ids.install}`,
      `page_moved ${base.ids.linux}`,
      'page_created pg-new',
      `page_deleted ${base.ids.introduction}`,
      `file_deleted ${base.ids.text}`,
      'variables_edited version,channel',
    ]);
    const edit = changes[0];
    expect(Object.keys(edit.attributes).sort()).toEqual(['document', 'title']);
    expect(edit.attributes.title).toEqual({ before: 'Install', after: 'Installation' });
    expect(changes[1].parent).toEqual({
      before: { id: base.ids.install, type: 'document', title: 'Install', path: 'getting-started/install' },
    });
    expect(changes[5].variables).toEqual({ version: { before: 3, after: 4 }, channel: { after: 'beta' } });

    const limited = await get(`/spaces/${space}/revisions/${next}/changes`, { query: { limit: 2 } });
    expect((limited.body as any).changes).toHaveLength(2);
    expect((limited.body as any).more).toBe(4);
    // The first revision of the sample, against the empty one before it: everything was created.
    const first = await get(`/spaces/${space}/revisions/${baseRevision}/changes`, { query: { limit: 100 } });
    expect((first.body as any).changes.filter((change: any) => change.type === 'page_created')).toHaveLength(6);
  });
});

describe('links', () => {
  it('reports the links of a space by target, with their status and the pages holding them', async () => {
    const answer = await get(`/spaces/${spaceId}/links`);
    expect(answer.status).toBe(200);
    const body = answer.body as { count: number; stats: any; items: any[] };
    const summary = body.items.map((item) => [
      item.status,
      item.targetReference?.page?.id ?? item.targetReference?.file?.id ?? item.targetReference?.url ?? null,
      item.locationReferences.map((location: any) => location.page.id),
    ]);
    expect(summary).toEqual([
      ['ok', ids.install, [ids.introduction]],
      ['ok', ids.linux, [ids.introduction]],
      ['broken', null, [ids.introduction]],
      ['in-app', `${p.url.replace(/\/v1$/, '/app')}/s/elsewhere`, [ids.introduction]],
      ['ok', 'https://example.test/', [ids.introduction]],
      ['ok', ids.text, [ids.introduction]],
    ]);
    expect(body.stats).toEqual({ total: 6, broken: { total: 1 } });
    const location = body.items[0].locationReferences[0];
    expect(location).toMatchObject({
      kind: 'page',
      organization: { id: org.id },
      space: { id: spaceId },
      versionContext: { type: 'revision', revision: { id: revision } },
    });
    const broken = await get(`/spaces/${spaceId}/links`, { query: { status: 'broken' } });
    expect((broken.body as any).items).toHaveLength(1);
  });

  it('finds the links of one page, and the backlinks of a page and of a file', async () => {
    const ofPage = await get(`/spaces/${spaceId}/content/page/${ids.introduction}/links`);
    expect((ofPage.body as any).items).toHaveLength(6);
    expect((await get(`/spaces/${spaceId}/content/page/${ids.api}/links`)).body).toMatchObject({
      items: [],
      stats: { total: 0 },
    });
    const toInstall = await get(`/spaces/${spaceId}/content/page/${ids.install}/backlinks`);
    expect((toInstall.body as any).items.map((item: any) => item.page.id)).toEqual([ids.introduction]);
    const toLinux = await get(`/spaces/${spaceId}/content/page/${ids.linux}/backlinks`);
    expect((toLinux.body as any).count).toBe(1);
    expect((await get(`/spaces/${spaceId}/content/page/${ids.api}/backlinks`)).body).toMatchObject({
      count: 0,
      items: [],
    });
    const toFile = await get(`/spaces/${spaceId}/content/files/${ids.text}/backlinks`);
    expect((toFile.body as any).items.map((item: any) => item.page.id)).toEqual([ids.introduction]);
    expect((await get(`/spaces/${spaceId}/content/files/nope/backlinks`)).status).toBe(404);
  });
});

describe('search', () => {
  it('finds a word of a page in its space, ranked, with a highlighted excerpt and the section', async () => {
    const answer = await get(`/spaces/${spaceId}/search`, { query: { query: 'installer' } });
    expect(answer.status).toBe(200);
    const body = answer.body as { count: number; items: any[] };
    // "installation" in the introduction matches too (stemmed), below the page about installing.
    expect(body.items.map((item) => item.id)).toEqual([ids.install, ids.introduction]);
    const [hit] = body.items;
    expect(hit).toMatchObject({
      id: ids.install,
      title: 'Install',
      path: 'getting-started/install',
      rank: 1,
      ancestors: [{ title: 'Getting started' }],
    });
    expect(hit.score).toBeGreaterThan(0);
    expect(hit.sections[0].body).toContain('<mark>installer</mark>');
    expect(hit.urls.app).toContain(`/s/${spaceId}/getting-started/install`);
  });

  it('leaves noIndex pages out, follows the current revision, and searches an organization by space', async () => {
    const space = spaceRow(S.teamGrant).id;
    const { content } = sampleContent(p.db, space);
    const hidden = {
      id: 'pg-secret',
      type: 'document' as const,
      title: 'Internal notes',
      slug: 'internal',
      noIndex: true,
      documentId: putDocument(p.db, space, textDocument([[0, 'The codeword is xylophone.']])),
      pages: [],
    };
    const visible = {
      ...hidden,
      id: 'pg-open',
      slug: 'open',
      noIndex: false,
      title: 'Open notes',
      documentId: putDocument(p.db, space, textDocument([[0, 'Tuning the zeppelin engine.']])),
    };
    commitContent(p.db, space, { ...content, pages: [...content.pages, hidden, visible] });
    expect((await get(`/spaces/${space}/search`, { query: { query: 'xylophone' } })).body).toMatchObject({
      count: 0,
      items: [],
    });
    expect((await get(`/spaces/${space}/search`, { query: { query: 'zeppelin' } })).body).toMatchObject({ count: 1 });

    const found = await get(`/orgs/${org.id}/search`, { query: { query: 'zeppelin' } });
    expect(found.status).toBe(200);
    expect((found.body as any).items).toEqual([
      expect.objectContaining({
        type: 'space',
        id: space,
        title: S.teamGrant,
        pages: [expect.objectContaining({ id: 'pg-open', rank: 1 })],
      }),
    ]);
    // A member who cannot read the space finds nothing of it.
    expect(
      (await get(`/orgs/${org.id}/search`, { token: org.token('gus'), query: { query: 'zeppelin' } })).body,
    ).toMatchObject({ count: 0 });

    commitContent(p.db, space, content);
    expect((await get(`/spaces/${space}/search`, { query: { query: 'zeppelin' } })).body).toMatchObject({ count: 0 });
  });

  it('refuses an empty or overlong query, and survives hostile ones', async () => {
    expect((await get(`/spaces/${spaceId}/search`, { query: { query: '   ' } })).status).toBe(400);
    expect((await get(`/spaces/${spaceId}/search`, { query: { query: 'x'.repeat(513) } })).status).toBe(400);
    expect((await get(`/spaces/${spaceId}/search`)).status).toBe(400);
    for (const hostile of ['"', 'NEAR(', 'a OR', '-x', 'body:install', '*', '🐧']) {
      expect((await get(`/spaces/${spaceId}/search`, { query: { query: hostile } })).status, hostile).toBe(200);
    }
  });
});

describe('markdown', () => {
  it('serves a page as markdown, with references relative to its file or stable', async () => {
    const relative = await get(`/spaces/${spaceId}/content/page/${ids.introduction}`, {
      query: { format: 'markdown' },
    });
    expect(relative.status).toBe(200);
    const markdown = (relative.body as { markdown: string }).markdown;
    expect(markdown.startsWith('# Introduction\n')).toBe(true);
    expect(markdown).toContain('[the installation](install/README.md)');
    expect(markdown).toContain('[Linux](install/linux.md#packages)');
    expect(markdown).toContain('../.gitbook/assets/notes.txt');
    expect((relative.body as { document?: unknown }).document).toBeUndefined();
    const stable = await get(`/spaces/${spaceId}/content/page/${ids.introduction}`, {
      query: { format: 'markdown', 'format.markdown.refs': 'stable' },
    });
    expect((stable.body as { markdown: string }).markdown).toContain('[the installation](/pages/pg-install)');
    const install = await get(`/spaces/${spaceId}/content/path/getting-started/install`, {
      query: { format: 'markdown' },
    });
    const text = install.body as { markdown: string; pages: Array<{ markdown?: string }> };
    expect(text.markdown).toMatch(
      /^---\ndescription: Set it up in five minutes\n---\n\n# Install\n\nInstall: download and run the installer\n\n## Details\n/,
    );
    // The body is the asked page's alone.
    expect(text.pages[0]!.markdown).toBeUndefined();
  });
});

/** The text of a PDF, page by page (pdf.js, as a reader would extract it). */
async function pdfText(bytes: Uint8Array): Promise<string[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const loading = getDocument({
    data: bytes,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  });
  const pdf = await loading.promise;
  const pages: string[] = [];
  for (let number = 1; number <= pdf.numPages; number += 1) {
    const content = await (await pdf.getPage(number)).getTextContent();
    pages.push(
      content.items
        .map((item) => ('str' in item ? item.str : ''))
        .join(' ')
        .replace(/\s+/g, ' '),
    );
  }
  await loading.destroy();
  return pages;
}

describe('PDF', () => {
  it('gives a URL, valid an hour, that serves the whole space as a PDF whose text extracts', async () => {
    const answer = await get(`/spaces/${spaceId}/pdf`);
    expect(answer.status).toBe(200);
    const { url } = answer.body as { url: string };
    const expires = Number(new URL(url).searchParams.get('expires')) * 1000;
    expect(expires - Date.now()).toBeGreaterThan(59 * 60 * 1000);
    expect(expires - Date.now()).toBeLessThanOrEqual(60 * 60 * 1000);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    const bytes = new Uint8Array(await response.arrayBuffer());
    expect(Buffer.from(bytes.slice(0, 5)).toString()).toBe('%PDF-');
    const pages = await pdfText(bytes);
    // One PDF page per document page at least (Introduction, Install, On Linux, API reference).
    expect(pages.length).toBeGreaterThanOrEqual(4);
    const text = pages.join('\n');
    for (const words of [
      'Introduction',
      'Install: download and run the installer',
      'On Linux',
      'API reference: every endpoint',
      'Details',
    ]) {
      expect(text).toContain(words);
    }
  });

  it('exports one page alone, or a page with what is under it', async () => {
    const only = (await get(`/spaces/${spaceId}/pdf`, { query: { page: ids.install, only: true } })).body as {
      url: string;
    };
    const alone = (await pdfText(new Uint8Array(await (await fetch(only.url)).arrayBuffer()))).join('\n');
    expect(alone).toContain('Install: download and run the installer');
    expect(alone).not.toContain('On Linux: use the package manager');
    const tree = (await get(`/spaces/${spaceId}/pdf`, { query: { page: ids.install } })).body as { url: string };
    const withChildren = (await pdfText(new Uint8Array(await (await fetch(tree.url)).arrayBuffer()))).join('\n');
    expect(withChildren).toContain('On Linux: use the package manager');
    expect(withChildren).not.toContain('API reference: every endpoint');
    expect((await get(`/spaces/${spaceId}/pdf`, { query: { page: 'missing' } })).status).toBe(404);
  });

  it('refuses an altered or expired URL, and keeps serving the revision it was made for', async () => {
    const { url } = (await get(`/spaces/${spaceId}/pdf`)).body as { url: string };
    const altered = new URL(url);
    altered.searchParams.set('only', '1');
    expect((await fetch(altered)).status).toBe(403);
    const later = new URL(url);
    later.searchParams.set('expires', String(Number(later.searchParams.get('expires')) + 3600));
    expect((await fetch(later)).status).toBe(403);
    const past = String(Math.floor(Date.now() / 1000) - 1);
    const parts = ['pdf', spaceId, String(new URL(url).searchParams.get('revision')), '', '0', past];
    const expired = new URL(url);
    expired.searchParams.set('expires', past);
    expired.searchParams.set('sig', sign(p.db, parts));
    const answer = await fetch(expired);
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('expired');
  });
});

describe('reusable contents', () => {
  it('reads a reusable content and its document, and expands it in a page when asked', async () => {
    const space = spaceRow(S.teamGrant).id;
    const { content } = sampleContent(p.db, space);
    const snippet = putDocument(
      p.db,
      space,
      textDocument([[0, 'Write to support@acme.test, we answer within a day.']]),
    );
    const usesIt = putDocument(p.db, space, {
      object: 'document',
      data: {},
      nodes: [
        ...(textDocument([[0, 'Before the snippet.']]) as { nodes: unknown[] }).nodes,
        {
          object: 'block',
          type: 'reusable-content',
          key: 'rc',
          data: { ref: { kind: 'reusable-content', reusableContent: 'rc-support' } },
          isVoid: true,
        },
      ],
    });
    const page = {
      id: 'pg-help',
      type: 'document' as const,
      title: 'Help',
      slug: 'help',
      documentId: usesIt,
      pages: [],
    };
    const revisionId = commitContent(p.db, space, {
      ...content,
      pages: [...content.pages, page],
      reusableContents: [{ id: 'rc-support', title: 'Support contact', documentId: snippet }],
    });
    const reusable = await get(`/spaces/${space}/content/reusable-contents/rc-support`);
    expect(reusable.body).toEqual({ id: 'rc-support', title: 'Support contact', document: snippet });
    expect((await get(`/spaces/${space}/revisions/${revisionId}/reusable-contents/rc-support`)).body).toEqual(
      reusable.body,
    );
    const document = await get(`/spaces/${space}/revisions/${revisionId}/reusable-contents/rc-support/document`);
    expect(JSON.stringify(document.body)).toContain('we answer within a day');
    expect((await get(`/spaces/${space}/content/reusable-contents/nope`)).status).toBe(404);

    const plain = await get(`/spaces/${space}/revisions/${revisionId}/page/pg-help/document`);
    expect((plain.body as any).nodes.map((node: any) => node.type)).toEqual(['paragraph', 'reusable-content']);
    const expanded = await get(`/spaces/${space}/revisions/${revisionId}/page/pg-help/document`, {
      query: { dereferenced: 'reusable-contents' },
    });
    expect((expanded.body as any).nodes.map((node: any) => node.type)).toEqual(['paragraph', 'paragraph']);
    const markdown = await get(`/spaces/${space}/content/page/pg-help`, { query: { format: 'markdown' } });
    // help.md sits at the root, next to .gitbook/.
    expect((markdown.body as { markdown: string }).markdown).toContain(
      '{% include ".gitbook/includes/rc-support.md" %}',
    );
  });
});

describe('search index at start', () => {
  it('is rebuilt for a space whose index is missing or behind its current revision', async () => {
    expect((await get(`/spaces/${spaceId}/search`, { query: { query: 'installer' } })).body).toMatchObject({
      count: 2,
    });
    p.db.prepare('DELETE FROM search_rows WHERE space_id = ?').run(spaceId);
    p.db.prepare('DELETE FROM search_spaces WHERE space_id = ?').run(spaceId);
    expect((await get(`/spaces/${spaceId}/search`, { query: { query: 'installer' } })).body).toMatchObject({
      count: 0,
    });
    // This space, and the spaces created through the API in these tests, which were never indexed (empty).
    expect(catchUpSearchIndex(p.db)).toBeGreaterThanOrEqual(1);
    expect(catchUpSearchIndex(p.db)).toBe(0);
    expect((await get(`/spaces/${spaceId}/search`, { query: { query: 'installer' } })).body).toMatchObject({
      count: 2,
    });
  });
});

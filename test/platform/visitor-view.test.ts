import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, textDocument } from '../fixtures/content.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { addVisitorContent, MARKERS, VISITOR_CLAIMS, type VisitorContent } from '../fixtures/visitor-content.js';

let p: TestPlatform;
/** Its admin's space "API reference" holds the visitor content, in a visitor-auth site with adaptive content. */
let org: TestOrg;
let site: string;
/** The site's signing key for visitor tokens. */
let signingKey: string;
/** The site's published address, ending in `/`. */
let published: string;
let origin: string;
let space: string;
let seeded: VisitorContent;
let visitorToken: string;

/** The GET routes of the platform, from its route table: a route added later is walked too. */
function getRoutes(): string[] {
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of p.app.printRoutes({ commonPrefix: false, method: 'GET' }).split('\n')) {
    const match = /^((?:│ {3}| {4})*)[├└]── (.*?)(?: \(([^)]*)\))?$/u.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const parent = stack[depth - 1] ?? '';
    // The tree prints a wildcard under its parent's last segment (`/path` then `*`).
    const path = parent + (match[2] === '*' && !parent.endsWith('/') ? '/*' : match[2]!);
    stack.length = depth;
    stack[depth] = path;
    if (match[3]?.split(', ').includes('GET')) routes.push(path);
  }
  return routes;
}

/** Every way of filling a route's parameters from `values` (one unknown id for the parameters no test data names). */
function fill(route: string, values: Record<string, string[]>): string[] {
  const names = [...route.matchAll(/:(\w+)|\*/g)].map((match) => match[1] ?? '*');
  let paths = [route];
  for (const name of names) {
    const options = values[name] ?? ['unknown-id'];
    paths = paths.flatMap((path) =>
      options.map((value) =>
        name === '*' ? path.replace('*', value) : path.replace(`:${name}`, encodeURIComponent(value)),
      ),
    );
  }
  return paths;
}

/** The platform's own download URLs (files, PDF exports) in an answer, which the walk follows. */
function ownUrls(body: unknown, found: Set<string> = new Set()): Set<string> {
  if (typeof body === 'string' && (body.startsWith(`${origin}/files/`) || body.startsWith(`${origin}/pdf/`)))
    found.add(body);
  else if (Array.isArray(body)) for (const item of body) ownUrls(item, found);
  else if (body && typeof body === 'object') for (const item of Object.values(body)) ownUrls(item, found);
  return found;
}

/** The text of a PDF (pdf.js, as a reader would extract it). */
async function pdfText(bytes: Uint8Array): Promise<string> {
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
    pages.push(content.items.map((item) => ('str' in item ? item.str : '')).join(' '));
  }
  await loading.destroy();
  return pages.join('\n');
}

interface Answer {
  route: string;
  url: string;
  status: number;
  /** The body, and the text of every download it links (PDF text extracted), in lower case. */
  text: string;
}

/** GETs a URL as the bearer of `token`, following the downloads its answer links. */
async function read(route: string, url: string, token: string): Promise<Answer> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  let text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  for (const link of ownUrls(body)) {
    const download = await fetch(link);
    const bytes = new Uint8Array(await download.arrayBuffer());
    text += `\n${download.url}\n${download.headers.get('content-type') === 'application/pdf' ? await pdfText(bytes) : Buffer.from(bytes).toString('utf8')}`;
  }
  return { route, url, status: response.status, text: text.toLowerCase() };
}

const hiddenMarkers = [MARKERS.hiddenPage, MARKERS.hiddenBlock];

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  origin = p.url.replace(/\/v1$/, '');
  org = addOrg(p, { id: 'gated', members: { admin: 'admin' } });
  space = await org.space('API reference');
  // Reference pages every reader sees, which a search for "token" finds beside the visitor content.
  const pages = ['Authentication', 'Tokens', 'Scopes', 'Errors', 'Rate limits'].map((title, index) => ({
    id: `pg-reference-${index}`,
    type: 'document' as const,
    title,
    slug: title.toLowerCase().replace(' ', '-'),
    documentId: putDocument(p.db, space, textDocument([[0, `${title}: send the API token with every request.`]])),
    pages: [],
  }));
  commitContent(p.db, space, { pages, files: [], reusableContents: [], variables: {} });
  seeded = addVisitorContent(p.db, space);
  // A change request of the space, for the routes that read one.
  expect((await p.api('POST', `/spaces/${space}/change-requests`, { body: { subject: 'Draft' } })).status).toBe(201);
  site = await org.site('API', { spaces: [space], visibility: 'visitor-auth' });
  const sitePath = `/orgs/${org.id}/sites/${site}`;
  expect((await p.api('PATCH', sitePath, { body: { adaptiveContent: { enabled: true } } })).status).toBe(200);
  signingKey = (await p.api('GET', `${sitePath}/publishing/auth`)).body.privateKey;
  published = (await p.api('GET', sitePath)).body.urls.published;
  const jwtToken = await new SignJWT({ ...VISITOR_CLAIMS })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(signingKey));
  const resolved = await p.api('POST', '/urls/published', {
    body: { url: `${published}${seeded.visible.path}`, visitor: { jwtToken } },
  });
  expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
  expect(resolved.body.space).toBe(space);
  visitorToken = resolved.body.apiToken;
});

afterAll(async () => {
  await p?.destroy();
});

describe('what a site visitor reads', () => {
  it('finds the hidden page and block for a member, so that the walk below can fail', async () => {
    for (const marker of hiddenMarkers) {
      const found = await p.api('GET', `/spaces/${space}/search`, { query: { query: marker } });
      expect(found.body.count, marker).toBeGreaterThan(0);
    }
    const pdf = await read('pdf', `${p.url}/spaces/${space}/pdf`, p.adminToken);
    for (const marker of [...hiddenMarkers, MARKERS.visible]) expect(pdf.text).toContain(marker);
  });

  it('shows none of what the claims hide on any GET route the token opens, and still shows the rest', async () => {
    const changeRequest = (await p.api('GET', `/spaces/${space}/change-requests`)).body.items[0]?.id ?? 'unknown-id';
    const { hidden, visible } = seeded;
    const values: Record<string, string[]> = {
      spaceId: [space],
      organizationId: [org.id],
      siteId: [site],
      revisionId: [seeded.revision],
      changeRequestId: [changeRequest],
      pageId: [hidden.page, visible.page],
      fileId: [hidden.file, visible.blockFile, visible.file],
      reusableContentId: [hidden.reusableContent],
      documentId: [hidden.document, visible.document],
      '*': [hidden.path, visible.path],
    };
    const siteUrl = (path: string) => `${published}${path}`;
    // Every parameter a route might read, in four mixes (routes ignore those they do not read).
    const variants: Array<Record<string, string>> = [
      { query: MARKERS.hiddenPage, url: siteUrl(hidden.path), page: hidden.page },
      { query: MARKERS.hiddenBlock, url: siteUrl(visible.path), format: 'markdown', dereferenced: 'true' },
      { query: MARKERS.visible, format: 'document', evaluated: 'false', page: visible.page },
      {
        query: `${MARKERS.hiddenBlock} ${MARKERS.visible}`,
        format: 'document',
        evaluated: 'deterministic-only',
        dereferenced: 'true',
      },
    ];

    const routes = getRoutes();
    expect(routes.length).toBeGreaterThan(100);
    const answers: Answer[] = [];
    for (const route of routes) {
      for (const path of fill(route, values)) {
        for (const variant of variants) {
          const url = new URL(origin + path);
          for (const [name, value] of Object.entries(variant)) url.searchParams.set(name, value);
          answers.push(await read(route, url.href, visitorToken));
        }
      }
    }

    // Routes that do not declare themselves open to visitors refuse them (they might read around the view).
    const closed = answers.filter(
      (answer) => answer.route === '/v1/orgs/:organizationId/sites/:siteId' || answer.route === '/v1/orgs',
    );
    expect(new Set(closed.map((answer) => answer.status))).toEqual(new Set([403]));

    const leaks = answers.filter((answer) => hiddenMarkers.some((marker) => answer.text.includes(marker)));
    expect(leaks.map((answer) => `${answer.status} ${answer.url}`)).toEqual([]);

    // The visitor still reads what they may, on the routes the issue names.
    const seen = (route: string) =>
      answers.some(
        (answer) => answer.route === route && answer.status === 200 && answer.text.includes(MARKERS.visible),
      );
    const mustShowVisible = [
      '/v1/spaces/:spaceId/content',
      '/v1/spaces/:spaceId/content/pages',
      '/v1/spaces/:spaceId/content/page/:pageId',
      '/v1/spaces/:spaceId/content/path/*',
      '/v1/spaces/:spaceId/content/files',
      '/v1/spaces/:spaceId/content/files/:fileId',
      '/v1/spaces/:spaceId/revisions/:revisionId/page/:pageId/document',
      '/v1/spaces/:spaceId/documents/:documentId',
      '/v1/spaces/:spaceId/revisions/:revisionId/changes',
      '/v1/spaces/:spaceId/links',
      '/v1/spaces/:spaceId/search',
      '/v1/spaces/:spaceId/pdf',
    ];
    expect(mustShowVisible.filter((route) => !seen(route))).toEqual([]);
    // Reads of what is hidden are 404s, not empty answers.
    const status = (route: string, part: string) =>
      answers
        .filter((answer) => answer.route === route && new URL(answer.url).pathname.includes(part))
        .map((answer) => answer.status);
    expect(new Set(status('/v1/spaces/:spaceId/content/page/:pageId', hidden.page))).toEqual(new Set([404]));
    expect(new Set(status('/v1/spaces/:spaceId/documents/:documentId', hidden.document))).toEqual(new Set([404]));
    expect(new Set(status('/v1/spaces/:spaceId/content/files/:fileId', visible.blockFile))).toEqual(new Set([404]));
    expect(
      new Set(status('/v1/spaces/:spaceId/content/reusable-contents/:reusableContentId', hidden.reusableContent)),
    ).toEqual(new Set([404]));
  }, 120_000);

  it('searches only the visitor’s view: a page matching only hidden text is no hit', async () => {
    const search = (query: string) =>
      p.api('GET', `/spaces/${space}/search`, { token: visitorToken, query: { query } });
    expect((await search(MARKERS.hiddenPage)).body).toEqual({ count: 0, items: [] });
    expect((await search(MARKERS.hiddenBlock)).body).toEqual({ count: 0, items: [] });
    const visible = await search(MARKERS.visible);
    expect(visible.body.items.map((item: { id: string }) => item.id)).toEqual([seeded.visible.page]);
    // Both words: the hidden one cannot make the visible page a better or an "all terms" hit.
    const both = await search(`${MARKERS.visible} ${MARKERS.hiddenBlock}`);
    expect(both.body.items.map((item: { id: string }) => item.id)).toEqual([seeded.visible.page]);
    expect(JSON.stringify(both.body).toLowerCase()).not.toContain(MARKERS.hiddenBlock);
  });

  it('ranks and pages the visitor’s search as one list, with the pages a member finds that the visitor may read', async () => {
    const all = await p.api('GET', `/spaces/${space}/search`, {
      token: visitorToken,
      query: { query: 'token', limit: 100 },
    });
    const member = await p.api('GET', `/spaces/${space}/search`, { query: { query: 'token', limit: 100 } });
    const ids = all.body.items.map((item: { id: string }) => item.id);
    expect(ids.length).toBeGreaterThan(3);
    expect(new Set(ids)).toEqual(
      new Set(
        member.body.items.map((item: { id: string }) => item.id).filter((id: string) => id !== seeded.hidden.page),
      ),
    );
    expect(all.body.items.map((item: { rank: number }) => item.rank)).toEqual(
      ids.map((_: string, index: number) => index + 1),
    );
    const paged: string[] = [];
    for (let page: string | undefined = '', guard = 0; page !== undefined && guard < 50; guard += 1) {
      const answer = await p.api('GET', `/spaces/${space}/search`, {
        token: visitorToken,
        query: { query: 'token', limit: 2, ...(page ? { page } : {}) },
      });
      expect(answer.body.count).toBe(ids.length);
      paged.push(...answer.body.items.map((item: { id: string }) => item.id));
      page = answer.body.next?.page;
    }
    expect(paged).toEqual(ids);
  });

  it('gives each view its own search: other claims that hide the same things share it, others do not', async () => {
    const tokenFor = async (claims: Record<string, unknown>) => {
      const jwtToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(signingKey));
      return (
        await p.api('POST', '/urls/published', {
          body: { url: `${published}${seeded.visible.path}`, visitor: { jwtToken } },
        })
      ).body.apiToken as string;
    };
    const count = async (token: string, query: string) =>
      (await p.api('GET', `/spaces/${space}/search`, { token, query: { query } })).body.count as number;
    const alike = await tokenFor({ plan: 'free', betaAccess: true, email: 'someone@example.com' });
    expect([
      await count(alike, MARKERS.hiddenPage),
      await count(alike, MARKERS.hiddenBlock),
      await count(alike, MARKERS.visible),
    ]).toEqual([0, 0, 1]);
    const enterprise = await tokenFor({ plan: 'enterprise', betaAccess: true });
    expect([await count(enterprise, MARKERS.hiddenPage), await count(enterprise, MARKERS.hiddenBlock)]).toEqual([1, 0]);
    const noBeta = await tokenFor({ plan: 'pro', betaAccess: false });
    expect([await count(noBeta, MARKERS.hiddenPage), await count(noBeta, MARKERS.hiddenBlock)]).toEqual([0, 1]);
  });

  it('searches the new revision once the space has one, still without what the claims hide', async () => {
    const { markdownToDocument } = await import('../../src/document/markdown.js');
    const { loadRevision, putDocument } = await import('../../src/platform/content/revisions.js');
    const { commitContent } = await import('../fixtures/content.js');
    const current = loadRevision(
      p.db,
      space,
      p.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(space) as string,
    )!.content;
    const documentId = putDocument(
      p.db,
      space,
      markdownToDocument(
        'The wombatnew page.\n\n{% if visitor.claims.betaAccess == false %}\nThe wombatnew narwhalbeta aside.\n{% endif %}\n',
      ).document,
    );
    commitContent(p.db, space, {
      ...current,
      pages: [
        ...current.pages,
        { id: 'pg-wombat', type: 'document', title: 'Wombat', slug: 'wombat', documentId, pages: [] },
      ],
    });
    const found = await p.api('GET', `/spaces/${space}/search`, { token: visitorToken, query: { query: 'wombatnew' } });
    expect(found.body.items.map((item: { id: string }) => item.id)).toEqual(['pg-wombat']);
    expect(JSON.stringify(found.body).toLowerCase()).not.toContain(MARKERS.hiddenBlock);
    expect(
      (await p.api('GET', `/spaces/${space}/search`, { token: visitorToken, query: { query: MARKERS.hiddenBlock } }))
        .body.count,
    ).toBe(0);
    expect((await p.api('GET', `/spaces/${space}/search`, { query: { query: MARKERS.hiddenBlock } })).body.count).toBe(
      2,
    );
  });
});

import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg } from '../fixtures/org.js';
import { addVisitorContent, MARKERS, VISITOR_CLAIMS, type VisitorContent } from '../fixtures/visitor-content.js';

let g: TestGateway;
let seeded: VisitorContent;
let apiToken: string;
let spaceId: string;

/** The text of a PDF (pdf.js, as a reader would extract it), in lower case. */
async function pdfText(url: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const loading = getDocument({
    data: new Uint8Array(await response.arrayBuffer()),
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
  return pages.join('\n').toLowerCase();
}

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  const org = addOrg(g.platform, { id: 'gated', members: { admin: 'admin' } });
  spaceId = await org.space('API reference');
  seeded = addVisitorContent(g.platform.db, spaceId);
  // A visitor-auth site of that space, with adaptive content: visitors see what their claims allow.
  const site = await org.site('API', { spaces: [spaceId], visibility: 'visitor-auth' });
  const sitePath = `/orgs/${org.id}/sites/${site}`;
  await g.platform.api('PATCH', sitePath, { body: { adaptiveContent: { enabled: true } } });
  const { privateKey } = (await g.platform.api('GET', `${sitePath}/publishing/auth`)).body;
  const { urls } = (await g.platform.api('GET', sitePath)).body;
  const jwtToken = await new SignJWT({ ...VISITOR_CLAIMS })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(privateKey));
  const resolved = await g.gql<any>(
    `query($url: String!, $token: String!) { resolveUrl(url: $url, visitor: { jwtToken: $token }) { ... on PublishedContent { apiToken space { platformId } } } }`,
    {
      url: `${urls.published}${seeded.visible.path}`,
      token: jwtToken,
    },
  );
  expect(resolved.errors).toBeUndefined();
  expect(resolved.data.resolveUrl.space.platformId).toBe(spaceId);
  apiToken = resolved.data.resolveUrl.apiToken;
});
afterAll(() => g.destroy());

const SEARCH_AND_PDF = `query($id: ID!, $query: String!) {
  space(id: $id) {
    search(query: $query) { totalCount nodes { title description path sections { title body } } }
    pdf { url }
  }
}`;

describe('a site visitor through the graph', () => {
  it('searches and prints only what their claims show (space { search pdf } with the API token as bearer)', async () => {
    const hidden = [MARKERS.hiddenPage, MARKERS.hiddenBlock];
    for (const query of [...hidden, `${MARKERS.visible} ${MARKERS.hiddenBlock}`]) {
      const result = await g.gql<any>(SEARCH_AND_PDF, { id: spaceId, query }, { token: apiToken });
      expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
      const text = JSON.stringify(result.data.space.search).toLowerCase();
      for (const marker of hidden) expect(text, query).not.toContain(marker);
      expect(result.data.space.search.totalCount).toBe(query.includes(MARKERS.visible) ? 1 : 0);
    }
    const visible = await g.gql<any>(SEARCH_AND_PDF, { id: spaceId, query: MARKERS.visible }, { token: apiToken });
    expect(visible.data.space.search.nodes.map((node: { path: string }) => node.path)).toEqual([seeded.visible.path]);
    const printed = await pdfText(visible.data.space.pdf.url);
    expect(printed).toContain(MARKERS.visible);
    for (const marker of hidden) expect(printed).not.toContain(marker);

    // A member reads it all, through the same fields.
    const member = await g.gql<any>(SEARCH_AND_PDF, { id: spaceId, query: MARKERS.hiddenBlock });
    expect(member.data.space.search.totalCount).toBe(1);
    const memberPdf = await pdfText(member.data.space.pdf.url);
    for (const marker of [...hidden, MARKERS.visible]) expect(memberPdf).toContain(marker);
  });

  it('does not print a hidden page by id', async () => {
    const result = await g.gql<any>(
      `query($id: ID!, $page: ID!) { space(id: $id) { pdf(pageId: $page) { url } } }`,
      { id: spaceId, page: seeded.hidden.page },
      { token: apiToken },
    );
    expect(result.errors?.map((error) => error.extensions?.code)).toEqual(['NOT_FOUND']);
  });
});

import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { DEMO_SITE_SECRETS } from '../../src/platform/sites/demo.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';

/**
 * The demo works as docs/demo-data.md says: every demo site, variant and share link shows pages
 * through the gateway, every URL of its "Try it" table does, and the ids it gives are the seeded ones.
 */

const DOC = readFileSync(new URL('../../docs/demo-data.md', import.meta.url), 'utf8');
/** Where `npm start` serves the embedded platform (the default `PLATFORM_PORT`), as the doc writes its URLs. */
const DOC_PLATFORM = 'http://127.0.0.1:4010';

/** The first table under the heading `## <heading>` of the doc, as rows keyed by its header cells. */
function docTable(heading: string): Array<Record<string, string>> {
  const section = DOC.split(/^## /m).find((part) => part.startsWith(`${heading}\n`));
  if (!section) throw new Error(`docs/demo-data.md has no section "${heading}"`);
  const all = section.split('\n');
  const start = all.findIndex((line) => line.startsWith('|'));
  const end = all.findIndex((line, index) => index > start && !line.startsWith('|'));
  const lines = all.slice(start, end < 0 ? undefined : end);
  const cells = (line: string) =>
    line
      .slice(1, -1)
      .split(' | ')
      .map((cell) => cell.trim());
  const [header, , ...rows] = lines;
  const names = cells(header!);
  return rows.map((row) => Object.fromEntries(cells(row).map((cell, index) => [names[index]!, cell])));
}

/** The text between the first pair of backticks of a cell. */
const code = (cell: string | undefined) => /`([^`]+)`/.exec(cell ?? '')?.[1];

const RESOLVE = `query ($url: String!, $visitor: VisitorInput) {
  resolveUrl(url: $url, visitor: $visitor) {
    __typename
    ... on PublishedContent { preview site { title } siteSpace { platformId } space { title } page { title } }
    ... on ContentRedirect { url }
  }
}`;

interface DemoSite {
  platformId: string;
  title: string;
  visibility: string;
  isPublished: boolean;
  urls: { published: string | null };
  siteSpaces: {
    nodes: Array<{
      platformId: string;
      urls: { published: string | null };
      homePage: { title: string } | null;
      space: { title: string };
    }>;
  };
  shareLinks: { nodes: Array<{ platformId: string; url: string | null; active: boolean }> };
}

describe('the demo, as docs/demo-data.md gives it', () => {
  let g: TestGateway;
  let sites: DemoSite[];

  beforeAll(async () => {
    g = await startTestGateway();
    const data = await expectOk(
      g,
      `{ organizations(first: 5) { nodes { sites(first: 10) { nodes {
        platformId title visibility isPublished urls { published }
        siteSpaces(first: 20) { nodes { platformId urls { published } homePage { title } space { title } } }
        shareLinks(first: 10) { nodes { platformId url active } }
      } } } } }`,
    );
    sites = data.organizations.nodes.flatMap((org: { sites: { nodes: DemoSite[] } }) => org.sites.nodes);
  });

  afterAll(async () => {
    await g?.destroy();
  });

  /** Resolves a published URL through the gateway, failing on any error: what it is, as the graph answers it. */
  const resolveAny = async (url: string, visitor?: { jwtToken: string }) => {
    const result = await g.gql(RESOLVE, { url, visitor });
    expect(result.errors, `${url}: ${JSON.stringify(result.errors)}`).toBeUndefined();
    return result.data.resolveUrl as { __typename: string; url?: string };
  };

  /** Resolves a published URL through the gateway; answers what it shows, failing on any error. */
  const resolve = async (url: string, visitor?: { jwtToken: string }) => {
    const resolved = await resolveAny(url, visitor);
    expect(resolved.__typename, url).toBe('PublishedContent');
    return resolved as unknown as {
      preview: boolean;
      site: { title: string };
      siteSpace: { platformId: string };
      space: { title: string };
      page: { title: string } | null;
    };
  };

  it('shows pages on every demo site, site space and share link, through the gateway', async () => {
    expect(sites.map((site) => site.title).sort()).toEqual(Object.values(DEMO.sites).sort());
    let resolved = 0;
    for (const site of sites) {
      const visitor = site.visibility === 'VISITOR_AUTH' ? { jwtToken: DEMO_SITE_SECRETS.visitorToken } : undefined;
      // A share-link site is reached through its share links: each one's URL, and its variants' paths below it.
      const roots =
        site.visibility === 'SHARE_LINK' ? site.shareLinks.nodes.map((link) => link.url!) : [site.urls.published];
      for (const siteSpace of site.siteSpaces.nodes) {
        // The site's structure: the page its readers land on.
        expect(siteSpace.homePage, `${site.title}: ${siteSpace.space.title}`).not.toBeNull();
        if (!site.isPublished) continue;
        const below = siteSpace.urls.published!.slice(site.urls.published!.length);
        for (const root of roots) {
          const shown = await resolve(`${root}${below}`, visitor);
          expect(shown.siteSpace.platformId).toBe(siteSpace.platformId);
          expect(shown.page, `${root}${below}`).not.toBeNull();
          resolved += 1;
        }
      }
    }
    // Acme Docs' five variants, the partner portal's two through its share link, Acme API's two, Globex's one.
    expect(resolved).toBe(10);
    expect(sites.flatMap((site) => site.shareLinks.nodes).filter((link) => link.active)).toHaveLength(1);
  });

  it('shows a page at every URL of "Try it", which together reach every variant of every demo site', async () => {
    const rows = docTable('Try it');
    expect(rows.length).toBeGreaterThan(0);
    const origin = new URL(g.platform.url).origin;
    const reached = new Set<string>();
    for (const row of rows) {
      const written = code(row.URL)!;
      const url = written.startsWith(DOC_PLATFORM) ? origin + written.slice(DOC_PLATFORM.length) : written;
      const visitor = row.as === 'the demo visitor token' ? { jwtToken: DEMO_SITE_SECRETS.visitorToken } : undefined;
      if (!visitor) expect(['anyone', 'a member'], written).toContain(row.as);
      // A row that shows a redirect names where it leads: the graph answers a redirect there.
      const leadsTo = /redirect .*to `…(\/[^`]+)`/.exec(row.shows ?? '')?.[1];
      if (leadsTo) {
        const redirect = await resolveAny(url, visitor);
        expect(redirect.__typename, written).toBe('ContentRedirect');
        expect(redirect.url, written).toMatch(new RegExp(`${leadsTo.replaceAll('/', '\\/')}$`));
        continue;
      }
      const shown = await resolve(url, visitor);
      expect(shown.page, written).not.toBeNull();
      expect(shown.preview, written).toBe(row.as === 'a member');
      // What the row says it shows: the site and, in quotes, the space.
      expect(row.shows, written).toContain(shown.site.title);
      expect(row.shows, written).toContain(`"${shown.space.title}"`);
      reached.add(shown.siteSpace.platformId);
    }
    const every = sites.flatMap((site) => site.siteSpaces.nodes.map((siteSpace) => siteSpace.platformId));
    expect([...reached].sort()).toEqual(every.sort());
  });

  it('answers the requests "Try it" shows from a shell, and a browser at a platform URL 401 JSON, as it says', async () => {
    const section = DOC.split(/^## /m).find((part) => part.startsWith('Try it\n'))!;
    const shell = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    // Commands as the shell reads them: a line continued by a backslash, or by a single quote left open.
    const lines: string[] = [];
    for (const line of shell.replace(/\\\n\s*/g, ' ').split('\n')) {
      if (line.startsWith('#')) continue;
      const open = (lines.at(-1)?.split("'").length ?? 1) % 2 === 0;
      if (open) lines[lines.length - 1] += `\n${line}`;
      else lines.push(line);
    }
    const variables = new Map(
      lines.flatMap((line) => {
        const assigned = /^([A-Z]+)=([^\s$(]\S*)$/.exec(line);
        return assigned ? [[assigned[1]!, assigned[2]!] as const] : [];
      }),
    );
    const platformOrigin = new URL(g.platform.url).origin;
    const answers = [];
    for (const line of lines.filter((line) => line.startsWith('curl '))) {
      const target = /^curl -s (\S+)/.exec(line)![1]!;
      const quoted = /-d '([^']*)'/.exec(line)?.[1] ?? /-d "((?:[^"\\]|\\.)*)"/.exec(line)?.[1]?.replace(/\\"/g, '"');
      // The doc's URLs name the default PLATFORM_PORT: here, the test platform's.
      const body = quoted!
        .replace(/\$([A-Z]+)/g, (_, name: string) => variables.get(name) ?? '')
        .replaceAll(DOC_PLATFORM, platformOrigin);
      const init = {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${g.platform.adminToken}` },
        body,
      };
      const response = target.startsWith('http://127.0.0.1:4000/')
        ? await g.gateway.fetch(target.replace('http://127.0.0.1:4000', 'http://gateway.test'), init)
        : await fetch(target.replace(DOC_PLATFORM, platformOrigin), init);
      const json = (await response.json()) as Record<string, any>;
      answers.push({
        status: response.status,
        errors: json.errors,
        error: json.error,
        keys: Object.keys(json.data ?? json),
      });
    }
    expect(answers).toEqual([
      { status: 200, errors: undefined, error: undefined, keys: ['resolveUrl'] },
      { status: 200, errors: undefined, error: undefined, keys: ['target', 'redirect'] },
      {
        status: 200,
        errors: undefined,
        error: undefined,
        keys: expect.arrayContaining(['site', 'siteSpace', 'space']),
      },
    ]);
    const browser = await fetch(`${platformOrigin}/published/acme-docs/docs/`);
    expect({ status: browser.status, type: browser.headers.get('content-type') }).toEqual({
      status: 401,
      type: expect.stringMatching(/^application\/json/),
    });
  });

  it('gives the seeded ids of spaces, sites, the share link, change requests, the translation and the OpenAPI specification', async () => {
    const spaces = docTable('Spaces');
    expect(spaces.length).toBeGreaterThan(10);
    for (const row of spaces) expect(code(row.id), row.space).toBe(g.platform.spaceId(row.space!));

    const siteIds = Object.fromEntries(sites.map((site) => [site.title, site.platformId]));
    const siteRows = docTable('Docs sites');
    expect(siteRows.map((row) => row.site).sort()).toEqual(Object.keys(siteIds).sort());
    for (const row of siteRows) expect(code(row.id), row.site).toBe(siteIds[row.site!]);
    const shareLink = sites.flatMap((site) => site.shareLinks.nodes)[0]!;
    expect(DOC).toContain(`(share link \`${shareLink.platformId}\`)`);

    const requests = docTable('Change requests');
    expect(requests.map((row) => row.number)).toEqual(['1', '2', '3', '4', '5', '6']);
    const data = await expectOk(
      g,
      `query ($space: ID!) {
        space(id: $space) { ${requests.map(({ number }) => `n${number}: changeRequest(id: "${number}") { platformId }`).join(' ')} }
        organization(id: "acme") {
          translations(first: 10) { nodes { platformId } }
          openApiSpecs(first: 10) { nodes { slug platformId } }
        }
      }`,
      { space: g.platform.spaceId('Getting started') },
    );
    for (const { number, id } of requests) expect(code(id), `#${number}`).toBe(data.space[`n${number}`].platformId);
    const [translation] = data.organization.translations.nodes;
    expect(DOC).toContain(`The translation's id is\n\`${translation.platformId}\`.`);
    const [spec] = data.organization.openApiSpecs.nodes;
    expect(DOC).toContain(`\`${spec.slug}\` (id \`${spec.platformId}\`)`);
  });
});

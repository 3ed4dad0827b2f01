import { encodeGlobalID } from '@pothos/plugin-relay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import {
  enableIntegration,
  installIntegration,
  publishIntegration,
  publishSiteAnalytics,
} from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * What integrations bring to a site, end to end: `Site.integrations` (those whose installation covers the site,
 * enabled on it or on all sites, that can be installed on sites) and `Site.integrationScripts` (those of them
 * active there with the `site:script:inject` scope), the same scripts in the published profile readers get.
 */

const ORG = 'fabrikam';
let g: TestGateway;
let org: TestOrg;
let docs: string;
let blog: string;
let outsider: string;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: ORG, members: { ada: 'admin', finn: 'read' } });
  outsider = addOrg(g.platform, { id: 'elsewhere', members: { hana: 'admin' } }).token('hana');
  const space = await org.space('Handbook');
  docs = await org.site('Docs', { spaces: [space] });
  blog = await org.site('Blog', { spaces: [await org.space('Posts')] });

  // Analytics, for sites only: a script once configured on a site (active), none while pending.
  await publishSiteAnalytics(org, 'fab-analytics');
  const analytics = await installIntegration(org, 'fab-analytics');
  await enableIntegration(org, 'fab-analytics', analytics, { site: docs }, { configuration: { trackingId: 'F-1' } });
  await enableIntegration(org, 'fab-analytics', analytics, { site: blog });
  // A chat widget installed for every site: a script with cookies, under its policy.
  await publishIntegration(org, 'chat-widget', {
    title: 'Chat widget',
    visibility: 'unlisted',
    target: 'all',
    scopes: ['site:script:inject', 'site:script:cookies'],
    contentSecurityPolicy: { 'script-src': 'https://chat.test', 'connect-src': 'wss://chat.test' },
  });
  const chat = await installIntegration(org, 'chat-widget');
  await g.platform.api('PATCH', `/integrations/chat-widget/installations/${chat}`, {
    body: { site_selection: 'all' },
  });
  // Installed on every site too, but for spaces alone: not a site's.
  await publishIntegration(org, 'space-hooks', { target: 'space' });
  const hooks = await installIntegration(org, 'space-hooks');
  await g.platform.api('PATCH', `/integrations/space-hooks/installations/${hooks}`, {
    body: { site_selection: 'all', space_selection: 'all' },
  });
});
afterAll(() => g.destroy());

const siteGid = (id: string) => encodeGlobalID('Site', `${ORG}/${id}`);
const api = () => `${g.platform.url}`;

const QUERY = `query($id: ID!) { node(id: $id) { ... on Site {
  integrations { totalCount nodes { id name title } }
  integrationScripts { url cookies contentSecurityPolicy }
} } }`;

const analyticsScript = (site: string, installation: string) => ({
  url: `${api()}/integrations/fab-analytics/installations/${installation}/sites/${site}/script.js?version=1`,
  cookies: false,
  contentSecurityPolicy: null,
});
const chatScript = (site: string, installation: string) => ({
  url: `${api()}/integrations/chat-widget/installations/${installation}/sites/${site}/script.js?version=1`,
  cookies: true,
  // The directives in the order the platform keeps them.
  contentSecurityPolicy: 'connect-src wss://chat.test; script-src https://chat.test',
});
const installationOf = (name: string) =>
  g.platform.db
    .prepare(
      'SELECT n.id FROM integration_installations n JOIN integrations i ON i.id = n.integration_id WHERE i.name = ?',
    )
    .pluck(true)
    .get(name) as string;

describe('a site’s integrations and scripts', () => {
  it('lists the integrations installed on the site and the scripts of those active there, a request each', async () => {
    const result = await g.gql(QUERY, { id: siteGid(docs) });
    expect(result.errors).toBeUndefined();
    expect(result.data.node).toEqual({
      integrations: {
        totalCount: 2,
        nodes: [
          { id: encodeGlobalID('Integration', 'chat-widget'), name: 'chat-widget', title: 'Chat widget' },
          { id: encodeGlobalID('Integration', 'fab-analytics'), name: 'fab-analytics', title: 'Site analytics' },
        ],
      },
      integrationScripts: [
        chatScript(docs, installationOf('chat-widget')),
        analyticsScript(docs, installationOf('fab-analytics')),
      ],
    });
    expect(result.upstreamRequests.map((request) => request.split(docs).join('<Docs>')).sort()).toEqual([
      'GET /v1/orgs/fabrikam/sites/<Docs>',
      'GET /v1/orgs/fabrikam/sites/<Docs>/integration-scripts',
      'GET /v1/orgs/fabrikam/sites/<Docs>/integrations?limit=50',
    ]);
  });

  it('leaves out the script of an integration pending its site configuration, and filters by search', async () => {
    const result = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Site {
        integrations(search: "ANALYTICS") { nodes { name } } integrationScripts { url } } } }`,
      { id: siteGid(blog) },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.node).toEqual({
      integrations: { nodes: [{ name: 'fab-analytics' }] },
      integrationScripts: [{ url: chatScript(blog, installationOf('chat-widget')).url }],
    });
  });

  it('links each script to its integration, read only when asked more than its id', async () => {
    const names = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Site { integrationScripts { integration { id } } } } }`,
      { id: siteGid(docs) },
    );
    expect(names.errors).toBeUndefined();
    expect(names.data.node.integrationScripts).toEqual([
      { integration: { id: encodeGlobalID('Integration', 'chat-widget') } },
      { integration: { id: encodeGlobalID('Integration', 'fab-analytics') } },
    ]);
    // The site, its scripts.
    expect(names.upstream).toBe(2);
    const titles = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on Site { integrationScripts { integration { title } } } } }`,
      { id: siteGid(docs) },
    );
    expect(titles.data.node.integrationScripts).toEqual([
      { integration: { title: 'Chat widget' } },
      { integration: { title: 'Site analytics' } },
    ]);
    expect(titles.upstreamRequests.filter((request) => request.startsWith('GET /v1/integrations/')).sort()).toEqual([
      'GET /v1/integrations/chat-widget',
      'GET /v1/integrations/fab-analytics',
    ]);
  });

  it('gives readers of the published site the same scripts in its profile', async () => {
    const result = await g.gql(
      `query($org: ID!, $site: ID!) { publishedSite(organizationId: $org, siteId: $site) { scripts { url cookies contentSecurityPolicy } } }`,
      { org: ORG, site: docs },
      { token: outsider },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.publishedSite.scripts).toEqual([
      chatScript(docs, installationOf('chat-widget')),
      analyticsScript(docs, installationOf('fab-analytics')),
    ]);
  });

  it('answers members only, readers included; others get NOT_FOUND', async () => {
    const reader = await g.gql(QUERY, { id: siteGid(docs) }, { token: org.token('finn') });
    expect(reader.errors).toBeUndefined();
    expect(reader.data.node.integrations.totalCount).toBe(2);
    for (const path of ['integrations', 'integration-scripts']) {
      const answer = await g.platform.api('GET', `/orgs/${ORG}/sites/${docs}/${path}`, { token: outsider });
      expect(answer.status).toBe(404);
    }
  });
});

import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import {
  enableIntegration,
  installIntegration,
  publishSiteAnalytics,
  publishVideoBlock,
} from '../fixtures/integrations.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';

const ORG = 'northwind';
const SOUTH = 'southwind';
/** The public integration with a video block, installed on both organizations, enabled on Release notes. */
const VIDEO = 'video-embeds';
/** The private integration of Northwind for its sites, installed on its site. */
const ANALYTICS = 'site-analytics';
/** The domain of VIDEO's block. */
const VIDEO_DOMAIN = 'videos.example.test';

let g: TestGateway;
let org: TestOrg;
/** In no organization. */
let ivy: TestUser;
/** Northwind's spaces. */
const S = {} as Record<'releaseNotes' | 'runbooks' | 'gettingStarted', string>;
let receiver: Server;
let endpoint: string;
const deliveries: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];

/**
 * Northwind Docs: ada admin, ben `create`, gus a guest; spaces Release notes, Runbooks and Getting started, and a
 * site of Release notes. Southwind: ada admin. ivy in no organization. VIDEO, public: installed on Northwind
 * (active) and enabled on Release notes alone, installed on Southwind (pending: no channel). ANALYTICS, private to
 * Northwind: installed there, on its site.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false, deliveryRetryBaseMs: 10 });
  const p = g.platform;
  const users = { ada: addUser(p, 'ada') };
  org = addOrg(p, { id: ORG, title: 'Northwind Docs', members: { ada: 'admin', ben: 'create', gus: null }, users });
  const south = addOrg(p, { id: SOUTH, title: 'Southwind', members: { ada: 'admin' }, users });
  ivy = addUser(p, 'ivy');
  S.releaseNotes = await org.space('Release notes', { visibility: 'public' });
  S.runbooks = await org.space('Runbooks');
  S.gettingStarted = await org.space('Getting started');
  const site = await org.site('Northwind Docs', { spaces: [S.releaseNotes] });
  await publishVideoBlock(org, VIDEO, { domain: VIDEO_DOMAIN });
  const video = await installIntegration(org, VIDEO, { configuration: { channel: 'northwind' } });
  await enableIntegration(org, VIDEO, video, { space: S.releaseNotes }, { configuration: { quality: 'hd' } });
  await installIntegration(south, VIDEO);
  await publishSiteAnalytics(org, ANALYTICS);
  const analytics = await installIntegration(org, ANALYTICS);
  await enableIntegration(org, ANALYTICS, analytics, { site }, { configuration: { trackingId: 'NW-0001' } });
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url === '/failing') return void response.writeHead(500).end('down');
      deliveries.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/events`;
});

afterAll(async () => {
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await g?.destroy();
});

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

describe('integrations', () => {
  it('reads an integration with its installations, the spaces and sites they cover, and its events', async () => {
    const result = await g.gql<any>(`{ integration(name: "${VIDEO}") {
      id name title version visibility target canAdmin owner { platformId } blocks { id blockId title urlUnfurl }
      installations { totalCount nodes { status organization { platformId } spaceInstallations { nodes { status space { title } } } } }
      spaceInstallations { totalCount nodes { status spaceId space { title } installation { platformId } } }
      events(first: 5) { totalCount nodes { type status createdAt payload installation { platformId } } }
    } }`);
    expect(result.errors).toBeUndefined();
    const integration = result.data.integration;
    expect(integration).toMatchObject({
      name: VIDEO,
      visibility: 'PUBLIC',
      canAdmin: true,
      owner: { platformId: ORG },
    });
    expect(integration.blocks.length).toBeGreaterThan(0);
    // A block's id is unique across integrations (block ids are only within one), its own id apart.
    for (const block of integration.blocks) {
      expect(Buffer.from(block.id, 'base64').toString()).toBe(`IntegrationBlock:${VIDEO}/${block.blockId}`);
    }
    expect(
      integration.installations.nodes.map((node: any) => [node.organization.platformId, node.status]).sort(),
    ).toEqual([
      [ORG, 'ACTIVE'],
      [SOUTH, 'PENDING'],
    ]);
    expect(integration.spaceInstallations.nodes).toEqual([
      expect.objectContaining({ space: { title: 'Release notes' } }),
    ]);
    expect(integration.events.totalCount).toBeGreaterThan(0);
    expect(integration.events.nodes.every((event: any) => typeof event.type === 'string')).toBe(true);
    // The spaces come with the installations (extended lists): no request per space.
    expect(result.upstreamRequests.filter((request) => request.startsWith('GET /v1/spaces/'))).toEqual([]);

    // The trace of an event is read with the event.
    const event = await ok(
      `query ($id: ID!) { node(id: $id) { ... on IntegrationEvent { type trace { message } integration { name } } } }`,
      {
        id: (await ok(`{ integration(name: "${VIDEO}") { events(first: 1) { nodes { id } } } }`)).integration.events
          .nodes[0].id,
      },
    );
    expect(event.node.integration.name).toBe(VIDEO);
    expect(Array.isArray(event.node.trace)).toBe(true);

    // A private integration is for the members of its owner.
    const sites = await ok(
      `{ integration(name: "${ANALYTICS}") { visibility siteInstallations { nodes { site { title } } } } }`,
    );
    expect(sites.integration).toMatchObject({
      visibility: 'PRIVATE',
      siteInstallations: { nodes: [{ site: { title: 'Northwind Docs' } }] },
    });
    const outsider = await g.gql<any>(`{ integration(name: "${ANALYTICS}") { name } }`, {}, { token: ivy.token });
    expect(outsider.data.integration).toBeNull();
    expect(outsider.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
    const listed = await g.gql<any>(
      `{ integrations(search: "video") { totalCount nodes { name owner { title } } } }`,
      {},
      { token: ivy.token },
    );
    expect(listed.data.integrations.nodes).toEqual([{ name: VIDEO, owner: { title: expect.any(String) } }]);
    // The owner comes with the integration.
    expect(listed.upstreamRequests).toEqual(['GET /v1/integrations?limit=50&search=video']);
    const byExternalId = await ok(
      `{ integration(name: "${VIDEO}") { spaceInstallations(externalId: "no-such-id") { totalCount } } }`,
    );
    expect(byExternalId.integration.spaceInstallations.totalCount).toBe(0);
  });

  it('lists the integrations available to an organization, with filters and pages, one request a page', async () => {
    const first = await g.gql<any>(`{ organization(id: "${ORG}") {
      integrations(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { name visibility owner { title } } }
    } }`);
    expect(first.errors).toBeUndefined();
    expect(first.data.organization.integrations).toEqual({
      totalCount: 2,
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
      nodes: [{ name: ANALYTICS, visibility: 'PRIVATE', owner: { title: 'Northwind Docs' } }],
    });
    // The owner comes with each integration: no request for it.
    expect(first.upstreamRequests).toEqual([`GET /v1/orgs/${ORG}`, `GET /v1/orgs/${ORG}/integrations?limit=1`]);

    const next = await g.gql<any>(
      `query ($after: String) { organization(id: "${ORG}") { integrations(first: 1, after: $after) {
        pageInfo { hasNextPage } nodes { name }
      } } }`,
      { after: first.data.organization.integrations.pageInfo.endCursor },
    );
    expect(next.data.organization.integrations).toEqual({
      pageInfo: { hasNextPage: false },
      nodes: [{ name: VIDEO }],
    });
    expect(next.upstreamRequests).toHaveLength(2);

    const filtered = await g.gql<any>(`{ organization(id: "${ORG}") {
      analytics: integrations(category: ANALYTICS, target: SITE, owner: "${ORG}") { nodes { name } }
      blocks: integrations(blocks: true, blockDomain: "${VIDEO_DOMAIN}", search: "video") { nodes { name } }
      none: integrations(contentSources: true, scope: OPENAPI_READ) { totalCount }
    } }`);
    expect(filtered.errors).toBeUndefined();
    expect(filtered.data.organization).toEqual({
      analytics: { nodes: [{ name: ANALYTICS }] },
      blocks: { nodes: [{ name: VIDEO }] },
      none: { totalCount: 0 },
    });
    expect([...filtered.upstreamRequests].sort()).toEqual([
      `GET /v1/orgs/${ORG}`,
      `GET /v1/orgs/${ORG}/integrations?blockDomain=${VIDEO_DOMAIN}&blocks=true&limit=50&search=video`,
      `GET /v1/orgs/${ORG}/integrations?category=analytics&limit=50&owner=${ORG}&target=site`,
      // Only the count is asked for: one item is enough.
      `GET /v1/orgs/${ORG}/integrations?contentSources=true&limit=1&scope=openapi%3Aread`,
    ]);

    // Northwind's private integration is not available to Southwind.
    const south = await ok(`{ organization(id: "${SOUTH}") { integrations { nodes { name } } } }`);
    expect(south.organization.integrations.nodes).toEqual([{ name: VIDEO }]);
    // A guest of Northwind may read the organization, not its integrations.
    const guest = await g.gql<any>(
      `{ organization(id: "${ORG}") { title integrations { totalCount } } }`,
      {},
      { token: org.token('gus') },
    );
    expect(guest.data.organization).toEqual({ title: 'Northwind Docs', integrations: null });
    expect(guest.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('lists the integrations installed on a space, searched by name, one request a page', async () => {
    const spaceId = S.releaseNotes;
    const result = await g.gql<any>(
      `query ($id: ID!) { space(id: $id) { title
        integrations(first: 1) { totalCount pageInfo { hasNextPage } nodes { name owner { title } } }
        none: integrations(search: "nothing like it") { totalCount }
      } }`,
      { id: spaceId },
    );
    expect(result.errors).toBeUndefined();
    expect(result.data.space).toEqual({
      title: 'Release notes',
      integrations: {
        totalCount: 1,
        pageInfo: { hasNextPage: false },
        nodes: [{ name: VIDEO, owner: { title: 'Northwind Docs' } }],
      },
      none: { totalCount: 0 },
    });
    expect([...result.upstreamRequests].sort()).toEqual([
      `GET /v1/spaces/${spaceId}`,
      `GET /v1/spaces/${spaceId}/integrations?limit=1`,
      `GET /v1/spaces/${spaceId}/integrations?limit=1&search=nothing+like+it`,
    ]);
    // Not enabled on another space of Northwind.
    const other = await ok(`query ($id: ID!) { space(id: $id) { integrations { totalCount nodes { name } } } }`, {
      id: S.runbooks,
    });
    expect(other.space.integrations).toEqual({ totalCount: 0, nodes: [] });
  });

  it('answers the icon as the signed URL the platform serves it at', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const published = await ok(
      `mutation ($icon: String!) {
      publishIntegration(input: { name: "gw-icon", organizationId: "${ORG}", title: "Icon", description: "Has an icon.", script: "export default {}", scopes: [], icon: $icon }) {
        integration { iconUrl } userErrors { code }
      }
    }`,
      { icon: png },
    );
    const iconUrl: string = published.publishIntegration.integration.iconUrl;
    const read = await ok(`{ integration(name: "gw-icon") { iconUrl } }`);
    expect(read.integration.iconUrl).toBe(iconUrl);
    const icon = await fetch(iconUrl);
    expect(icon.status).toBe(200);
    expect(Buffer.from(await icon.arrayBuffer()).toString('base64')).toBe(png);
  });

  it('publishes, installs on an organization, a space and a site, and delivers each event signed', async () => {
    const published = await ok(
      `mutation ($endpoint: String!) {
      publishIntegration(input: { name: "gw-hooks", organizationId: "${ORG}", title: "Hooks", description: "Receives events.", script: "export default {}",
        scopes: [SPACE_CONTENT_READ, SITE_SCRIPT_INJECT], categories: [VISITOR_AUTH], runtime: V2, visibility: PUBLIC, target: ALL, endpoint: $endpoint,
        configurations: { account: { properties: { team: { type: "string" } }, required: ["team"] } } }) {
        integration { name version scopes categories } userErrors { code field message }
      }
    }`,
      { endpoint },
    );
    expect(published.publishIntegration.integration).toEqual({
      name: 'gw-hooks',
      version: 1,
      scopes: ['SPACE_CONTENT_READ', 'SITE_SCRIPT_INJECT'],
      categories: ['VISITOR_AUTH'],
    });

    const installed = await ok(
      `mutation { installIntegration(input: { integrationName: "gw-hooks", organizationId: "${ORG}" }) { installation { id platformId status } userErrors { code } } }`,
    );
    const installation = installed.installIntegration.installation;
    expect(installation.status).toBe('PENDING');
    const again = await g.gql<any>(
      `mutation { installIntegration(input: { integrationName: "gw-hooks", organizationId: "${ORG}" }) { userErrors { code } } }`,
    );
    expect(again.data.installIntegration.userErrors).toEqual([{ code: 'CONFLICT' }]);

    const configured = await ok(
      `mutation ($id: ID!) { updateIntegrationInstallation(input: { installationId: $id, configuration: { team: "docs" }, externalIds: ["t-1"] }) { installation { status configuration externalIds } userErrors { code } } }`,
      { id: installation.id },
    );
    expect(configured.updateIntegrationInstallation.installation).toEqual({
      status: 'ACTIVE',
      configuration: { team: 'docs' },
      externalIds: ['t-1'],
    });

    const space = S.gettingStarted;
    const onSpace = await ok(
      `mutation ($id: ID!, $space: ID!) { installIntegrationOnSpace(input: { installationId: $id, spaceId: $space }) { spaceInstallation { status space { title } } userErrors { code } } }`,
      { id: installation.id, space },
    );
    expect(onSpace.installIntegrationOnSpace.spaceInstallation.space).toEqual({ title: 'Getting started' });
    await ok(
      `mutation ($id: ID!, $space: ID!) { updateIntegrationSpaceInstallation(input: { installationId: $id, spaceId: $space, externalIds: ["s-1"] }) { spaceInstallation { externalIds } userErrors { code } } }`,
      { id: installation.id, space },
    );
    const read = await ok(
      `query ($id: ID!, $space: ID!) { node(id: $id) { ... on IntegrationInstallation { status integration { name } spaceInstallation(spaceId: $space) { externalIds space { title } } } } }`,
      { id: installation.id, space },
    );
    expect(read.node).toEqual({
      status: 'ACTIVE',
      integration: { name: 'gw-hooks' },
      spaceInstallation: { externalIds: ['s-1'], space: { title: 'Getting started' } },
    });
    const sites = await ok(`{ organization(id: "${ORG}") { sites(first: 1) { nodes { id title } } } }`);
    const site = sites.organization.sites.nodes[0];
    const onSite = await ok(
      `mutation ($id: ID!, $site: ID!) { installIntegrationOnSite(input: { installationId: $id, siteId: $site }) { siteInstallation { status site { title } } userErrors { code } } }`,
      { id: installation.id, site: site.id },
    );
    expect(onSite.installIntegrationOnSite.siteInstallation.site).toEqual({ title: site.title });
    await ok(
      `mutation ($id: ID!, $site: ID!) { updateIntegrationSiteInstallation(input: { installationId: $id, siteId: $site, configuration: {} }) { siteInstallation { status } userErrors { code } } }`,
      { id: installation.id, site: site.id },
    );
    const siteRead = await ok(
      `query ($id: ID!, $site: ID!) { node(id: $id) { ... on IntegrationInstallation { siteInstallation(siteId: $site) { site { title } } siteInstallations { totalCount } } } }`,
      { id: installation.id, site: site.id },
    );
    expect(siteRead.node).toEqual({
      siteInstallation: { site: { title: site.title } },
      siteInstallations: { totalCount: 1 },
    });
    const offSite = await ok(
      `mutation ($id: ID!, $site: ID!) { uninstallIntegrationFromSite(input: { installationId: $id, siteId: $site }) { deleted userErrors { code } } }`,
      { id: installation.id, site: site.id },
    );
    expect(offSite.uninstallIntegrationFromSite.deleted).toBe(true);
    const offSpace = await ok(
      `mutation ($id: ID!, $space: ID!) { uninstallIntegrationFromSpace(input: { installationId: $id, spaceId: $space }) { deleted userErrors { code } } }`,
      { id: installation.id, space },
    );
    expect(offSpace.uninstallIntegrationFromSpace.deleted).toBe(true);

    await g.platform.app.jobs.drain();
    const events = await ok(`{ integration(name: "gw-hooks") { events { nodes { type status trace { message } } } } }`);
    const types = events.integration.events.nodes.map((event: any) => event.type);
    expect(types).toEqual(
      expect.arrayContaining([
        'INSTALLATION_SETUP',
        'SPACE_INSTALLATION_SETUP',
        'SITE_INSTALLATION_SETUP',
        'SITE_INSTALLATION_DELETED',
        'SPACE_INSTALLATION_DELETED',
      ]),
    );
    expect(events.integration.events.nodes.map((event: any) => [event.type, event.status])).toEqual(
      events.integration.events.nodes.map((event: any) => [event.type, 'SUCCESS']),
    );
    // The trace tells the attempt and its answer.
    for (const event of events.integration.events.nodes)
      expect(event.trace.map((line: any) => line.message).join('\n')).toMatch(/200/);

    // Each delivery is a multipart POST signed with the installation's secret.
    expect(deliveries).toHaveLength(events.integration.events.nodes.length);
    const { body: secretAnswer } = await g.platform.api(
      'GET',
      `/integrations/gw-hooks/installations/${installation.platformId}/signing-secret`,
    );
    for (const delivery of deliveries) {
      expect(String(delivery.headers['content-type'])).toMatch(/^multipart\/form-data/);
      const [, t, v1] = /^t=(\d+),v1=([0-9a-f]+)$/.exec(String(delivery.headers['x-gitbook-signature']))!;
      expect(createHmac('sha256', secretAnswer.secret).update(`${t}.`).update(delivery.body).digest('hex')).toBe(v1);
    }

    const uninstalled = await ok(
      `mutation ($id: ID!) { uninstallIntegration(input: { installationId: $id }) { deleted userErrors { code } } }`,
      { id: installation.id },
    );
    expect(uninstalled.uninstallIntegration.deleted).toBe(true);
    const unpublished = await ok(
      `mutation { unpublishIntegration(input: { name: "gw-hooks" }) { deleted userErrors { code } } }`,
    );
    expect(unpublished.unpublishIntegration.deleted).toBe(true);
  });

  it('records a delivery that fails every try as FAILED, each attempt in its trace', async () => {
    const failing = endpoint.replace(/\/events$/, '/failing');
    await ok(
      `mutation ($endpoint: String!) {
      publishIntegration(input: { name: "gw-failing", organizationId: "${SOUTH}", title: "Failing", description: "Never up.", script: "export default {}", scopes: [], endpoint: $endpoint }) { integration { name } userErrors { code } }
    }`,
      { endpoint: failing },
    );
    await ok(
      `mutation { installIntegration(input: { integrationName: "gw-failing", organizationId: "${SOUTH}" }) { installation { id } userErrors { code } } }`,
    );
    await g.platform.app.jobs.drain();
    const events = await ok(
      `{ integration(name: "gw-failing") { events { nodes { type status trace { message level } } } } }`,
    );
    const [event] = events.integration.events.nodes;
    expect(event).toMatchObject({ type: 'INSTALLATION_SETUP', status: 'FAILED' });
    expect(event.trace.filter((line: any) => /500/.test(line.message))).toHaveLength(3);
    expect(event.trace.at(0).level).toBe('DEBUG');
    expect(event.trace.at(-1)).toEqual({ message: 'Delivery failed: the event was not delivered', level: 'ERROR' });
    await ok(`mutation { unpublishIntegration(input: { name: "gw-failing" }) { deleted userErrors { code } } }`);
  });

  it('checks what it can before any request, and leaves the rest to the platform', async () => {
    const bad = await g.gql<any>(
      `mutation { publishIntegration(input: { name: "bad name", organizationId: "${ORG}", title: "x", description: "d", script: "s", scopes: [] }) { userErrors { field } } }`,
    );
    expect(bad.upstream).toBe(0);
    expect(bad.data.publishIntegration.userErrors.map((error: any) => error.field.join('.'))).toEqual([
      'name',
      'title',
    ]);
    const member = await g.gql<any>(
      `mutation { publishIntegration(input: { name: "by-ben", organizationId: "${ORG}", title: "By Ben", description: "d", script: "s", scopes: [] }) { userErrors { code } } }`,
      {},
      { token: org.token('ben') },
    );
    expect(member.data.publishIntegration.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
    const noName = await g.gql<any>(
      `mutation { uninstallIntegration(input: { installationId: "abc" }) { userErrors { code field } } }`,
    );
    expect(noName.data.uninstallIntegration.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['integrationName'] },
    ]);
  });
});

import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO } from '../../src/platform/demo-data.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';

const U = DEMO.users;

let g: TestGateway;
let receiver: Server;
let endpoint: string;
const deliveries: Array<{ headers: IncomingHttpHeaders; body: Buffer }> = [];

beforeAll(async () => {
  g = await startTestGateway({ deliveryRetryBaseMs: 10 });
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
    const result = await g.gql<any>(`{ integration(name: "video-embeds") {
      id name title version visibility target canAdmin owner { platformId } blocks { id blockId title urlUnfurl }
      installations { totalCount nodes { status organization { platformId } spaceInstallations { nodes { status space { title } } } } }
      spaceInstallations { totalCount nodes { status spaceId space { title } installation { platformId } } }
      events(first: 5) { totalCount nodes { type status createdAt payload installation { platformId } } }
    } }`);
    expect(result.errors).toBeUndefined();
    const integration = result.data.integration;
    expect(integration).toMatchObject({
      name: 'video-embeds',
      visibility: 'PUBLIC',
      canAdmin: true,
      owner: { platformId: 'acme' },
    });
    expect(integration.blocks.length).toBeGreaterThan(0);
    // A block's id is unique across integrations (block ids are only within one), its own id apart.
    for (const block of integration.blocks) {
      expect(Buffer.from(block.id, 'base64').toString()).toBe(`IntegrationBlock:video-embeds/${block.blockId}`);
    }
    expect(
      integration.installations.nodes.map((node: any) => [node.organization.platformId, node.status]).sort(),
    ).toEqual([
      ['acme', 'ACTIVE'],
      ['globex', 'PENDING'],
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
        id: (await ok(`{ integration(name: "video-embeds") { events(first: 1) { nodes { id } } } }`)).integration.events
          .nodes[0].id,
      },
    );
    expect(event.node.integration.name).toBe('video-embeds');
    expect(Array.isArray(event.node.trace)).toBe(true);

    // A private integration is for the members of its owner.
    const sites = await ok(
      `{ integration(name: "acme-analytics") { visibility siteInstallations { nodes { site { title } } } } }`,
    );
    expect(sites.integration).toMatchObject({
      visibility: 'PRIVATE',
      siteInstallations: { nodes: [{ site: { title: 'Acme Docs' } }] },
    });
    const outsider = await g.gql<any>(
      `{ integration(name: "acme-analytics") { name } }`,
      {},
      { token: g.platform.token(U.ivy) },
    );
    expect(outsider.data.integration).toBeNull();
    expect(outsider.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
    const listed = await g.gql<any>(
      `{ integrations(search: "video") { totalCount nodes { name owner { title } } } }`,
      {},
      { token: g.platform.token(U.ivy) },
    );
    expect(listed.data.integrations.nodes).toEqual([{ name: 'video-embeds', owner: { title: expect.any(String) } }]);
    // The owner comes with the integration.
    expect(listed.upstreamRequests).toEqual(['GET /v1/integrations?limit=50&search=video']);
    const byExternalId = await ok(
      `{ integration(name: "video-embeds") { spaceInstallations(externalId: "no-such-id") { totalCount } } }`,
    );
    expect(byExternalId.integration.spaceInstallations.totalCount).toBe(0);
  });

  it('lists the integrations available to an organization, with filters and pages, one request a page', async () => {
    const first = await g.gql<any>(`{ organization(id: "acme") {
      integrations(first: 1) { totalCount pageInfo { hasNextPage endCursor } nodes { name visibility owner { title } } }
    } }`);
    expect(first.errors).toBeUndefined();
    expect(first.data.organization.integrations).toEqual({
      totalCount: 2,
      pageInfo: { hasNextPage: true, endCursor: expect.any(String) },
      nodes: [{ name: 'acme-analytics', visibility: 'PRIVATE', owner: { title: 'Acme Docs' } }],
    });
    // The owner comes with each integration: no request for it.
    expect(first.upstreamRequests).toEqual(['GET /v1/orgs/acme', 'GET /v1/orgs/acme/integrations?limit=1']);

    const next = await g.gql<any>(
      `query ($after: String) { organization(id: "acme") { integrations(first: 1, after: $after) {
        pageInfo { hasNextPage } nodes { name }
      } } }`,
      { after: first.data.organization.integrations.pageInfo.endCursor },
    );
    expect(next.data.organization.integrations).toEqual({
      pageInfo: { hasNextPage: false },
      nodes: [{ name: 'video-embeds' }],
    });
    expect(next.upstreamRequests).toHaveLength(2);

    const filtered = await g.gql<any>(`{ organization(id: "acme") {
      analytics: integrations(category: ANALYTICS, target: SITE, owner: "acme") { nodes { name } }
      blocks: integrations(blocks: true, blockDomain: "videos.acme.test", search: "video") { nodes { name } }
      none: integrations(contentSources: true, scope: OPENAPI_READ) { totalCount }
    } }`);
    expect(filtered.errors).toBeUndefined();
    expect(filtered.data.organization).toEqual({
      analytics: { nodes: [{ name: 'acme-analytics' }] },
      blocks: { nodes: [{ name: 'video-embeds' }] },
      none: { totalCount: 0 },
    });
    expect([...filtered.upstreamRequests].sort()).toEqual([
      'GET /v1/orgs/acme',
      'GET /v1/orgs/acme/integrations?blockDomain=videos.acme.test&blocks=true&limit=50&search=video',
      'GET /v1/orgs/acme/integrations?category=analytics&limit=50&owner=acme&target=site',
      // Only the count is asked for: one item is enough.
      'GET /v1/orgs/acme/integrations?contentSources=true&limit=1&scope=openapi%3Aread',
    ]);

    // Acme's private integration is not available to Globex.
    const globex = await ok(`{ organization(id: "globex") { integrations { nodes { name } } } }`);
    expect(globex.organization.integrations.nodes).toEqual([{ name: 'video-embeds' }]);
    // A guest of Acme may read the organization, not its integrations.
    const guest = await g.gql<any>(
      `{ organization(id: "acme") { title integrations { totalCount } } }`,
      {},
      { token: g.platform.token(U.gus) },
    );
    expect(guest.data.organization).toEqual({ title: 'Acme Docs', integrations: null });
    expect(guest.errors![0]!.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });

  it('lists the integrations installed on a space, searched by name, one request a page', async () => {
    const spaceId = g.platform.spaceId('Release notes');
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
        nodes: [{ name: 'video-embeds', owner: { title: 'Acme Docs' } }],
      },
      none: { totalCount: 0 },
    });
    expect([...result.upstreamRequests].sort()).toEqual([
      `GET /v1/spaces/${spaceId}`,
      `GET /v1/spaces/${spaceId}/integrations?limit=1`,
      `GET /v1/spaces/${spaceId}/integrations?limit=1&search=nothing+like+it`,
    ]);
    // Not enabled on another space of Acme.
    const other = await ok(`query ($id: ID!) { space(id: $id) { integrations { totalCount nodes { name } } } }`, {
      id: g.platform.spaceId('Runbooks'),
    });
    expect(other.space.integrations).toEqual({ totalCount: 0, nodes: [] });
  });

  it('answers the icon as the signed URL the platform serves it at', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const published = await ok(
      `mutation ($icon: String!) {
      publishIntegration(input: { name: "gw-icon", organizationId: "acme", title: "Icon", description: "Has an icon.", script: "export default {}", scopes: [], icon: $icon }) {
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
      publishIntegration(input: { name: "gw-hooks", organizationId: "acme", title: "Hooks", description: "Receives events.", script: "export default {}",
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
      `mutation { installIntegration(input: { integrationName: "gw-hooks", organizationId: "acme" }) { installation { id platformId status } userErrors { code } } }`,
    );
    const installation = installed.installIntegration.installation;
    expect(installation.status).toBe('PENDING');
    const again = await g.gql<any>(
      `mutation { installIntegration(input: { integrationName: "gw-hooks", organizationId: "acme" }) { userErrors { code } } }`,
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

    const space = g.platform.spaceId('Getting started');
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
    const sites = await ok(`{ organization(id: "acme") { sites(first: 1) { nodes { id title } } } }`);
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
      publishIntegration(input: { name: "gw-failing", organizationId: "globex", title: "Failing", description: "Never up.", script: "export default {}", scopes: [], endpoint: $endpoint }) { integration { name } userErrors { code } }
    }`,
      { endpoint: failing },
    );
    await ok(
      `mutation { installIntegration(input: { integrationName: "gw-failing", organizationId: "globex" }) { installation { id } userErrors { code } } }`,
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
      `mutation { publishIntegration(input: { name: "bad name", organizationId: "acme", title: "x", description: "d", script: "s", scopes: [] }) { userErrors { field } } }`,
    );
    expect(bad.upstream).toBe(0);
    expect(bad.data.publishIntegration.userErrors.map((error: any) => error.field.join('.'))).toEqual([
      'name',
      'title',
    ]);
    const member = await g.gql<any>(
      `mutation { publishIntegration(input: { name: "by-ben", organizationId: "acme", title: "By Ben", description: "d", script: "s", scopes: [] }) { userErrors { code } } }`,
      {},
      { token: g.platform.token(U.ben) },
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

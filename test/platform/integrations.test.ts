import { execFileSync } from 'node:child_process';
import { lookup } from 'node:dns/promises';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname as osHostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/platform/outbound.js';
import {
  enableIntegration,
  ICON_PNG as PNG,
  installIntegration,
  publication as publicationOf,
  publishSiteAnalytics,
  publishVideoBlock,
} from '../fixtures/integrations.js';
import { addOrg, addUser, type TestOrg } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

const ORG = 'northwind';
const SOUTH = 'southwind';
/** Northwind's hostname, by which a publication may name it. */
const ORG_HOSTNAME = 'northwind-docs';
const SECRET_VALUE = 'super-secret-value-1234';
/** The public integration with a video block, installed on both organizations, enabled on Release notes. */
const VIDEO = 'video-embeds';
/** The private integration of Northwind for its sites, installed on its site. */
const ANALYTICS = 'site-analytics';
/** The domain of VIDEO's block. */
const VIDEO_DOMAIN = 'videos.example.test';

/** A publish body of Northwind with every required field; `extra` adds or replaces fields. */
const publication = (extra: Record<string, unknown> = {}) => publicationOf(ORG, extra);

/** Publishing `name` with each endpoint is a 400 naming `endpoint` with its reason, and publishes nothing. */
async function expectEndpointsRefused(
  platform: TestPlatform,
  name: string,
  endpoints: ReadonlyArray<ReadonlyArray<string>>,
): Promise<void> {
  for (const [endpoint, reason] of endpoints) {
    const answer = await platform.api('POST', `/integrations/${name}`, { body: publication({ endpoint }) });
    expect([endpoint, answer.status, answer.body]).toEqual([
      endpoint,
      400,
      { error: { code: 400, message: `Invalid body field "endpoint": ${reason}` } },
    ]);
  }
  expect((await platform.api('GET', `/integrations/${name}`)).status).toBe(404);
}

/** The organizations of a platform made by `organizations`. */
interface Orgs {
  org: TestOrg;
  south: TestOrg;
  /** Northwind's public space. */
  releaseNotes: string;
  /** Northwind's private space, where finn has an `edit` grant. */
  runbooks: string;
  /** Northwind's site, of Release notes. */
  site: string;
  /** Southwind's space. */
  developerPortal: string;
}

/**
 * Northwind (hostname `northwind-docs`): ada admin, ben `create`, finn `read` (with `edit` on the private
 * Runbooks), gus a guest; a public space Release notes and a site of it. Southwind: ada admin, hana `edit`; a
 * space Developer portal and a site of it. Everyone's token: `org.token(key)` (hana's: `south.token('hana')`).
 */
async function organizations(p: TestPlatform): Promise<Orgs> {
  const users = { ada: addUser(p, 'ada') };
  const org = addOrg(p, {
    id: ORG,
    title: 'Northwind Docs',
    members: { ada: 'admin', ben: 'create', finn: 'read', gus: null },
    users,
  });
  const south = addOrg(p, { id: SOUTH, title: 'Southwind', members: { ada: 'admin', hana: 'edit' }, users });
  expect((await p.api('PATCH', `/orgs/${ORG}`, { body: { hostname: ORG_HOSTNAME } })).status).toBe(200);
  const releaseNotes = await org.space('Release notes', { visibility: 'public' });
  const runbooks = await org.space('Runbooks', { visibility: 'private' });
  await org.grant({ space: runbooks }, 'edit', { users: ['finn'] });
  const site = await org.site('Northwind Docs', { spaces: [releaseNotes] });
  const developerPortal = await south.space('Developer portal');
  await south.site('Southwind developers', { spaces: [developerPortal] });
  return { org, south, releaseNotes, runbooks, site, developerPortal };
}

/**
 * VIDEO, public: installed on Northwind (active, a channel configured) and enabled on Release notes alone, and
 * installed on Southwind (pending: no channel). ANALYTICS, private to Northwind: installed there, on its site alone.
 */
async function integrations({ org, south, releaseNotes, site }: Orgs): Promise<void> {
  await publishVideoBlock(org, VIDEO, { domain: VIDEO_DOMAIN });
  const video = await installIntegration(org, VIDEO, { configuration: { channel: 'northwind' } });
  await enableIntegration(org, VIDEO, video, { space: releaseNotes }, { configuration: { quality: 'hd' } });
  await installIntegration(south, VIDEO);
  await publishSiteAnalytics(org, ANALYTICS);
  const analytics = await installIntegration(org, ANALYTICS);
  await enableIntegration(org, ANALYTICS, analytics, { site }, { configuration: { trackingId: 'NW-0001' } });
}

/** A receiver of deliveries on loopback: records each request, answers the statuses queued (200 once they run out). */
interface Receiver {
  url: string;
  requests: Array<{ headers: IncomingHttpHeaders; body: Buffer }>;
  statuses: number[];
  close(): Promise<void>;
}

/** `answer`: the body of every answer. */
async function receiver(answer = 'ok'): Promise<Receiver> {
  const requests: Receiver['requests'] = [];
  const statuses: number[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({ headers: request.headers, body: Buffer.concat(chunks) });
      response.statusCode = statuses.shift() ?? 200;
      response.end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    requests,
    statuses,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The fields of a multipart delivery, parsed as a receiver would. */
async function fields(delivery: {
  headers: IncomingHttpHeaders;
  body: Buffer;
}): Promise<{ event: any; environment: any }> {
  const form = await new Response(new Uint8Array(delivery.body), {
    headers: { 'content-type': String(delivery.headers['content-type']) },
  }).formData();
  return { event: JSON.parse(String(form.get('event'))), environment: JSON.parse(String(form.get('environment'))) };
}

/** Checks `X-GitBook-Signature` as a receiver does. */
function signatureHolds(delivery: { headers: IncomingHttpHeaders; body: Buffer }, secret: string): boolean {
  const header = String(delivery.headers['x-gitbook-signature']);
  const { t, v1 } = Object.fromEntries(header.split(',').map((part) => part.split('=') as [string, string]));
  const expected = createHmac('sha256', secret).update(`${t}.`).update(delivery.body).digest('hex');
  return v1 === expected && Math.abs(Date.now() / 1000 - Number(t)) < 300;
}

describe('publishing and reading integrations', () => {
  let p: TestPlatform;
  let o: Orgs;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false });
    o = await organizations(p);
    await integrations(o);
  });
  afterAll(async () => {
    await p?.destroy();
  });

  it('publishes an integration, then new versions of it, owned by the organization, for its admins only', async () => {
    const first = await p.api('POST', '/integrations/test-hooks', {
      body: publication({ organization: ORG_HOSTNAME, icon: PNG, previewImages: [PNG, PNG] }),
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toMatchObject({
      object: 'integration',
      name: 'test-hooks',
      version: 1,
      title: 'Test hooks',
      visibility: 'private',
      target: 'all',
      verified: false,
      scopes: ['space:content:read'],
      categories: [],
      externalLinks: [],
      owner: { id: ORG },
      permissions: { admin: true },
    });
    expect(first.body.previewImages).toHaveLength(2);
    const second = await p.api('POST', '/integrations/test-hooks', {
      body: publication({ title: 'Test hooks v2', visibility: 'public' }),
    });
    expect(second.body).toMatchObject({ version: 2, title: 'Test hooks v2', visibility: 'public', previewImages: [] });
    // Another organization cannot take the name; a member who is not an admin cannot publish.
    expect(
      (await p.api('POST', '/integrations/test-hooks', { body: publication({ organization: SOUTH }) })).status,
    ).toBe(409);
    expect(
      (await p.api('POST', '/integrations/other', { token: o.org.token('ben'), body: publication() })).status,
    ).toBe(403);
    expect(
      (await p.api('POST', '/integrations/other', { token: o.south.token('hana'), body: publication() })).status,
    ).toBe(404);
    expect((await p.api('POST', '/integrations/other', { body: publication({ organization: 'nope' }) })).status).toBe(
      404,
    );
  });

  it('refuses what the limits forbid, naming the field', async () => {
    const refusal = async (name: string, extra: Record<string, unknown>) => {
      const answer = await p.api('POST', `/integrations/${name}`, { body: publication(extra) });
      expect(answer.status, JSON.stringify(answer.body)).toBe(400);
      return answer.body.error.message as string;
    };
    expect(await refusal('bad name!', {})).toContain('"integrationName"');
    expect(await refusal('x', { title: 'T' })).toContain('"title"');
    expect(await refusal('x', { description: 'd'.repeat(101) })).toContain('"description"');
    expect(await refusal('x', { summary: 's'.repeat(2049) })).toContain('"summary"');
    expect(await refusal('x', { previewImages: [PNG, PNG, PNG, PNG] })).toContain('"previewImages"');
    expect(await refusal('x', { icon: 'bm90IGFuIGltYWdl' })).toContain('"icon"');
    expect(await refusal('x', { scopes: ['space:everything'] })).toContain('"scopes.0"');
    expect(await refusal('x', { categories: ['games'] })).toContain('"categories.0"');
    const secrets = Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`KEY_${i}`, SECRET_VALUE]));
    const tooMany = await refusal('x', { secrets });
    expect(tooMany).toContain('"secrets"');
    expect(tooMany).not.toContain(SECRET_VALUE);
    expect(
      await refusal('x', { configurations: { account: { properties: { a: { type: 'string' } }, required: ['b'] } } }),
    ).toContain('"configurations.account.required.0"');
    expect(await refusal('x', { endpoint: 'ftp://example.com/hooks' })).toContain('"endpoint"');
    expect(await refusal('x', { endpoint: 'https://user:pass@example.com/hooks' })).not.toContain('pass');
    expect(await refusal('x', { script: undefined })).toContain('"script"');
  });

  it('keeps secrets encrypted and answers them nowhere', async () => {
    const answer = await p.api('POST', '/integrations/secretive', {
      body: publication({ secrets: { API_KEY: SECRET_VALUE } }),
    });
    expect(answer.status).toBe(200);
    expect(JSON.stringify(answer.body)).not.toContain(SECRET_VALUE);
    expect(JSON.stringify((await p.api('GET', '/integrations/secretive')).body)).not.toContain(SECRET_VALUE);
    const stored = p.db
      .prepare("SELECT secrets FROM integrations WHERE name = 'secretive'")
      .pluck(true)
      .get() as string;
    expect(stored).toMatch(/^v1\./);
    expect(stored).not.toContain(SECRET_VALUE);
    // Publishing again without secrets keeps them.
    await p.api('POST', '/integrations/secretive', { body: publication() });
    expect(p.db.prepare("SELECT secrets FROM integrations WHERE name = 'secretive'").pluck(true).get()).not.toBeNull();
  });

  it('lets visibility decide who reads, and lists with filters', async () => {
    // The analytics are private to Northwind: hana (Southwind only) does not find them.
    expect((await p.api('GET', `/integrations/${ANALYTICS}`, { token: o.south.token('hana') })).status).toBe(404);
    expect((await p.api('GET', `/integrations/${ANALYTICS}`, { token: o.org.token('finn') })).status).toBe(200);
    const names = async (query: Record<string, string | number | boolean>, token = p.adminToken) =>
      ((await p.api('GET', '/integrations', { token, query })).body.items as Array<{ name: string }>).map(
        (item) => item.name,
      );
    expect(await names({}, o.south.token('hana'))).not.toContain(ANALYTICS);
    expect(await names({})).toEqual(expect.arrayContaining([VIDEO, ANALYTICS]));
    expect(await names({ blocks: true })).toEqual([VIDEO]);
    expect(await names({ blockDomain: VIDEO_DOMAIN })).toEqual([VIDEO]);
    expect(await names({ category: 'analytics' })).toEqual([ANALYTICS]);
    expect(await names({ scope: 'site:views:read' })).toEqual([ANALYTICS]);
    expect(await names({ target: 'site' })).toContain(ANALYTICS);
    expect(await names({ target: 'space' })).not.toContain(ANALYTICS);
    expect(await names({ search: 'VIDEO' })).toEqual([VIDEO]);
    expect(await names({ owner: SOUTH })).toEqual([]);
    expect((await p.api('GET', '/integrations', { query: { category: 'games' } })).status).toBe(400);
  });

  it('serves the icon at a signed URL', async () => {
    const { body } = await p.api('GET', `/integrations/${VIDEO}`);
    const icon = await fetch(body.urls.icon);
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/png');
    // The signature's first character changed (to another one, whatever it was).
    const tampered = body.urls.icon.replace(
      /sig=(.)/,
      (_match: string, first: string) => `sig=${first === 'x' ? 'y' : 'x'}`,
    );
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('unpublishes: the integration goes, with its installations and events', async () => {
    await p.api('POST', '/integrations/short-lived', { body: publication({ visibility: 'public' }) });
    await p.api('POST', '/integrations/short-lived/installations', { body: { organization: ORG } });
    expect((await p.api('DELETE', '/integrations/short-lived', { token: o.org.token('ben') })).status).toBe(403);
    expect((await p.api('DELETE', '/integrations/short-lived')).status).toBe(205);
    expect((await p.api('DELETE', '/integrations/short-lived')).status).toBe(204);
    expect((await p.api('GET', '/integrations/short-lived')).status).toBe(404);
    expect(
      p.db
        .prepare(
          'SELECT COUNT(*) FROM integration_events e WHERE NOT EXISTS (SELECT 1 FROM integrations i WHERE i.id = e.integration_id)',
        )
        .pluck(true)
        .get(),
    ).toBe(0);
  });
});

describe('the integrations of an organization and of a space', () => {
  let p: TestPlatform;
  let o: Orgs;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false });
    o = await organizations(p);
    await integrations(o);
  });
  afterAll(async () => {
    await p?.destroy();
  });

  const names = async (path: string, query: Record<string, string | number | boolean> = {}, token?: string) => {
    const answer = await p.api('GET', path, { query, ...(token ? { token } : {}) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return (answer.body.items as Array<{ name: string }>).map((item) => item.name);
  };

  it('lists the public integrations with those the organization owns or installed, with filters', async () => {
    const [video, analytics] = [VIDEO, ANALYTICS];
    expect(await names(`/orgs/${ORG}/integrations`)).toEqual([analytics, video]);
    // Private to Northwind: not available to Southwind, even for ada, who is an admin of both.
    expect(await names(`/orgs/${SOUTH}/integrations`)).toEqual([video]);
    // An unlisted integration is available where it is installed, and to its owner.
    await p.api('POST', '/integrations/unlisted-tool', { body: publication({ visibility: 'unlisted' }) });
    expect(await names(`/orgs/${SOUTH}/integrations`)).toEqual([video]);
    expect(await names(`/orgs/${ORG}/integrations`)).toEqual([analytics, 'unlisted-tool', video]);
    const installed = await p.api('POST', '/integrations/unlisted-tool/installations', {
      body: { organization: SOUTH },
    });
    expect(installed.status).toBe(201);
    expect(await names(`/orgs/${SOUTH}/integrations`)).toEqual(['unlisted-tool', video]);

    const northwindWith = (query: Record<string, string | boolean>) => names(`/orgs/${ORG}/integrations`, query);
    expect(await northwindWith({ search: 'VIDEO' })).toEqual([video]);
    expect(await northwindWith({ category: 'analytics' })).toEqual([analytics]);
    expect(await northwindWith({ blockDomain: VIDEO_DOMAIN })).toEqual([video]);
    expect(await northwindWith({ blocks: true })).toEqual([video]);
    expect(await northwindWith({ blocks: false })).toEqual([analytics, 'unlisted-tool']);
    expect(await northwindWith({ contentSources: true })).toEqual([]);
    expect(await northwindWith({ owner: SOUTH })).toEqual([]);
    expect(await northwindWith({ scope: 'site:views:read' })).toEqual([analytics]);
    expect(await northwindWith({ target: 'space' })).toEqual(['unlisted-tool', video]);
    expect((await p.api('GET', `/orgs/${ORG}/integrations`, { query: { scope: 'nope' } })).status).toBe(400);
  });

  it('pages the integrations of an organization', async () => {
    // A third one of Northwind, so that the list takes three pages of one.
    await p.api('POST', '/integrations/paged-tool', { body: publication() });
    const all = await names(`/orgs/${ORG}/integrations`);
    expect(all.length).toBeGreaterThanOrEqual(3);
    const first = await p.api('GET', `/orgs/${ORG}/integrations`, { query: { limit: 1 } });
    expect(first.body).toMatchObject({
      count: all.length,
      next: { page: expect.any(String) },
      items: [{ name: all[0] }],
    });
    const second = await p.api('GET', `/orgs/${ORG}/integrations`, {
      query: { limit: 1, page: first.body.next.page },
    });
    expect(second.body.items.map((item: { name: string }) => item.name)).toEqual([all[1]]);
    const last = await p.api('GET', `/orgs/${ORG}/integrations`, {
      query: { limit: 1000, page: second.body.next.page },
    });
    expect(last.body.next).toBeUndefined();
    expect(last.body.items.map((item: { name: string }) => item.name)).toEqual(all.slice(2));
  });

  it('answers the integrations of an organization to its members only', async () => {
    expect(await names(`/orgs/${ORG}/integrations`, {}, o.org.token('finn'))).toContain(ANALYTICS);
    // A guest of Northwind has no organization role; Southwind's hana is no member of Northwind.
    expect((await p.api('GET', `/orgs/${ORG}/integrations`, { token: o.org.token('gus') })).status).toBe(403);
    expect((await p.api('GET', `/orgs/${ORG}/integrations`, { token: o.south.token('hana') })).status).toBe(404);
    expect((await p.api('GET', '/orgs/no-such-org/integrations')).status).toBe(404);
  });

  it('lists the integrations installed on a space, searched by name', async () => {
    const [video, analytics] = [VIDEO, ANALYTICS];
    const releaseNotes = `/spaces/${o.releaseNotes}/integrations`;
    const runbooks = `/spaces/${o.runbooks}/integrations`;
    // Video embeds is enabled on Release notes alone.
    expect(await names(releaseNotes)).toEqual([video]);
    expect(await names(runbooks)).toEqual([]);
    // An installation covering every space lists its integration on each; one for sites only does not.
    await p.api('POST', '/integrations/space-tool', { body: publication({ visibility: 'unlisted' }) });
    const tool = await p.api('POST', '/integrations/space-tool/installations', { body: { organization: ORG } });
    expect(tool.status).toBe(201);
    const everySpace = { body: { space_selection: 'all' } };
    expect((await p.api('PATCH', `/integrations/space-tool/installations/${tool.body.id}`, everySpace)).status).toBe(
      200,
    );
    const sitesOnly = (await p.api('GET', `/integrations/${analytics}/installations`)).body.items[0];
    expect((await p.api('PATCH', `/integrations/${analytics}/installations/${sitesOnly.id}`, everySpace)).status).toBe(
      200,
    );
    expect(await names(runbooks)).toEqual(['space-tool']);
    expect(await names(releaseNotes)).toEqual(['space-tool', video]);
    expect(await names(releaseNotes, { search: 'VIDEO' })).toEqual([video]);
    expect(await names(releaseNotes, { search: 'nothing like it' })).toEqual([]);

    const first = await p.api('GET', releaseNotes, { query: { limit: 1 } });
    expect(first.body).toMatchObject({
      count: 2,
      next: { page: expect.any(String) },
      items: [{ name: 'space-tool' }],
    });
    const second = await p.api('GET', releaseNotes, { query: { limit: 1, page: first.body.next.page } });
    expect(second.body.next).toBeUndefined();
    expect(second.body.items.map((item: { name: string }) => item.name)).toEqual([video]);
  });

  it('answers the integrations of a space to those who can read the space', async () => {
    const runbooks = `/spaces/${o.runbooks}/integrations`;
    // Runbooks is private: finn reads it by a direct grant; hana (Southwind) and gus (a guest of Northwind) cannot.
    expect((await p.api('GET', runbooks, { token: o.org.token('finn') })).status).toBe(200);
    expect((await p.api('GET', runbooks, { token: o.south.token('hana') })).status).toBe(404);
    expect((await p.api('GET', runbooks, { token: o.org.token('gus') })).status).toBe(404);
    expect((await p.api('GET', '/spaces/no-such-space/integrations')).status).toBe(404);
  });
});

describe('installations and their events', () => {
  let p: TestPlatform;
  let o: Orgs;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false });
    o = await organizations(p);
  });
  afterAll(async () => {
    await p?.destroy();
  });

  const configurations = {
    account: {
      properties: { token: { type: 'string', title: 'Token' }, level: { type: 'string', enum: ['low', 'high'] } },
      required: ['token'],
    },
    space: { properties: { notify: { type: 'boolean' } } },
    site: { properties: { code: { type: 'string' } }, required: ['code'] },
  };

  it('installs, configures, enables on a space and a site, and uninstalls, each with its event', async () => {
    await p.api('POST', '/integrations/lifecycle', { body: publication({ configurations, visibility: 'public' }) });
    const base = '/integrations/lifecycle/installations';
    const installed = await p.api('POST', base, { body: { organization: SOUTH } });
    expect(installed.status).toBe(201);
    expect(installed.headers?.get('location')).toBe(installed.body.urls.location);
    // The account configuration requires a token: pending until it has one.
    expect(installed.body).toMatchObject({
      status: 'pending',
      space_selection: 'selected',
      site_selection: 'selected',
      spaces: 0,
      configuration: {},
      target: { organization: SOUTH },
    });
    const installation = `${base}/${installed.body.id}`;
    expect((await p.api('POST', base, { body: { organization: SOUTH } })).status).toBe(409);
    expect((await p.api('POST', base, { token: o.south.token('hana'), body: { organization: ORG } })).status).toBe(404);

    const refused = await p.api('PATCH', installation, { body: { configuration: { token: 3 } } });
    expect(refused.body.error.message).toContain('"configuration.token"');
    expect(
      (await p.api('PATCH', installation, { body: { configuration: { token: 't', level: 'medium' } } })).body.error
        .message,
    ).toContain('"configuration.level"');
    expect((await p.api('PATCH', installation, { body: { externalIds: ['1', '2', '3', '4', '5', '6'] } })).status).toBe(
      400,
    );
    const configured = await p.api('PATCH', installation, {
      body: { configuration: { token: 't' }, externalIds: ['ext-1'] },
    });
    expect(configured.body).toMatchObject({ status: 'active', configuration: { token: 't' }, externalIds: ['ext-1'] });
    expect((await p.api('GET', base, { query: { externalId: 'ext-1' } })).body.items).toHaveLength(1);
    expect((await p.api('GET', base, { query: { externalId: 'nope' } })).body.items).toHaveLength(0);
    // hana edits in Southwind but is no admin there.
    expect(
      (await p.api('PATCH', installation, { token: o.south.token('hana'), body: { externalIds: [] } })).status,
    ).toBe(404);

    const spaceId = o.developerPortal;
    const onSpace = await p.api('POST', `${installation}/spaces`, {
      body: { space: spaceId },
      query: { extended: true },
    });
    expect(onSpace.status, JSON.stringify(onSpace.body)).toBe(201);
    expect(onSpace.body).toMatchObject({
      integration: 'lifecycle',
      installation: installed.body.id,
      status: 'active',
      configuration: {},
      space: { id: spaceId, object: 'space' },
    });
    expect((await p.api('POST', `${installation}/spaces`, { body: { space: o.releaseNotes } })).status).toBe(404);
    const spaceItem = await p.api('PATCH', `${installation}/spaces/${spaceId}`, {
      body: { configuration: { notify: true } },
    });
    expect(spaceItem.body).toMatchObject({ configuration: { notify: true }, space: spaceId });
    expect((await p.api('GET', '/integrations/lifecycle/spaces')).body.items).toHaveLength(1);
    expect((await p.api('GET', installation)).body.spaces).toBe(1);

    const siteId = p.db.prepare('SELECT id FROM sites WHERE org_id = ? LIMIT 1').pluck(true).get(SOUTH) as string;
    const onSite = await p.api('POST', `${installation}/sites`, { body: { siteId } });
    expect(onSite.body).toMatchObject({ status: 'pending', site: siteId });
    await p.api('PATCH', `${installation}/sites/${siteId}`, { body: { configuration: { code: 'G-1' } } });
    expect((await p.api('GET', `${installation}/sites/${siteId}`)).body).toMatchObject({
      status: 'active',
      configuration: { code: 'G-1' },
    });
    expect((await p.api('DELETE', `${installation}/sites/${siteId}`)).status).toBe(205);
    expect((await p.api('DELETE', `${installation}/sites/${siteId}`)).status).toBe(204);

    // With every space selected, the installation covers every space of Southwind.
    const all = await p.api('PATCH', installation, { body: { space_selection: 'all' } });
    const southSpaces = p.db
      .prepare('SELECT COUNT(*) FROM spaces WHERE org_id = ? AND deleted_at IS NULL')
      .pluck(true)
      .get(SOUTH);
    expect(all.body.spaces).toBe(southSpaces);

    expect((await p.api('DELETE', installation)).status).toBe(205);
    expect((await p.api('DELETE', installation)).status).toBe(204);

    const events = (await p.api('GET', '/integrations/lifecycle/events')).body.items as Array<{
      id: string;
      payload: any;
      status: string;
    }>;
    expect(events.map((event) => event.payload.type)).toEqual([
      'installation_deleted',
      'installation_setup',
      'site_installation_deleted',
      'site_installation_setup',
      'site_installation_setup',
      'space_installation_setup',
      'space_installation_setup',
      'installation_setup',
      'installation_setup',
    ]);
    expect(events.every((event) => event.status === 'success')).toBe(true);
    expect(events[0]!.payload).toEqual({
      eventId: events[0]!.id,
      type: 'installation_deleted',
      installationId: installed.body.id,
      previous: { configuration: { token: 't' } },
    });
    expect(events[7]!.payload).toMatchObject({
      type: 'installation_setup',
      status: 'active',
      previous: { status: 'pending', configuration: {} },
    });
    expect(events[5]!.payload).toMatchObject({
      type: 'space_installation_setup',
      spaceId,
      status: 'active',
      previous: { status: 'active', configuration: {} },
    });
    const one = await p.api('GET', `/integrations/lifecycle/events/${events[0]!.id}`);
    expect(one.body.event).toEqual(events[0]);
    expect(one.body.trace.logs.map((entry: { level: string }) => entry.level)).toEqual(['debug', 'info']);
    // Events are for the developers of the integration.
    expect((await p.api('GET', '/integrations/lifecycle/events', { token: o.south.token('hana') })).status).toBe(403);
    expect((await p.api('GET', '/integrations/lifecycle/events/nope')).status).toBe(404);
  });

  it('refuses to install on a target the integration does not serve', async () => {
    await p.api('POST', '/integrations/sites-only', { body: publication({ target: 'site' }) });
    const installed = await p.api('POST', '/integrations/sites-only/installations', { body: { organization: ORG } });
    const onSpace = await p.api('POST', `/integrations/sites-only/installations/${installed.body.id}/spaces`, {
      body: { space: o.releaseNotes },
    });
    expect(onSpace.status).toBe(400);
    expect(onSpace.body.error.message).toContain('target is site');
  });

  it('records space_content_updated when a change request is merged into a space where it is installed', async () => {
    const spaceId = o.runbooks;
    await p.api('POST', '/integrations/watcher', { body: publication() });
    const installed = await p.api('POST', '/integrations/watcher/installations', { body: { organization: ORG } });
    await p.api('POST', `/integrations/watcher/installations/${installed.body.id}/spaces`, {
      body: { space: spaceId },
    });
    // dee edits in Engineering (finn has an edit grant on Runbooks): dee opens and edits, ada merges.
    const cr = (await p.api('POST', `/spaces/${spaceId}/change-requests`, { body: { subject: 'Watched' } })).body.id;
    const edit = await p.api('POST', `/spaces/${spaceId}/change-requests/${cr}/content`, {
      token: o.org.token('finn'),
      body: { changes: [{ operation: 'insert_page', document: { markdown: '# Watched page\n\nText.\n' } }] },
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    const merged = await p.api('POST', `/spaces/${spaceId}/change-requests/${cr}/merge`, { body: {} });
    expect(merged.body.result).toBe('merge');
    const [latest] = (await p.api('GET', '/integrations/watcher/events')).body.items;
    const revision = (await p.api('GET', `/spaces/${spaceId}`)).body.revision;
    expect(latest.payload).toMatchObject({
      type: 'space_content_updated',
      installationId: installed.body.id,
      spaceId,
      revisionId: revision,
    });
    expect(latest.payload.updatedBy.map((user: { email: string }) => user.email)).toEqual([o.org.user('finn').email]);
  });

  it('records the start and end of a Git Sync of a space where it is installed', async () => {
    const work = mkdtempSync(join(tmpdir(), 'integration-git-'));
    try {
      const git = (args: string[], cwd?: string) =>
        execFileSync('git', args, {
          cwd,
          env: {
            PATH: process.env.PATH,
            GIT_CONFIG_NOSYSTEM: '1',
            HOME: work,
            GIT_AUTHOR_NAME: 'T',
            GIT_AUTHOR_EMAIL: 't@test',
            GIT_COMMITTER_NAME: 'T',
            GIT_COMMITTER_EMAIL: 't@test',
          },
        }).toString();
      const bare = join(work, 'repo.git');
      const tree = join(work, 'tree');
      git(['init', '--bare', '--quiet', '--initial-branch=main', bare]);
      mkdirSync(tree);
      git(['init', '--quiet', '--initial-branch=main'], tree);
      writeFileSync(join(tree, 'README.md'), '# Synced\n\nFrom Git.\n');
      git(['add', '--all'], tree);
      git(['commit', '--quiet', '-m', 'Docs'], tree);
      git(['push', '--quiet', bare, 'main'], tree);
      const commit = git(['rev-parse', 'HEAD'], tree).trim();

      const space = (await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Synced space' } })).body.id as string;
      await p.api('POST', '/integrations/git-watcher', { body: publication() });
      const installed = await p.api('POST', '/integrations/git-watcher/installations', {
        body: { organization: ORG },
      });
      await p.api('POST', `/integrations/git-watcher/installations/${installed.body.id}/spaces`, { body: { space } });
      expect(
        (await p.api('POST', `/spaces/${space}/git/import`, { body: { url: bare, ref: 'refs/heads/main' } })).status,
      ).toBe(204);
      await p.app.jobs.drain();
      const events = (
        (await p.api('GET', '/integrations/git-watcher/events')).body.items as Array<{ payload: any }>
      ).map((event) => event.payload);
      const revision = (await p.api('GET', `/spaces/${space}`)).body.revision;
      expect(events.slice(0, 3)).toMatchObject([
        { type: 'space_gitsync_completed', state: 'success', commitId: commit, revisionId: revision, spaceId: space },
        { type: 'space_content_updated', revisionId: revision },
        { type: 'space_gitsync_started', commitId: commit, spaceId: space },
      ]);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe('delivery to an endpoint', () => {
  let p: TestPlatform;
  let o: Orgs;
  let hooks: Receiver;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false, deliveryRetryBaseMs: 20, deliveryTimeoutMs: 2000 });
    o = await organizations(p);
    hooks = await receiver();
  });
  afterAll(async () => {
    await p?.destroy();
    await hooks?.close();
  });

  it('posts each event as multipart form data, signed with the installation secret', async () => {
    const published = await p.api('POST', '/integrations/delivered', {
      body: publication({ endpoint: hooks.url, secrets: { API_KEY: SECRET_VALUE } }),
    });
    expect(published.body.urls.publicEndpoint).toBe(hooks.url);
    const installed = await p.api('POST', '/integrations/delivered/installations', { body: { organization: ORG } });
    await p.app.jobs.drain();
    expect(hooks.requests).toHaveLength(1);
    const [delivery] = hooks.requests;
    const secret = (await p.api('GET', `/integrations/delivered/installations/${installed.body.id}/signing-secret`))
      .body.secret as string;
    expect(signatureHolds(delivery!, secret)).toBe(true);
    expect(signatureHolds(delivery!, 'another secret')).toBe(false);
    expect(delivery!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const { event, environment } = await fields(delivery!);
    expect(event).toMatchObject({ type: 'installation_setup', installationId: installed.body.id, status: 'active' });
    expect(environment).toMatchObject({
      integration: { name: 'delivered' },
      installation: { id: installed.body.id },
      secrets: { API_KEY: SECRET_VALUE },
    });
    expect(environment.apiEndpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    // The secret of the delivery is for the developers of the integration alone.
    expect(
      (
        await p.api('GET', `/integrations/delivered/installations/${installed.body.id}/signing-secret`, {
          token: o.org.token('ben'),
        })
      ).status,
    ).toBe(403);

    const answer = await p.api('GET', `/integrations/delivered/events/${event.eventId}`);
    expect(answer.body.event.status).toBe('success');
    const messages = answer.body.trace.logs.map((entry: { message: string }) => entry.message);
    expect(messages[1]).toMatch(
      /^Attempt 1 of 3: delivered to http:\/\/127\.0\.0\.1:\d+\/hooks, answered 200 in \d+ ms$/,
    );
    expect(JSON.stringify(answer.body)).not.toContain(SECRET_VALUE);
    expect(JSON.stringify(answer.body)).not.toContain(secret);
  });

  it('retries a failing endpoint with a growing wait, then records the event as failed', async () => {
    hooks.requests.length = 0;
    hooks.statuses.push(500, 502, 503);
    const installed = await p.api('POST', '/integrations/delivered/installations', { body: { organization: SOUTH } });
    await p.app.jobs.drain();
    expect(hooks.requests).toHaveLength(3);
    const [latest] = (await p.api('GET', '/integrations/delivered/events')).body.items;
    expect(latest).toMatchObject({ installationId: installed.body.id, status: 'failed' });
    const { trace } = (await p.api('GET', `/integrations/delivered/events/${latest.id}`)).body;
    const messages = trace.logs.map((entry: { message: string }) =>
      entry.message.replace(/\d+ ms/g, 'N ms').replace(/:\d+\//, ':PORT/'),
    );
    expect(messages).toEqual([
      'Event installation_setup recorded',
      'Attempt 1 of 3 failed: http://127.0.0.1:PORT/hooks answered 500 in N ms; next attempt in N ms',
      'Attempt 2 of 3 failed: http://127.0.0.1:PORT/hooks answered 502 in N ms; next attempt in N ms',
      'Attempt 3 of 3 failed: http://127.0.0.1:PORT/hooks answered 503 in N ms',
      'Delivery failed: the event was not delivered',
    ]);
    expect(trace.logs[1].message).toContain('next attempt in 20 ms');
    expect(trace.logs[2].message).toContain('next attempt in 40 ms');
    expect(trace.logs.map((entry: { level: string }) => entry.level)).toEqual([
      'debug',
      'warn',
      'warn',
      'error',
      'error',
    ]);
  });

  it('records an unreachable endpoint as failed too', async () => {
    const closed = await receiver();
    await closed.close();
    await p.api('POST', '/integrations/unreachable', { body: publication({ endpoint: closed.url }) });
    await p.api('POST', '/integrations/unreachable/installations', { body: { organization: ORG } });
    await p.app.jobs.drain();
    const [event] = (await p.api('GET', '/integrations/unreachable/events')).body.items;
    expect(event.status).toBe('failed');
    const { trace } = (await p.api('GET', `/integrations/unreachable/events/${event.id}`)).body;
    expect(trace.logs[1].message).toMatch(/could not be reached/);
  });
});

describe('endpoints outside demo and test runs (PLATFORM_ALLOW_PRIVATE_URLS off)', () => {
  let p: TestPlatform;
  beforeAll(async () => {
    p = await startTestPlatform({ seed: false, allowPrivateUrls: false });
    addOrg(p, { id: ORG, members: { ada: 'admin' } });
  });
  afterAll(async () => {
    await p?.destroy();
  });

  it('refuses at publishing an endpoint on a loopback name, a private address or a name that resolves to one', async () => {
    const hostname = osHostname();
    // The machine's own name resolves to one of its addresses: private or loopback on any test machine.
    const ownAddresses = (await lookup(hostname, { all: true }).catch(() => [])).map((entry) => entry.address);
    const endpoints = [
      ['https://localhost.:4722/h', 'must not be a private or loopback address'],
      ['https://api.localhost/h', 'must not be a private or loopback address'],
      ['https://127.0.0.1:4722/h', 'must not be a private or loopback address'],
      ['https://[::1]/h', 'must not be a private or loopback address'],
      ['https://10.1.2.3/h', 'must not be a private or loopback address'],
      ['https://169.254.169.254/latest', 'must not be a private or loopback address'],
      ['https://[::ffff:192.168.0.1]/h', 'must not be a private or loopback address'],
      ['https://[2002:c0a8:1::1]/h', 'must not be a private or loopback address'],
      ['https://[2001:0:808:808::f5ff:fffe]/h', 'must not be a private or loopback address'],
      ['http://127.0.0.1:4722/h', 'must be an https URL'],
      [
        'https://nowhere.invalid/h',
        'must be on a public address (nowhere.invalid does not resolve to public addresses only)',
      ],
      ...(ownAddresses.length > 0 && ownAddresses.every(isPrivateAddress)
        ? [
            [
              `https://${hostname}/h`,
              `must be on a public address (${hostname.toLowerCase()} does not resolve to public addresses only)`,
            ],
          ]
        : []),
    ];
    await expectEndpointsRefused(p, 'guarded', endpoints);
  });
});

describe('event receivers (PLATFORM_EVENT_RECEIVERS) with private URLs off', () => {
  /** What the receiver answers each request: the end of a rendered UI's flow, taken by deliveries as any body. */
  const RENDERED = { type: 'complete', returnValue: { saved: true } };
  let p: TestPlatform;
  let hooks: Receiver;
  let other: Receiver;
  beforeAll(async () => {
    hooks = await receiver(JSON.stringify(RENDERED));
    other = await receiver();
    p = await startTestPlatform({
      seed: false,
      allowPrivateUrls: false,
      eventReceivers: [hooks.url],
      deliveryRetryBaseMs: 20,
    });
    addOrg(p, { id: ORG, members: { ada: 'admin' } });
  });
  afterAll(async () => {
    await p?.destroy();
    await hooks?.close();
    await other?.close();
  });

  /** Every URL beside the receiver, on its machine: refused as without it, with the reason. */
  const beside = () => [
    [hooks.url.replace(/\/hooks$/, '/other'), 'must be an https URL'],
    [`${hooks.url}?to=other`, 'must be an https URL'],
    [other.url, 'must be an https URL'],
    [hooks.url.replace('127.0.0.1', 'localhost'), 'must be an https URL'],
    [hooks.url.replace(/^http:/, 'https:'), 'must not be a private or loopback address'],
    [
      hooks.url.replace('http://', 'http://user:pw@'),
      'must not contain credentials: the platform signs every delivery instead',
    ],
  ];

  it('accepts exactly the receiver as an endpoint, and delivers events and render calls to it, signed', async () => {
    await expectEndpointsRefused(p, 'beside', beside());

    const published = await p.api('POST', '/integrations/received', { body: publication({ endpoint: hooks.url }) });
    expect([published.status, published.body.urls.publicEndpoint]).toEqual([200, hooks.url]);
    const installed = await p.api('POST', '/integrations/received/installations', { body: { organization: ORG } });
    await p.app.jobs.drain();
    expect(hooks.requests).toHaveLength(1);
    const secret = (await p.api('GET', `/integrations/received/installations/${installed.body.id}/signing-secret`)).body
      .secret as string;
    expect(signatureHolds(hooks.requests[0]!, secret)).toBe(true);
    expect((await fields(hooks.requests[0]!)).event).toMatchObject({
      type: 'installation_setup',
      installationId: installed.body.id,
    });
    const [event] = (await p.api('GET', '/integrations/received/events')).body.items;
    expect(event.status).toBe('success');

    const rendered = await p.api('POST', '/integrations/received/render', {
      body: { componentId: 'counter', props: {}, context: { type: 'organization', organizationId: ORG } },
    });
    expect([rendered.status, rendered.body]).toEqual([200, RENDERED]);
    expect(hooks.requests).toHaveLength(2);
    expect(hooks.requests[1]!.headers['x-gitbook-event-type']).toBe('ui_render');
    expect(signatureHolds(hooks.requests[1]!, secret)).toBe(true);
    expect(other.requests).toHaveLength(0);
  });

  it('accepts exactly the receiver as a development tunnel, and delivers to it', async () => {
    await p.api('POST', '/integrations/tunneled', { body: publication() });
    for (const [tunnelUrl, reason] of beside()) {
      const answer = await p.api('PUT', '/integrations/tunneled/dev', { body: { tunnelUrl } });
      expect([tunnelUrl, answer.status, answer.body]).toEqual([
        tunnelUrl,
        400,
        { error: { code: 400, message: `Invalid body field "tunnelUrl": ${reason}` } },
      ]);
    }
    hooks.requests.length = 0;
    expect((await p.api('PUT', '/integrations/tunneled/dev', { body: { tunnelUrl: hooks.url } })).status).toBe(204);
    const installed = await p.api('POST', '/integrations/tunneled/installations', { body: { organization: ORG } });
    await p.app.jobs.drain();
    expect(hooks.requests).toHaveLength(1);
    const { event, environment } = await fields(hooks.requests[0]!);
    expect([event.type, event.installationId, environment.integration.name]).toEqual([
      'installation_setup',
      installed.body.id,
      'tunneled',
    ]);
    expect(other.requests).toHaveLength(0);
  });
});

describe('delivery across a restart', () => {
  it('runs a task queued before a restart once it comes due, as a task event', async () => {
    const hooks = await receiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'integration-task-restart-'));
    try {
      const before = await startTestPlatform({ dataDir, seed: false });
      addOrg(before, { id: ORG, members: { ada: 'admin' } });
      await before.api('POST', '/integrations/later', { body: publication({ endpoint: hooks.url }) });
      const queued = await before.api('POST', '/integrations/later/tasks', {
        body: { task: { step: 'resume' }, schedule: 600 },
      });
      expect(queued.status).toBe(204);
      await before.destroy();
      expect(hooks.requests).toHaveLength(0);

      const after = await startTestPlatform({ dataDir, seed: false });
      try {
        // Ten minutes later.
        after.db.prepare("UPDATE jobs SET run_after = ? WHERE kind = 'integration-task'").run(Date.now());
        await after.app.jobs.drain();
        const delivered = await Promise.all(hooks.requests.map(fields));
        expect(delivered.map(({ event }) => [event.type, event.task])).toEqual([['task', { step: 'resume' }]]);
      } finally {
        await after.destroy();
      }
    } finally {
      await hooks.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('delivers what was pending when the platform stopped, once', async () => {
    const RETRY_MS = 2_000;
    const hooks = await receiver();
    const dataDir = mkdtempSync(join(tmpdir(), 'integration-restart-'));
    try {
      // A long wait before retries (long enough that a busy machine counts the queue before the
      // retry is due): the first attempt fails, and the platform stops while the retry and the
      // events after it wait in the queue.
      const before = await startTestPlatform({ dataDir, seed: false, deliveryRetryBaseMs: RETRY_MS });
      const token = addOrg(before, { id: ORG, members: { ada: 'admin' } }).token('ada');
      await before.api('POST', '/integrations/restarted', { body: publication({ endpoint: hooks.url }) });
      hooks.statuses.push(500);
      const installed = await before.api('POST', '/integrations/restarted/installations', {
        body: { organization: ORG },
      });
      const installation = `/integrations/restarted/installations/${installed.body.id}`;
      await before.api('PATCH', installation, { body: { externalIds: ['a'] } });
      await before.api('PATCH', installation, { body: { externalIds: ['b'] } });
      await until(() => hooks.requests.length > 0);
      expect(hooks.requests).toHaveLength(1);
      const waiting = before.db
        .prepare("SELECT COUNT(*) FROM jobs WHERE kind = 'integration-delivery' AND state = 'queued'")
        .pluck(true)
        .get();
      expect(waiting).toBe(3);
      await before.destroy();

      const after = await startTestPlatform({ dataDir, seed: false, deliveryRetryBaseMs: RETRY_MS });
      try {
        await after.app.jobs.drain();
        // One failed attempt, then each of the three events once, in their order.
        const delivered = await Promise.all(hooks.requests.map(fields));
        expect(delivered.map(({ event }) => event.type)).toEqual([
          'installation_setup',
          'installation_setup',
          'installation_setup',
          'installation_setup',
        ]);
        const ids = delivered.slice(1).map(({ event }) => event.eventId);
        expect(new Set(ids).size).toBe(3);
        expect(delivered[0]!.event.eventId).toBe(ids[0]);
        const events = (await after.api('GET', '/integrations/restarted/events', { token })).body.items as Array<{
          status: string;
        }>;
        expect(events.map((event) => event.status)).toEqual(['success', 'success', 'success']);
      } finally {
        await after.destroy();
      }
    } finally {
      await hooks.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

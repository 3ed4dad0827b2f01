import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordResolver } from '../../src/platform/outbound.js';
import { checkHostname } from '../../src/platform/sites/hostnames.js';
import { startTestDns, type TestDns } from '../fixtures/dns.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { buildSite } from '../fixtures/sites.js';

/**
 * Custom hostnames and subdomains end to end (getCustomHostname, dnsRevalidateCustomHostname,
 * removeCustomHostname, getSubdomain): `Site.customHostname` through each status a DNS server the
 * test controls leads its checks to (a job each), offline answers that stay PENDING, the refusals of
 * a revalidation, the removal, and `Organization.subdomain`.
 */

const HOST = 'docs.north-example.com';
const TARGET = 'hosting.docs-platform.example';

let g: TestGateway;
let dns: TestDns;
/** North: ada admin, dee `edit`; South: sam admin. */
let north: TestOrg;
let south: TestOrg;
let siteId: string;

beforeAll(async () => {
  dns = await startTestDns();
  g = await startTestGateway({ seed: false, dnsServer: dns.server });
  north = addOrg(g.platform, { id: 'north', members: { ada: 'admin', dee: 'edit' } });
  south = addOrg(g.platform, { id: 'south', members: { sam: 'admin' } });
  const space = await north.space('Guide');
  // Offline while the site gets its hostname, whose check starts at once.
  dns.failing = true;
  siteId = (await buildSite(north, { title: 'North docs', hostname: HOST, siteSpaces: [{ space }] })).id;
  await g.platform.app.jobs.drain();
});
afterAll(async () => {
  await g.destroy();
  await dns.close();
});

const STATE = `query State($org: ID!, $site: ID!) {
  site(organizationId: $org, id: $site) { hostname customHostname { hostname status isActive site { platformId } } }
}`;

const REVALIDATE = `mutation Revalidate($org: ID, $site: ID!) {
  revalidateCustomHostname(input: { organizationId: $org, siteId: $site }) {
    customHostname { hostname status isActive }
    userErrors { code message field }
  }
}`;

const REMOVE = `mutation Remove($org: ID, $site: ID!) {
  removeCustomHostname(input: { organizationId: $org, siteId: $site }) {
    deleted
    site { hostname customHostname { status } }
    userErrors { code message field }
  }
}`;

async function state(token?: string) {
  const result = await g.gql(STATE, { org: 'north', site: siteId }, token ? { token } : {});
  expect(result.errors).toBeUndefined();
  return result.data.site.customHostname;
}

async function revalidate(token?: string) {
  const result = await g.gql(REVALIDATE, { org: 'north', site: siteId }, token ? { token } : {});
  expect(result.errors).toBeUndefined();
  return { payload: result.data.revalidateCustomHostname, upstream: result.upstreamRequests };
}

/** Revalidates as the admin and answers the status the check found. */
async function checked(): Promise<{ status: string; isActive: boolean }> {
  const { payload } = await revalidate();
  expect(payload.userErrors).toEqual([]);
  await g.platform.app.jobs.drain();
  const { status, isActive } = await state();
  return { status, isActive };
}

describe('custom hostnames (getCustomHostname, dnsRevalidateCustomHostname, removeCustomHostname)', () => {
  it('is checked when set, PENDING while DNS does not answer, then follows what DNS answers; offline it is PENDING again, never LIVE', async () => {
    // The check made when the site got its hostname had no answer.
    expect(dns.questions).toEqual([`CNAME ${HOST}`]);
    const before = await g.gql(STATE, { org: 'north', site: siteId });
    expect(before.data!.site.customHostname).toEqual({
      hostname: HOST,
      status: 'PENDING',
      isActive: false,
      site: { platformId: siteId },
    });
    expect(before.upstreamRequests).toEqual([`GET /v1/orgs/north/sites/${siteId}`, `GET /v1/custom-hostnames/${HOST}`]);

    // The revalidation answers the hostname pending, its check being a job; still offline, it stays so.
    const asked = await revalidate();
    expect(asked.payload).toEqual({
      customHostname: { hostname: HOST, status: 'PENDING', isActive: false },
      userErrors: [],
    });
    expect(asked.upstream).toEqual([
      `GET /v1/orgs/north/sites/${siteId}`,
      `PATCH /v1/custom-hostnames/${HOST}`,
      `GET /v1/custom-hostnames/${HOST}`,
    ]);
    await g.platform.app.jobs.drain();
    expect(await state()).toMatchObject({ status: 'PENDING', isActive: false });

    // Online: no record at all, the name does not exist.
    dns.failing = false;
    expect(await checked()).toEqual({ status: 'DNS_NO_CNAME', isActive: false });

    dns.names.set(HOST, { cname: 'elsewhere.example.net' });
    expect(await checked()).toEqual({ status: 'DNS_WRONG_CNAME', isActive: false });

    // The CAA records of a parent decide when the name has none.
    dns.names.set(HOST, { cname: TARGET });
    dns.names.set('north-example.com', { caa: [{ tag: 'issue', value: 'pki.goog' }] });
    expect(await checked()).toEqual({ status: 'DNS_WRONG_CAA', isActive: false });

    dns.names.set('north-example.com', { caa: [{ tag: 'issue', value: 'letsencrypt.org' }] });
    dns.questions.length = 0;
    expect(await checked()).toEqual({ status: 'LIVE', isActive: true });
    expect(dns.questions).toEqual([`CNAME ${HOST}`, `CAA ${HOST}`, 'CAA north-example.com']);

    // A server that fails (or none at all) is no answer: the hostname is pending, not active.
    dns.failing = true;
    expect(await checked()).toEqual({ status: 'PENDING', isActive: false });
    dns.failing = false;
    expect(await checked()).toEqual({ status: 'LIVE', isActive: true });

    // The platform's answers as the description shapes them.
    const answer = await g.platform.api('GET', `/custom-hostnames/${HOST.toUpperCase()}`);
    expect(answer).toMatchObject({
      status: 200,
      body: {
        object: 'custom-hostname',
        hostname: HOST,
        target: { type: 'site', site: siteId },
        isActive: true,
        status: 'live',
        urls: { location: `${g.platform.url}/custom-hostnames/${HOST}` },
      },
    });
  });

  it('refuses a revalidation while a check is queued, of a name that can never be public, and to non-admins', async () => {
    // A check waiting for its turn (due in an hour) holds the hostname.
    const { lastInsertRowid } = g.platform.db
      .prepare(
        `INSERT INTO jobs (kind, key, payload, state, attempts, max_attempts, run_after, created_at)
         VALUES ('custom-hostname-check', ?, ?, 'queued', 0, 1, ?, ?)`,
      )
      .run(`hostname:${HOST}`, JSON.stringify({ hostname: HOST, siteId }), Date.now() + 3_600_000, '2026-01-01');
    const busy = await revalidate();
    g.platform.db.prepare('DELETE FROM jobs WHERE id = ?').run(lastInsertRowid);
    expect(busy.payload.userErrors).toEqual([
      {
        code: 'CONFLICT',
        message: `A DNS check of ${HOST} is already under way: its status cannot be revalidated yet`,
        field: null,
      },
    ]);

    const dee = await revalidate(north.token('dee'));
    expect(dee.payload.userErrors).toEqual([
      { code: 'FORBIDDEN', message: 'This needs the admin role on the site', field: null },
    ]);
    // A member reads the state; another organization's admin finds neither the site nor the hostname.
    expect((await state(north.token('dee'))).hostname).toBe(HOST);
    const sam = await g.gql(REVALIDATE, { org: 'north', site: siteId }, { token: south.token('sam') });
    expect(sam.data!.revalidateCustomHostname.userErrors).toMatchObject([{ code: 'NOT_FOUND', field: ['siteId'] }]);
    expect(await g.platform.api('GET', `/custom-hostnames/${HOST}`, { token: south.token('sam') })).toMatchObject({
      status: 404,
    });
    expect(await g.platform.api('PATCH', `/custom-hostnames/${HOST}`, { token: south.token('sam') })).toMatchObject({
      status: 404,
    });

    // Checked when set, without a question: a name that can never be public.
    const space = await north.space('Local');
    const local = await buildSite(north, { title: 'Local', hostname: 'docs.north.localhost', siteSpaces: [{ space }] });
    await g.platform.app.jobs.drain();
    const localState = await g.gql(STATE, { org: 'north', site: local.id });
    expect(localState.data!.site.customHostname).toMatchObject({ status: 'INVALID_DOMAIN', isActive: false });
    const refused = await g.gql(REVALIDATE, { org: 'north', site: local.id });
    expect(refused.data!.revalidateCustomHostname).toEqual({
      customHostname: null,
      userErrors: [
        {
          code: 'CONFLICT',
          message:
            'The custom hostname docs.north.localhost cannot be revalidated: it is a name that can never be public',
          field: null,
        },
      ],
    });
  });

  it('removes a site’s hostname: the site has none afterwards, and a second removal deletes nothing', async () => {
    const space = await north.space('Removed');
    const site = await buildSite(north, {
      title: 'Removed',
      hostname: 'help.north-example.com',
      siteSpaces: [{ space }],
    });
    await g.platform.app.jobs.drain();
    const denied = await g.gql(REMOVE, { org: 'north', site: site.id }, { token: north.token('dee') });
    expect(denied.data!.removeCustomHostname.userErrors).toMatchObject([{ code: 'FORBIDDEN' }]);

    const removed = await g.gql(REMOVE, { org: 'north', site: site.id });
    expect(removed.data!.removeCustomHostname).toEqual({
      deleted: true,
      site: { hostname: null, customHostname: null },
      userErrors: [],
    });
    expect(removed.upstreamRequests).toEqual([
      `GET /v1/orgs/north/sites/${site.id}`,
      'DELETE /v1/custom-hostnames/help.north-example.com',
      `GET /v1/orgs/north/sites/${site.id}`,
    ]);
    expect(await g.platform.api('GET', '/custom-hostnames/help.north-example.com')).toMatchObject({ status: 404 });
    expect(await g.platform.api('DELETE', '/custom-hostnames/help.north-example.com')).toMatchObject({ status: 204 });

    const again = await g.gql(REMOVE, { org: 'north', site: site.id });
    expect(again.data!.removeCustomHostname).toMatchObject({ deleted: false, userErrors: [] });
    expect(again.upstreamRequests).toEqual([`GET /v1/orgs/north/sites/${site.id}`]);
    const none = await g.gql(REVALIDATE, { org: 'north', site: site.id });
    expect(none.data!.revalidateCustomHostname.userErrors).toEqual([
      { code: 'NOT_FOUND', message: 'The site of input field "siteId" has no custom hostname', field: ['siteId'] },
    ]);
  });
});

describe('subdomains (getSubdomain)', () => {
  const SUBDOMAIN = `query Subdomain($org: ID!) { organization(id: $org) { subdomain { subdomain isActive organization { id platformId } } } }`;

  it('answers an organization’s subdomain to its members, and null without a request when it has none', async () => {
    const none = await g.gql(SUBDOMAIN, { org: 'north' });
    expect(none.data!.organization.subdomain).toBeNull();
    expect(none.upstreamRequests).toEqual(['GET /v1/orgs/north']);

    expect(await g.platform.api('PATCH', '/orgs/north', { body: { hostname: 'north-docs' } })).toMatchObject({
      status: 200,
    });
    const found = await g.gql(SUBDOMAIN, { org: 'north' });
    expect(found.data!.organization.subdomain).toMatchObject({
      subdomain: 'north-docs',
      isActive: true,
      organization: { platformId: 'north' },
    });
    expect(found.upstreamRequests).toEqual(['GET /v1/orgs/north', 'GET /v1/subdomains/north-docs']);
    expect(await g.platform.api('GET', '/subdomains/north-docs', { token: south.token('sam') })).toMatchObject({
      status: 404,
    });
    expect(await g.platform.api('GET', '/subdomains/nobody-here')).toMatchObject({ status: 404 });
    expect(await g.platform.api('GET', '/subdomains/No')).toMatchObject({ status: 400 });
  });
});

describe('offline', () => {
  it('is no answer, never an empty one, when no DNS server listens: a check finds nothing (pending)', async () => {
    const gone = await startTestDns({ [HOST]: { cname: TARGET } });
    await gone.close();
    expect(await checkHostname(HOST, recordResolver(gone.server))).toBeNull();
    expect(() => recordResolver('192.0.2.1:53')).toThrow('must be a loopback address and port');
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import {
  enableIntegration,
  installIntegration,
  publishIntegration,
  publishSiteAnalytics,
  publishVideoBlock,
} from '../fixtures/integrations.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

/**
 * What an organization has installed, end to end: `Organization.installations` (admins) linked to their
 * integrations, `Organization.integrationStatuses` on the organization, its spaces or its sites (members), and
 * `Organization.integrationStatus(integration:)`.
 */

let g: TestGateway;
let org: TestOrg;
let site: string;
const spaces = {} as Record<'handbook' | 'notes', string>;

/**
 * Contoso (ada admin, finn read): VIDEO configured and enabled on Handbook, DIAGRAMS on every space, ANALYTICS
 * on the Docs site without its required tracking id (pending there); UNUSED published, installed nowhere.
 */
beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  org = addOrg(g.platform, { id: 'contoso', members: { ada: 'admin', finn: 'read' } });
  spaces.handbook = await org.space('Handbook');
  spaces.notes = await org.space('Notes');
  site = await org.site('Docs', { spaces: [spaces.handbook] });
  await publishVideoBlock(org, 'video', { domain: 'videos.test' });
  const video = await installIntegration(org, 'video', { configuration: { channel: 'contoso' } });
  await enableIntegration(org, 'video', video, { space: spaces.handbook });
  await publishIntegration(org, 'diagrams', { target: 'space', title: 'Diagrams' });
  const diagrams = await installIntegration(org, 'diagrams');
  await g.platform.api('PATCH', `/integrations/diagrams/installations/${diagrams}`, {
    body: { space_selection: 'all' },
  });
  await publishSiteAnalytics(org, 'analytics');
  const analytics = await installIntegration(org, 'analytics');
  await enableIntegration(org, 'analytics', analytics, { site });
  await publishIntegration(org, 'unused');
});
afterAll(() => g.destroy());

const gid = (type: string, key: string) => Buffer.from(`${type}:${key}`).toString('base64');

const INSTALLATIONS = `query($org: ID!, $search: String) { organization(id: $org) {
  installations(first: 10, search: $search) { totalCount nodes { status configuration integration { name title } } }
} }`;
const STATUSES = `query($org: ID!, $target: InstalledIntegrationTargetType, $space: ID, $site: ID) {
  organization(id: $org) { integrationStatuses(first: 10, target: $target, space: $space, site: $site) {
    totalCount nodes { status targetType integration { id name } organization { id } space { id } site { id } }
  } } }`;
const STATUS = `query($org: ID!, $name: String!) { organization(id: $org) { integrationStatus(integration: $name) } }`;

describe('Organization.installations', () => {
  it('lists the installations with their integrations, by name, in one request', async () => {
    const all = await g.gql(INSTALLATIONS, { org: org.id });
    expect(all.errors).toBeUndefined();
    expect(all.data?.organization.installations).toEqual({
      totalCount: 3,
      nodes: [
        { status: 'ACTIVE', configuration: {}, integration: { name: 'analytics', title: 'Site analytics' } },
        { status: 'ACTIVE', configuration: {}, integration: { name: 'diagrams', title: 'Diagrams' } },
        {
          status: 'ACTIVE',
          configuration: { channel: 'contoso' },
          integration: { name: 'video', title: 'Video embeds' },
        },
      ],
    });
    // The organization, then the list: the integrations come with it.
    expect(all.upstreamRequests).toEqual(['GET /v1/orgs/contoso', 'GET /v1/orgs/contoso/installations?limit=10']);
    const found = await g.gql(INSTALLATIONS, { org: org.id, search: 'VIDEO' });
    expect(found.data?.organization.installations.nodes).toMatchObject([{ integration: { name: 'video' } }]);
  });

  it('is for admins: FORBIDDEN for other members', async () => {
    const member = await g.gql(INSTALLATIONS, { org: org.id }, { token: org.token('finn') });
    expect(member.data?.organization.installations).toBeNull();
    expect(member.errors?.map((e) => e.extensions?.code)).toEqual(['FORBIDDEN']);
  });
});

describe('Organization.integrationStatuses', () => {
  const orgId = gid('Organization', 'contoso');
  const on = (name: string, status: string, extra: Record<string, unknown>) => ({
    status,
    integration: { id: gid('Integration', name), name },
    organization: { id: orgId },
    space: null,
    site: null,
    ...extra,
  });

  it('answers the statuses on the organization by default, for members', async () => {
    const answer = await g.gql(STATUSES, { org: org.id }, { token: org.token('finn') });
    expect(answer.errors).toBeUndefined();
    expect(answer.data?.organization.integrationStatuses).toEqual({
      totalCount: 3,
      nodes: ['analytics', 'diagrams', 'video'].map((name) => on(name, 'ACTIVE', { targetType: 'ORGANIZATION' })),
    });
    expect(answer.upstream).toBe(2);
  });

  it('answers them on each space or site, or on one', async () => {
    const inSpaces = await g.gql(STATUSES, { org: org.id, target: 'SPACE' });
    expect(inSpaces.errors).toBeUndefined();
    expect(inSpaces.data?.organization.integrationStatuses.nodes).toEqual([
      on('diagrams', 'ACTIVE', { targetType: 'SPACE', space: { id: gid('Space', spaces.handbook) } }),
      on('diagrams', 'ACTIVE', { targetType: 'SPACE', space: { id: gid('Space', spaces.notes) } }),
      on('video', 'ACTIVE', { targetType: 'SPACE', space: { id: gid('Space', spaces.handbook) } }),
    ]);
    const notes = await g.gql(STATUSES, { org: org.id, target: 'SPACE', space: gid('Space', spaces.notes) });
    expect(notes.data?.organization.integrationStatuses.nodes).toMatchObject([
      { integration: { name: 'diagrams' }, space: { id: gid('Space', spaces.notes) } },
    ]);
    expect(notes.upstreamRequests[1]).toBe(
      `GET /v1/orgs/contoso/integrations/installations-status?limit=10&space=${spaces.notes}&target=space`,
    );
    const inSites = await g.gql(STATUSES, { org: org.id, target: 'SITE', site });
    expect(inSites.data?.organization.integrationStatuses.nodes).toEqual([
      on('analytics', 'PENDING', { targetType: 'SITE', site: { id: gid('Site', `contoso/${site}`) } }),
    ]);
  });

  it('refuses a space with another target, and a space of no organization of yours', async () => {
    const mixed = await g.gql(STATUSES, { org: org.id, space: spaces.notes });
    expect(mixed.data?.organization.integrationStatuses).toBeNull();
    expect(mixed.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const missing = await g.gql(STATUSES, { org: org.id, target: 'SPACE', space: 'nope' });
    expect(missing.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
  });
});

describe('Organization.integrationStatus', () => {
  it('answers the status of one integration, NOT_FOUND when it is not installed', async () => {
    const video = await g.gql(STATUS, { org: org.id, name: 'video' }, { token: org.token('finn') });
    expect(video.data).toEqual({ organization: { integrationStatus: 'ACTIVE' } });
    expect(video.upstreamRequests[1]).toBe('GET /v1/orgs/contoso/integrations/video/installation_status');
    const unused = await g.gql(STATUS, { org: org.id, name: gid('Integration', 'unused') });
    expect(unused.data).toEqual({ organization: { integrationStatus: null } });
    expect(unused.errors?.map((e) => e.extensions?.code)).toEqual(['NOT_FOUND']);
  });
});

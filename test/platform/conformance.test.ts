import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../../src/platform/app.js';
import { openDatabase } from '../../src/platform/store/db.js';
import { conformance, PENDING, type Answer } from '../fixtures/conformance.js';
import { loadRevision, putDocument } from '../../src/platform/content/revisions.js';
import { commitContent, sampleContent, textDocument, type SampleContent } from '../fixtures/content.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type ApiAnswer, type TestPlatform } from '../fixtures/platform.js';
import { petStore, uploadSpec } from '../fixtures/openapi-specs.js';
import { buildSite, type TestSite, writePages } from '../fixtures/sites.js';
import { addLinkInvite, syncToGit } from '../fixtures/wide.js';

// Every operation of the served groups, driven once with a success status and with the error
// statuses of the API, through the test platform: its fixture checks each answer against the
// official API description (test/fixtures/conformance.ts), and this file fails on any
// violation, naming the test.

/** Northwind (every role, a guest, e-mail domain `northwind.test`) and Southwind (ada admin, hana edits). */
const NORTH = 'northwind';
const SOUTH = 'southwind';
const KEYS = ['ada', 'ben', 'cy', 'dee', 'eve', 'finn', 'gus', 'hana', 'ivy'] as const;
type Key = (typeof KEYS)[number];
/** The users' e-mails: Northwind's domain for its members and for ivy (who may join), others elsewhere. */
const U = Object.fromEntries(
  KEYS.map((key) => [
    key,
    key === 'gus' ? 'gus@partner.test' : key === 'hana' ? 'hana@southwind.test' : `${key}@northwind.test`,
  ]),
) as Record<Key, string>;
/** Northwind's Product > Guides and Engineering, Southwind's Handbook. */
const C = {} as Record<'product' | 'guides' | 'engineering' | 'southHandbook', string>;
/** Spaces by their part in the tests. */
const S = {} as Record<
  'gitSynced' | 'public' | 'userGrant' | 'teamGrant' | 'gettingStarted' | 'openapi' | 'benefits' | 'developerPortal',
  string
>;
/** The slug of Northwind's OpenAPI specification that the Petstore space computes its reference from. */
const PETSTORE = 'petstore';

let p: TestPlatform;
let north: TestOrg;
let south: TestOrg;
/** Northwind's default site (basename `docs`): a "Getting started" section with an English and a French variant. */
let docs: TestSite;
/** Southwind's one site. */
let southSite: string;
const users = {} as Record<Key, TestUser>;
const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });

/** Calls the operation `route` (`GET /v1/orgs/:organizationId`) with `params` filled in and expects `status`. */
async function call(
  route: string,
  params: Record<string, string>,
  status: number,
  options: { token?: string | null; body?: unknown; query?: Record<string, string | number | boolean> } = {},
): Promise<ApiAnswer> {
  const [method = '', pattern = ''] = route.split(' ');
  const path = pattern
    .replace(/:(\w+)/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`No value for :${name} of ${route}`);
      return encodeURIComponent(value);
    })
    .replace(/\*$/, () => params['*'] ?? '');
  const answer = await p.api(method, path.replace(/^\/v1/, ''), options);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer;
}

/** Northwind's specification `PETSTORE` (through the API) and the reference a space computes from it. */
async function petstoreSpace(org: TestOrg): Promise<string> {
  await uploadSpec(org, PETSTORE, [petStore()]);
  const spaceId = await org.space('Petstore API', { visibility: 'public' });
  // The API reference template with a specification: an overview and other pages, then a computed reference.
  const applied = await p.api('POST', `/spaces/${spaceId}/content/template`, {
    body: { id: 'api-reference', params: { contentRefs: { spec: { kind: 'openapi', spec: PETSTORE } } } },
  });
  expect(applied.status).toBe(201);
  return spaceId;
}

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const key of KEYS) users[key] = addUser(p, key, { email: U[key] });
  north = addOrg(p, {
    id: NORTH,
    title: 'Northwind Docs',
    users,
    emailDomains: ['northwind.test'],
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
  });
  south = addOrg(p, { id: SOUTH, title: 'Southwind', users, members: { ada: 'admin', hana: 'edit' } });
  await addLinkInvite(north, 'ada');

  C.product = await north.collection('Product');
  C.guides = await north.collection('Guides', { parent: C.product });
  C.engineering = await north.collection('Engineering', { defaultLevel: 'read' });
  C.southHandbook = await south.collection('Handbook');
  const writers = await north.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  await north.grant({ collection: C.engineering }, 'edit', { teams: [writers] });

  S.gitSynced = await north.space('Company handbook');
  await syncToGit(north, S.gitSynced, 'ada');
  // After Guides in Product: a move of Guides into Product puts it after this one.
  S.public = await north.space('Release notes', { parent: C.product, visibility: 'public' });
  S.teamGrant = await north.space('Architecture decisions', { parent: C.engineering });
  // Last in Engineering: a move there changes nothing.
  S.userGrant = await north.space('Runbooks', { parent: C.engineering });
  await north.grant({ space: S.userGrant }, 'edit', { users: ['finn'] });
  S.gettingStarted = await north.space('Getting started', { visibility: 'public', language: 'en' });
  const french = await north.space('Guide de démarrage', { visibility: 'public', language: 'fr' });
  // The site's root shows the first page of its default variant.
  await writePages(north, S.gettingStarted, [{ title: 'Introduction' }]);
  await writePages(north, french, [{ title: 'Introduction', slug: 'introduction' }]);
  S.openapi = await petstoreSpace(north);
  S.benefits = await south.space('Benefits');
  S.developerPortal = await south.space('Developer portal', { visibility: 'public', language: 'en' });

  // Two sites every member reads: the default, published one, and a draft.
  docs = await buildSite(north, {
    title: 'Northwind Docs',
    basename: 'docs',
    defaultContent: true,
    sections: [
      {
        title: 'Getting started',
        space: S.gettingStarted,
        variantPath: 'en',
        variants: [{ space: french, path: 'fr' }],
      },
      { title: 'Product', space: S.public },
    ],
  });
  await north.site('Northwind Labs', { spaces: [S.teamGrant], publish: false });
  southSite = await south.site('Southwind Developers', { spaces: [S.developerPortal] });
});

afterEach(() => {
  // Reported here, they name the test; taken out, destroy() does not report them again.
  const found = p.violations.splice(0);
  expect(found).toEqual([]);
});

afterAll(async () => {
  await p?.destroy();
});

describe('Organizations', () => {
  it('lists, reads and updates organizations', async () => {
    await call('GET /v1/orgs', {}, 200);
    await call('GET /v1/orgs/:organizationId', { organizationId: NORTH }, 200);
    const { body } = await call('PATCH /v1/orgs/:organizationId', { organizationId: SOUTH }, 200, {
      body: { title: 'Southwind Corp' },
    });
    expect(body).toMatchObject({
      trial: { status: 'none', count: 0 },
      permissions: { view: true, access: true, admin: true },
    });
  });

  it('creates, lists, reads, changes and joins with invite links; invites by e-mail', async () => {
    // Newcomers of their own: the other tests count on who belongs to Northwind.
    const [joiner, second] = [addUser(p, 'invite-joiner'), addUser(p, 'invite-second')];
    const { body: invite } = await call('POST /v1/orgs/:organizationId/link-invites', { organizationId: NORTH }, 201, {
      body: { role: 'comment', maxUses: 2 },
    });
    const at = { organizationId: NORTH, inviteId: invite.id };
    await call('GET /v1/orgs/:organizationId/link-invites', { organizationId: NORTH }, 200);
    await call('GET /v1/orgs/:organizationId/link-invites/:inviteId', at, 200, { token: joiner.token });
    await call('PATCH /v1/orgs/:organizationId/link-invites/:inviteId', at, 200, { body: { role: 'read' } });
    await call('POST /v1/orgs/:organizationId/invites/:inviteId', at, 200, { token: joiner.token });
    await call('POST /v1/orgs/:organizationId/link-invites', { organizationId: NORTH }, 403, {
      token: users.ben.token,
      body: { role: 'read' },
    });
    await call('POST /v1/orgs/:organizationId/invites/:inviteId', { ...at, inviteId: 'Unknown0000000000000' }, 404);
    const used = await call('POST /v1/orgs/:organizationId/link-invites', { organizationId: NORTH }, 201, {
      body: { role: 'read', maxUses: 1 },
    });
    await call('POST /v1/orgs/:organizationId/invites/:inviteId', { ...at, inviteId: used.body.id }, 200, {
      token: second.token,
    });
    await call('POST /v1/orgs/:organizationId/invites/:inviteId', { ...at, inviteId: used.body.id }, 412, {
      token: users.ivy.token,
    });
    await call('POST /v1/orgs/:organizationId/invites', { organizationId: NORTH }, 200, {
      body: { emails: ['invited@northwind.test', { email: 'other@northwind.test', role: 'read' }], role: 'comment' },
    });
    await call('POST /v1/orgs/:organizationId/invites', { organizationId: NORTH }, 400, { body: { emails: [] } });
  });

  it('creates an organization; a user changes their profile and gets a notifications token', async () => {
    const self = addUser(p, 'profile-owner');
    await call('POST /v1/orgs', {}, 201, { token: self.token, body: { title: 'Own Docs' } });
    await call('POST /v1/orgs', {}, 400, { token: self.token, body: { title: 'X' } });
    await call('PATCH /v1/users/:userId', { userId: self.id }, 200, {
      token: self.token,
      body: { displayName: 'Hana', photoURL: 'https://example.test/hana.png' },
    });
    await call('PATCH /v1/users/:userId', { userId: users.hana.id }, 403, {
      token: users.ada.token,
      body: { displayName: 'Not hers' },
    });
    await call('PATCH /v1/users/:userId', { userId: 'Unknown0000000000000' }, 404, { body: { displayName: 'None' } });
    await call('POST /v1/user/notifications/token', {}, 200);
  });

  it('deletes a link invite, then answers 204', async () => {
    const { id } = p.db.prepare('SELECT id FROM link_invites WHERE org_id = ? AND revoked_at IS NULL').get(NORTH) as {
      id: string;
    };
    await call('DELETE /v1/orgs/:organizationId/link-invites/:inviteId', { organizationId: NORTH, inviteId: id }, 205);
    await call('DELETE /v1/orgs/:organizationId/link-invites/:inviteId', { organizationId: NORTH, inviteId: id }, 204);
  });

  it('reads and writes agent instructions, with their author even before anyone wrote them', async () => {
    const never = await call('GET /v1/orgs/:organizationId/agent-instructions', { organizationId: SOUTH }, 200);
    expect(never.body.updatedBy).toBe(p.userId(U.ada));
    const instructions = {
      object: 'document',
      data: { schemaVersion: 1 },
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [{ object: 'text', leaves: [{ text: 'Be brief.', marks: [{ type: 'bold' }] }] }],
        },
      ],
    };
    const written = await call('PUT /v1/orgs/:organizationId/agent-instructions', { organizationId: NORTH }, 200, {
      body: { instructions },
    });
    expect(written.body.instructions.nodes[0].nodes[0].leaves).toEqual([
      { object: 'leaf', text: 'Be brief.', marks: [{ object: 'mark', type: 'bold' }] },
    ]);
    await call('GET /v1/orgs/:organizationId/agent-instructions', { organizationId: NORTH }, 200);
  });

  it('finds organizations by e-mail domain for someone outside them', async () => {
    const { body } = await call(
      'GET /v1/email-domains/:emailDomain/orgs',
      { emailDomain: 'northwind.test' },
      200,
      as(U.ivy),
    );
    expect(body.organizations[0].permissions).toMatchObject({ view: true, access: false, listMembers: false });
  });

  it('lets someone of an allowed domain join', async () => {
    await call('POST /v1/orgs/:organizationId/join', { organizationId: NORTH }, 204, as(U.ivy));
  });
});

describe('Organization members', () => {
  it('lists and reads members, with every count', async () => {
    await call('GET /v1/orgs/:organizationId/members', { organizationId: NORTH }, 200);
    const { body } = await call(
      'GET /v1/orgs/:organizationId/members/:userId',
      { organizationId: NORTH, userId: p.userId(U.ben) },
      200,
    );
    // Every member reads every site of the organization, the draft too.
    expect(body).toMatchObject({ spaces: expect.any(Number), teams: 1, sites: 2 });
  });

  it('changes a role, pings, and adds an SSO member', async () => {
    await call(
      'PATCH /v1/orgs/:organizationId/members/:userId',
      { organizationId: NORTH, userId: p.userId(U.finn) },
      200,
      { body: { role: 'comment' } },
    );
    await call('POST /v1/orgs/:organizationId/ping', { organizationId: NORTH }, 200, as(U.ben));
    await call(
      'POST /v1/orgs/:organizationId/members/:userId/sso',
      { organizationId: NORTH, userId: p.userId(U.hana) },
      200,
    );
  });

  it("lists a member's spaces and teams", async () => {
    await call(
      'GET /v1/orgs/:organizationId/members/:userId/spaces',
      { organizationId: NORTH, userId: p.userId(U.finn) },
      200,
    );
    await call(
      'GET /v1/orgs/:organizationId/members/:userId/teams',
      { organizationId: NORTH, userId: p.userId(U.dee) },
      200,
    );
  });

  it('removes a member (205), then answers 204', async () => {
    const params = { organizationId: NORTH, userId: p.userId(U.eve) };
    await call('DELETE /v1/orgs/:organizationId/members/:userId', params, 205);
    await call('DELETE /v1/orgs/:organizationId/members/:userId', params, 204);
  });
});

describe('Teams', () => {
  let teamId: string;

  it('lists, creates, reads and renames teams', async () => {
    await call('GET /v1/orgs/:organizationId/teams', { organizationId: NORTH }, 200);
    const created = await call('PUT /v1/orgs/:organizationId/teams', { organizationId: NORTH }, 201, {
      body: { title: 'Conformance', members: [p.userId(U.ben)] },
    });
    teamId = created.body.id;
    await call('GET /v1/orgs/:organizationId/teams/:teamId', { organizationId: NORTH, teamId }, 200);
    await call('PATCH /v1/orgs/:organizationId/teams/:teamId', { organizationId: NORTH, teamId }, 200, {
      body: { title: 'Conformance team' },
    });
  });

  it('manages team members', async () => {
    const team = { organizationId: NORTH, teamId };
    await call('GET /v1/orgs/:organizationId/teams/:teamId/members', team, 200);
    await call('PUT /v1/orgs/:organizationId/teams/:teamId/members', team, 204, { body: { add: [U.cy] } });
    const dee = { ...team, userId: p.userId(U.dee) };
    await call('PUT /v1/orgs/:organizationId/teams/:teamId/members/:userId', dee, 204, { body: { role: 'owner' } });
    await call('DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId', dee, 205);
    await call('DELETE /v1/orgs/:organizationId/teams/:teamId/members/:userId', dee, 204);
  });

  it('deletes a team (205), then answers 204', async () => {
    await call('DELETE /v1/orgs/:organizationId/teams/:teamId', { organizationId: NORTH, teamId }, 205);
    await call('DELETE /v1/orgs/:organizationId/teams/:teamId', { organizationId: NORTH, teamId }, 204);
  });
});

describe('Collections', () => {
  let collectionId: string;

  it('lists, creates, reads, updates, moves and transfers collections', async () => {
    await call('GET /v1/orgs/:organizationId/collections', { organizationId: NORTH }, 200);
    const created = await call('POST /v1/orgs/:organizationId/collections', { organizationId: NORTH }, 201, {
      body: { title: 'Conformance' },
    });
    collectionId = created.body.id;
    const collection = { collectionId };
    await call('GET /v1/collections/:collectionId', collection, 200);
    await call('PATCH /v1/collections/:collectionId', collection, 200, {
      body: { description: 'Checked answers', defaultLevel: 'read' },
    });
    await call('GET /v1/collections/:collectionId/spaces', { collectionId: C.product }, 200);
    await call('POST /v1/collections/:collectionId/move', collection, 200, { body: { parent: C.product } });
    await call('POST /v1/collections/:collectionId/transfer', collection, 200, { body: { organization: SOUTH } });
  });

  it('manages who can access a collection', async () => {
    const guides = { collectionId: C.guides };
    const dee = { ...guides, userId: p.userId(U.dee) };
    await call('POST /v1/collections/:collectionId/permissions', guides, 204, {
      body: { role: 'comment', users: [dee.userId] },
    });
    await call('GET /v1/collections/:collectionId/permissions/users', guides, 200);
    await call('PATCH /v1/collections/:collectionId/permissions/users/:userId', dee, 204, { body: { role: 'edit' } });
    await call('GET /v1/collections/:collectionId/permissions/aggregate', { collectionId: C.engineering }, 200);
    await call('DELETE /v1/collections/:collectionId/permissions/users/:userId', dee, 205);
    await call('DELETE /v1/collections/:collectionId/permissions/users/:userId', dee, 204);
  });

  it('deletes a collection (205), then answers 204', async () => {
    await call('DELETE /v1/collections/:collectionId', { collectionId }, 205);
    await call('DELETE /v1/collections/:collectionId', { collectionId }, 204);
  });
});

describe('Spaces', () => {
  let spaceId: string;

  it('lists, creates, reads and updates spaces', async () => {
    await call('GET /v1/orgs/:organizationId/spaces', { organizationId: NORTH }, 200);
    const created = await call('POST /v1/orgs/:organizationId/spaces', { organizationId: NORTH }, 201, {
      body: { title: 'Conformance' },
    });
    spaceId = created.body.id;
    const synced = await call('GET /v1/spaces/:spaceId', { spaceId: S.gitSynced }, 200);
    expect(synced.body.gitSync).toMatchObject({
      installationId: expect.any(String),
      installationStatus: 'active',
      installationProvider: 'github',
    });
    await call('PATCH /v1/spaces/:spaceId', { spaceId }, 200, { body: { title: 'Conformance space', emoji: '🧪' } });
  });

  it('duplicates, moves and transfers a space', async () => {
    const copy = await call('POST /v1/spaces/:spaceId/duplicate', { spaceId }, 201);
    await call('POST /v1/spaces/:spaceId/move', { spaceId }, 200, { body: { parent: C.product } });
    await call('POST /v1/spaces/:spaceId/transfer', { spaceId: copy.body.id }, 200, { body: { organization: SOUTH } });
  });

  it('deletes (205, then 204) and restores a space', async () => {
    await call('DELETE /v1/spaces/:spaceId', { spaceId }, 205);
    await call('DELETE /v1/spaces/:spaceId', { spaceId }, 204);
    await call('POST /v1/spaces/:spaceId/restore', { spaceId }, 200);
  });
});

describe('Space content', () => {
  let spaceId: string;
  let revisionId: string;
  let firstRevision: string;
  let ids: SampleContent['ids'];

  beforeAll(() => {
    spaceId = S.userGrant;
    firstRevision = p.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
    const sample = sampleContent(p.db, spaceId);
    ids = sample.ids;
    revisionId = commitContent(p.db, spaceId, sample.content);
  });

  it('reads the current revision, a revision by id and their page trees', async () => {
    await call('GET /v1/spaces/:spaceId/content', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId', { spaceId, revisionId }, 200, {
      query: { metadata: false },
    });
    await call('GET /v1/spaces/:spaceId/content/pages', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId/pages', { spaceId, revisionId: firstRevision }, 200);
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId', { spaceId, revisionId: 'missing' }, 404);
    await call('GET /v1/spaces/:spaceId/content', { spaceId }, 404, as(U.gus));
  });

  it('reads pages by id and by path, with and without their documents', async () => {
    const { install, group, api, status } = ids;
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: install }, 200);
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: install }, 200, {
      query: { format: 'document' },
    });
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: status }, 200);
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/page/:pageId',
      { spaceId, revisionId, pageId: group },
      200,
    );
    await call('GET /v1/spaces/:spaceId/content/path/*', { spaceId, '*': 'getting-started/install' }, 200, {
      query: { format: 'document' },
    });
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/path/*',
      { spaceId, revisionId, '*': 'getting-started' },
      200,
    );
    await call('GET /v1/spaces/:spaceId/content/path', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId/path', { spaceId, revisionId }, 200);
    await call('GET /v1/spaces/:spaceId/content/path/*', { spaceId, '*': 'nowhere' }, 404);
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: 'missing' }, 404);
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: api }, 400, {
      query: { format: 'html' },
    });
  });

  it('reads documents, meta links, files and semantic changes', async () => {
    const page = await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: ids.api }, 200);
    await call('GET /v1/spaces/:spaceId/documents/:documentId', { spaceId, documentId: page.body.documentId }, 200);
    await call('GET /v1/spaces/:spaceId/documents/:documentId', { spaceId, documentId: 'missing' }, 404);
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/page/:pageId/document',
      { spaceId, revisionId, pageId: ids.api },
      200,
    );
    await call('GET /v1/spaces/:spaceId/content/page/:pageId/meta-links', { spaceId, pageId: ids.api }, 200);
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/page/:pageId/meta-links',
      { spaceId, revisionId, pageId: ids.linux },
      200,
    );
    await call('GET /v1/spaces/:spaceId/content/files', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId/files', { spaceId, revisionId }, 200, {
      query: { limit: 1 },
    });
    await call('GET /v1/spaces/:spaceId/content/files/:fileId', { spaceId, fileId: ids.image }, 200);
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/files/:fileId',
      { spaceId, revisionId, fileId: ids.text },
      200,
    );
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/files/:fileId',
      { spaceId, revisionId: firstRevision, fileId: ids.text },
      404,
    );
    await call('GET /v1/spaces/:spaceId/revisions/:revisionId/changes', { spaceId, revisionId }, 200, {
      query: { limit: 3 },
    });
  });

  it('reads link reports and backlinks', async () => {
    await call('GET /v1/spaces/:spaceId/links', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/links', { spaceId }, 400, { query: { status: 'dead' } });
    await call('GET /v1/spaces/:spaceId/content/page/:pageId/links', { spaceId, pageId: ids.introduction }, 200, {
      query: { status: 'broken' },
    });
    await call('GET /v1/spaces/:spaceId/content/page/:pageId/backlinks', { spaceId, pageId: ids.install }, 200);
    await call('GET /v1/spaces/:spaceId/content/files/:fileId/backlinks', { spaceId, fileId: ids.text }, 200);
    await call('GET /v1/spaces/:spaceId/content/files/:fileId/backlinks', { spaceId, fileId: 'missing' }, 404);
  });

  it('searches a space and an organization', async () => {
    await call('GET /v1/spaces/:spaceId/search', { spaceId }, 200, { query: { query: 'installer' } });
    await call('GET /v1/spaces/:spaceId/search', { spaceId }, 400, { query: { query: '' } });
    await call('GET /v1/orgs/:organizationId/search', { organizationId: NORTH }, 200, {
      query: { query: 'install', limit: 1 },
    });
  });

  it('reads reusable contents', async () => {
    const snippet = putDocument(p.db, spaceId, textDocument([[0, 'Contact support.']]));
    const current = p.db.prepare('SELECT revision FROM spaces WHERE id = ?').pluck(true).get(spaceId) as string;
    const content = loadRevision(p.db, spaceId, current)!.content;
    const withReusable = commitContent(p.db, spaceId, {
      ...content,
      reusableContents: [{ id: 'rc-contact', title: 'Contact', documentId: snippet }],
    });
    const reusableContentId = 'rc-contact';
    await call(
      'GET /v1/spaces/:spaceId/content/reusable-contents/:reusableContentId',
      { spaceId, reusableContentId },
      200,
    );
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId',
      { spaceId, revisionId: withReusable, reusableContentId },
      200,
    );
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId/document',
      { spaceId, revisionId: withReusable, reusableContentId },
      200,
      {
        query: { dereferenced: 'true' },
      },
    );
    await call(
      'GET /v1/spaces/:spaceId/revisions/:revisionId/reusable-contents/:reusableContentId',
      { spaceId, revisionId, reusableContentId },
      404,
    );
  });

  it('exports a space as a PDF', async () => {
    await call('GET /v1/spaces/:spaceId/pdf', { spaceId }, 200, { query: { page: ids.install, only: true } });
    await call('GET /v1/spaces/:spaceId/pdf', { spaceId }, 404, { query: { page: 'missing' } });
  });
});

describe('Change requests', () => {
  let spaceId: string;
  let cr: string;
  let pageId: string;
  let fileId: string;
  const R = '/v1/spaces/:spaceId/change-requests/:changeRequestId';

  beforeAll(async () => {
    spaceId = S.teamGrant;
  });

  it('creates, lists, reads and updates change requests', async () => {
    const created = await call('POST /v1/spaces/:spaceId/change-requests', { spaceId }, 201, {
      body: { subject: 'Conformance' },
    });
    cr = created.body.id;
    await call('POST /v1/spaces/:spaceId/change-requests', { spaceId }, 201, {
      body: { subject: 'From a template', template: { id: 'api-reference' } },
    });
    await call('GET /v1/spaces/:spaceId/change-requests', { spaceId }, 200, {
      query: { status: 'draft', orderBy: 'createdAt' },
    });
    await call('GET /v1/orgs/:organizationId/change-requests', { organizationId: NORTH }, 200, {
      query: { status: 'draft' },
    });
    await call(`GET ${R}`, { spaceId, changeRequestId: String(created.body.number) }, 200);
    await call(`PATCH ${R}`, { spaceId, changeRequestId: cr }, 200, {
      body: { status: 'open', description: textDocument([[0, 'Why.']]) },
    });
    await call(`PATCH ${R}`, { spaceId, changeRequestId: cr }, 400, { body: { status: 'merged' } });
    await call(`GET ${R}`, { spaceId, changeRequestId: 'missing' }, 404);
  });

  it('edits, reads and exports the content of a change request', async () => {
    const edited = await call(`POST ${R}/content`, { spaceId, changeRequestId: cr }, 200, {
      query: { compat: false },
      body: {
        changes: [
          { operation: 'insert_page', ref: 'new', document: { markdown: '# New page\n\nSee [the file](./notes).\n' } },
          {
            operation: 'insert_files',
            files: [{ name: 'notes.txt', ref: 'notes', contentType: 'text/plain', base64: 'aGVsbG8=' }],
          },
        ],
      },
    });
    pageId = edited.body.changes[0].page.id;
    fileId = edited.body.insertedFiles[0].id;
    const params = { spaceId, changeRequestId: cr };
    await call(`GET ${R}/content`, params, 200);
    await call(`GET ${R}/content/pages`, params, 200);
    await call(`GET ${R}/content/files`, params, 200);
    await call(`GET ${R}/content/files/:fileId`, { ...params, fileId }, 200);
    await call(`GET ${R}/content/files/:fileId/backlinks`, { ...params, fileId }, 200);
    await call(`GET ${R}/content/page/:pageId`, { ...params, pageId }, 200, { query: { format: 'markdown' } });
    await call(`GET ${R}/content/page/:pageId/links`, { ...params, pageId }, 200);
    await call(`GET ${R}/content/page/:pageId/backlinks`, { ...params, pageId }, 200);
    await call(`GET ${R}/content/page/:pageId/meta-links`, { ...params, pageId }, 200);
    await call(`GET ${R}/content/path/*`, { ...params, '*': 'new-page' }, 200);
    await call(`GET ${R}/content/path`, params, 200);
    await call(`GET ${R}/pdf`, params, 200);
    await call(`GET ${R}/changes`, params, 200);
    await call(`POST ${R}/content`, params, 400, { body: { changes: [] } });
    const snippet = putDocument(p.db, spaceId, textDocument([[0, 'Shared.']]));
    const request = p.db.prepare('SELECT revision FROM change_requests WHERE id = ?').pluck(true).get(cr) as string;
    const content = loadRevision(p.db, spaceId, request)!.content;
    const withReusable = commitContent(p.db, spaceId, {
      ...content,
      reusableContents: [{ id: 'rc-cr', title: 'Shared', documentId: snippet }],
    });
    p.db.prepare('UPDATE change_requests SET revision = ? WHERE id = ?').run(withReusable, cr);
    // commitContent moved the live content too: put it back where the request started.
    const initial = p.db
      .prepare('SELECT revision_initial FROM change_requests WHERE id = ?')
      .pluck(true)
      .get(cr) as string;
    p.db.prepare('UPDATE spaces SET revision = ? WHERE id = ?').run(initial, spaceId);
    await call(`GET ${R}/content/reusable-contents/:reusableContentId`, { ...params, reusableContentId: 'rc-cr' }, 200);
  });

  it('requests reviews, reviews, lists contributors, updates and merges', async () => {
    const params = { spaceId, changeRequestId: cr };
    await call(`POST ${R}/requested-reviewers`, params, 200, { body: { users: [p.userId(U.cy), p.userId(U.finn)] } });
    await call(`GET ${R}/requested-reviewers`, params, 200);
    await call(`DELETE ${R}/requested-reviewers/:userId`, { ...params, userId: p.userId(U.finn) }, 205);
    await call(`DELETE ${R}/requested-reviewers/:userId`, { ...params, userId: p.userId(U.finn) }, 204);
    const review = await call(`POST ${R}/reviews`, params, 201, {
      ...as(U.cy),
      body: { status: 'approved', comment: textDocument([[0, 'Fine.']]) },
    });
    await call(`GET ${R}/reviews`, params, 200);
    await call(`GET ${R}/reviews/:reviewId`, { ...params, reviewId: review.body.id }, 200);
    await call(`GET ${R}/contributors`, params, 200);
    await call(`POST ${R}/update`, params, 200);
    await call(`POST ${R}/merge`, params, 200);
    await call(`POST ${R}/merge`, params, 409);
  });

  it('applies a template to the live content', async () => {
    await call('POST /v1/spaces/:spaceId/content/template', { spaceId }, 201, { body: { id: 'changelog' } });
    await call('POST /v1/spaces/:spaceId/content/template', { spaceId }, 400, { body: { id: 'unknown' } });
  });
});

describe('Git', () => {
  it('imports, exports, reads the state of and removes the Git Sync of a space', async () => {
    const { mkdtempSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { execFileSync } = await import('node:child_process');
    const bare = join(mkdtempSync(join(tmpdir(), 'conformance-git-')), 'repo.git');
    execFileSync('git', ['init', '--bare', '--quiet', '--initial-branch=main', bare]);
    const spaceId = S.teamGrant;
    await call('GET /v1/spaces/:spaceId/git/info', { spaceId }, 404);
    await call('POST /v1/spaces/:spaceId/git/export', { spaceId }, 204, {
      body: { url: bare, ref: 'refs/heads/main', commitMessage: 'Export' },
    });
    await p.app.jobs.drain();
    await call('POST /v1/spaces/:spaceId/git/import', { spaceId }, 204, {
      body: { url: bare, ref: 'refs/heads/main', timestamp: '2026-02-01T00:00:00Z' },
    });
    await p.app.jobs.drain();
    const info = await call('GET /v1/spaces/:spaceId/git/info', { spaceId }, 200);
    expect(info.body.operation).toMatchObject({ state: 'success', direction: 'import' });
    await call('POST /v1/spaces/:spaceId/git/import', { spaceId }, 400, { body: { url: bare, ref: 'main' } });
    await call('DELETE /v1/spaces/:spaceId/git/legacy-installation', { spaceId }, 205);
    await call('DELETE /v1/spaces/:spaceId/git/legacy-installation', { spaceId }, 204);
  });
});

describe('Docs sites', () => {
  it('creates, lists, reads, updates, publishes, unpublishes and deletes sites', async () => {
    const org = { organizationId: NORTH };
    const created = await call('POST /v1/orgs/:organizationId/sites', org, 201, {
      body: { title: 'Conformance site', spaces: [S.public] },
    });
    const site = { ...org, siteId: created.body.id };
    await call('GET /v1/orgs/:organizationId/sites', org, 200, { query: { published: false } });
    await call('GET /v1/orgs/:organizationId/sites/:siteId', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId', site, 200, {
      body: { basename: 'conformance', proxy: 'example.com/docs' },
    });
    await call('POST /v1/orgs/:organizationId/sites/:siteId/publish', site, 200);
    await call('POST /v1/orgs/:organizationId/sites/:siteId/unpublish', site, 200);
    await call('GET /v1/orgs/:organizationId/sites/:siteId', { ...org, siteId: 'missing' }, 404);
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId', site, 205);
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId', site, 204);
  });

  it('manages site spaces, sections, section groups and their order', async () => {
    const org = { organizationId: NORTH };
    const created = await call('POST /v1/orgs/:organizationId/sites', org, 201, {
      body: { title: 'Structure site', spaces: [S.public] },
    });
    const site = { ...org, siteId: created.body.id };
    await call('POST /v1/orgs/:organizationId/sites/:siteId/publish', site, 200);
    const added = await call('POST /v1/orgs/:organizationId/sites/:siteId/site-spaces', site, 201, {
      body: { spaceId: S.teamGrant, path: 'adr' },
    });
    const siteSpace = { ...site, siteSpaceId: added.body.id };
    await call('GET /v1/orgs/:organizationId/sites/:siteId/site-spaces', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId', siteSpace, 200, {
      body: { condition: 'visitor.claims.beta', hidden: true },
    });
    await call('POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move', siteSpace, 200, {
      body: {},
    });
    await call('GET /v1/orgs/:organizationId/sites/:siteId/structure', site, 200);
    const section = await call('POST /v1/orgs/:organizationId/sites/:siteId/sections', site, 201, {
      body: { spaceId: S.userGrant, title: 'Runbooks', icon: 'book' },
    });
    const siteSection = { ...site, siteSectionId: section.body.id };
    await call('GET /v1/orgs/:organizationId/sites/:siteId/sections', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId', siteSection, 200, {
      body: { description: 'Operations', condition: 'visitor.claims.ops' },
    });
    await call('POST /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId/move', siteSection, 200, {
      body: {},
    });
    const group = await call('POST /v1/orgs/:organizationId/sites/:siteId/section-groups', site, 201, {
      body: { title: 'More', sections: [section.body.id] },
    });
    const siteSectionGroup = { ...site, siteSectionGroupId: group.body.id };
    await call('GET /v1/orgs/:organizationId/sites/:siteId/section-groups', site, 200);
    await call(
      'PATCH /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId',
      siteSectionGroup,
      200,
      { body: { icon: 'folder' } },
    );
    await call(
      'POST /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId/move',
      siteSectionGroup,
      200,
      {},
    );
    await call('GET /v1/orgs/:organizationId/sites/:siteId/structure', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/structure/sort', site, 200, {
      body: { item: { type: 'site-section-group', id: group.body.id } },
    });
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/structure/sort', site, 400, {
      body: {
        item: { type: 'site-section-group', id: group.body.id },
        position: { before: { type: 'site-section', id: section.body.id } },
      },
    });
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/structure/sort', site, 404, {
      body: { item: { type: 'site-section', id: 'missing' } },
    });
    await call(
      'POST /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId/move',
      { ...siteSpace, siteSpaceId: 'missing' },
      404,
      { body: {} },
    );
    await call(
      'DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId',
      siteSectionGroup,
      205,
    );
    await call(
      'DELETE /v1/orgs/:organizationId/sites/:siteId/section-groups/:siteSectionGroupId',
      siteSectionGroup,
      204,
    );
    const moved = (await call('GET /v1/orgs/:organizationId/sites/:siteId/site-spaces', site, 200)).body.items.find(
      (item: { path: string }) => item.path === 'adr',
    );
    await call(
      'DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId',
      { ...siteSpace, siteSpaceId: moved.id },
      205,
    );
    await call(
      'DELETE /v1/orgs/:organizationId/sites/:siteId/site-spaces/:siteSpaceId',
      { ...siteSpace, siteSpaceId: moved.id },
      204,
    );
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId', siteSection, 205);
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId/sections/:siteSectionId', siteSection, 204);
  });
});

describe('Docs site access and URLs', () => {
  it('manages share links, visitor authentication and the adaptive schema, and reads the published profile', async () => {
    const org = { organizationId: NORTH };
    const created = await call('POST /v1/orgs/:organizationId/sites', org, 201, {
      body: { title: 'Access site', visibility: 'share-link', spaces: [S.public] },
    });
    const site = { ...org, siteId: created.body.id };
    const link = await call('POST /v1/orgs/:organizationId/sites/:siteId/share-links', site, 201, {
      body: { name: 'Partners' },
    });
    const shareLink = { ...site, shareLinkId: link.body.id };
    await call('GET /v1/orgs/:organizationId/sites/:siteId/share-links', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId', shareLink, 200, {
      body: { active: false },
    });
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId', shareLink, 205);
    await call('DELETE /v1/orgs/:organizationId/sites/:siteId/share-links/:shareLinkId', shareLink, 204);
    await call('GET /v1/orgs/:organizationId/sites/:siteId/publishing/auth', site, 200);
    await call('PATCH /v1/orgs/:organizationId/sites/:siteId/publishing/auth', site, 200, {
      body: { backend: 'custom', fallbackURL: 'https://login.example.com/' },
    });
    await call('POST /v1/orgs/:organizationId/sites/:siteId/publishing/auth/regenerate', site, 200);
    await call('GET /v1/orgs/:organizationId/sites/:siteId/adaptive-schema', site, 404);
    const jsonSchema = {
      type: 'object',
      properties: { beta: { type: 'boolean', description: 'Beta tester' } },
      additionalProperties: false,
    };
    await call('PUT /v1/orgs/:organizationId/sites/:siteId/adaptive-schema', site, 200, { body: { jsonSchema } });
    await call('PUT /v1/orgs/:organizationId/sites/:siteId/adaptive-schema', site, 400, {
      body: { jsonSchema: { type: 'array' } },
    });
    await call('GET /v1/orgs/:organizationId/sites/:siteId/adaptive-schema', site, 200);
    await call('GET /v1/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions', site, 200);
    await call('GET /v1/orgs/:organizationId/sites/:siteId/published', site, 200);
    await call('GET /v1/orgs/:organizationId/sites/:siteId/published', { ...site, siteId: 'missing' }, 404);
  });

  it('resolves published, content and embed URLs', async () => {
    const published = `${p.url.replace(/\/v1$/, '')}/published/${NORTH}`;
    await call('POST /v1/urls/published', {}, 200, {
      body: { url: `${published}/${docs.basename}/getting-started/fr` },
    });
    await call('GET /v1/urls/published', {}, 200, { query: { url: `${published}/product` } });
    await call('POST /v1/urls/published', {}, 404, { body: { url: 'https://nothing.example.com/' } });
    await call('POST /v1/urls/published', {}, 400, { body: { url: 'not a url' } });
    const space = await call('GET /v1/spaces/:spaceId', { spaceId: S.gettingStarted }, 200);
    await call('GET /v1/urls/content', {}, 200, { query: { url: space.body.urls.app } });
    await call('GET /v1/urls/embed', {}, 200, { query: { url: published } });
  });
});

describe('SAML and SSO', () => {
  it('creates, lists, reads, updates and deletes SAML providers, and lists the SSO logins', async () => {
    const { readFileSync } = await import('node:fs');
    const certificate = readFileSync(new URL('../fixtures/saml/idp.pem', import.meta.url), 'utf8');
    const org = { organizationId: SOUTH };
    const created = await call('POST /v1/orgs/:organizationId/saml', org, 201, { body: { label: 'Conformance' } });
    const provider = { ...org, samlProviderId: created.body.id };
    await call('GET /v1/orgs/:organizationId/saml', org, 200);
    await call('GET /v1/orgs/:organizationId/saml/:samlProviderId', provider, 200);
    await call('PATCH /v1/orgs/:organizationId/saml/:samlProviderId', provider, 200, {
      body: { ssoURL: 'https://idp.example.com/sso', entityID: 'urn:idp', certificate },
    });
    await call('PATCH /v1/orgs/:organizationId/saml/:samlProviderId', provider, 400, { body: { certificate: 'nope' } });
    await call('GET /v1/orgs/:organizationId/sso', org, 200);
    await call('GET /v1/orgs/:organizationId/saml/:samlProviderId', { ...org, samlProviderId: 'missing' }, 404);
    await call('DELETE /v1/orgs/:organizationId/saml/:samlProviderId', provider, 205);
    await call('DELETE /v1/orgs/:organizationId/saml/:samlProviderId', provider, 204);
  });
});

describe('Custom fonts', () => {
  it('uploads font files, then creates, lists, reads, updates and deletes a font', async () => {
    const { minimalWoff2 } = await import('../../src/platform/fonts/woff.js');
    const org = { organizationId: SOUTH };
    const upload = async (weight: number) => {
      const bytes = minimalWoff2('Conformance', weight);
      const { body } = await call('POST /v1/orgs/:organizationId/storage/upload', org, 201, {
        body: {
          file: { name: `conformance-${weight}.woff2`, type: 'font/woff2', size: bytes.length },
          kind: 'customization_font',
        },
      });
      const put = await fetch(body.url, {
        method: 'PUT',
        headers: { 'content-type': 'font/woff2' },
        body: new Uint8Array(bytes),
      });
      expect(put.status).toBe(200);
      return body.key as string;
    };
    const regular = await upload(400);
    const bold = await upload(700);
    await call('POST /v1/orgs/:organizationId/storage/upload', org, 400, {
      body: { file: { name: 'x', type: 'font', size: 1 }, kind: 'customization_font' },
    });
    const created = await call('PUT /v1/orgs/:organizationId/fonts', org, 201, {
      body: { fontFamily: 'Conformance', fontFaces: [{ weight: 400, storageKey: regular }] },
    });
    await call('PUT /v1/orgs/:organizationId/fonts', org, 412, {
      body: { fontFamily: 'Bold only', fontFaces: [{ weight: 700, storageKey: bold }] },
    });
    const font = { ...org, fontId: created.body.id };
    await call('GET /v1/orgs/:organizationId/fonts', org, 200);
    await call('GET /v1/orgs/:organizationId/fonts/:fontId', font, 200);
    await call('POST /v1/orgs/:organizationId/fonts/:fontId', font, 201, {
      body: { fontFaces: [{ weight: 700, storageKey: bold }] },
    });
    await call('POST /v1/orgs/:organizationId/fonts/:fontId', font, 412, {
      body: { fontFaces: [{ weight: 400, storageKey: null }] },
    });
    await call('GET /v1/orgs/:organizationId/fonts/:fontId', { ...org, fontId: 'missing' }, 404);
    await call('DELETE /v1/orgs/:organizationId/fonts/:fontId', font, 205);
    await call('DELETE /v1/orgs/:organizationId/fonts/:fontId', font, 204);
  });
});

describe('Translations', () => {
  it('creates, lists, reads, updates, runs and deletes a translation', async () => {
    const org = { organizationId: SOUTH };
    const source = S.developerPortal;
    const created = await call('POST /v1/orgs/:organizationId/translations', org, 201, {
      body: { language: 'de', source: { space: source, language: 'en' } },
    });
    await call('POST /v1/orgs/:organizationId/translations', org, 409, {
      body: { language: 'de', source: { space: source, language: 'en' } },
    });
    await call('POST /v1/orgs/:organizationId/translations', org, 400, {
      body: { language: 'en', source: { space: source } },
    });
    const translation = { ...org, translationId: created.body.id };
    await call('GET /v1/orgs/:organizationId/translations', org, 200);
    await call('GET /v1/orgs/:organizationId/translations/:translationId', translation, 200);
    await call('PUT /v1/orgs/:organizationId/translations/:translationId', translation, 200, {
      body: {
        instructions: {
          object: 'document',
          data: {},
          nodes: [
            { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ text: 'Du, not Sie.' }] }] },
          ],
        },
      },
    });
    await call('PUT /v1/orgs/:organizationId/translations/:translationId', translation, 400, {
      body: { instructions: null },
    });
    await call('POST /v1/orgs/:organizationId/translations/:translationId/run', translation, 204);
    await p.app.jobs.drain();
    // With its result now.
    expect(
      (await call('GET /v1/orgs/:organizationId/translations/:translationId', translation, 200)).body.result,
    ).toMatchObject({ language: 'de' });
    await call('GET /v1/orgs/:organizationId/translations/:translationId', { ...org, translationId: 'missing' }, 404);
    await call(
      'POST /v1/orgs/:organizationId/translations/:translationId/run',
      { ...org, translationId: 'missing' },
      404,
    );
    await call('GET /v1/orgs/:organizationId/translations', { organizationId: NORTH }, 403, as(U.ben));
    await call('DELETE /v1/orgs/:organizationId/translations/:translationId', translation, 205);
    await call('DELETE /v1/orgs/:organizationId/translations/:translationId', translation, 204);
  });
});

describe('OpenAPI specifications', () => {
  it('creates, lists, reads, updates, publishes and deletes a specification and reads its versions', async () => {
    const org = { organizationId: NORTH };
    const text = (title: string) =>
      `openapi: 3.1.0\ninfo:\n  title: ${title}\n  version: '1'\npaths:\n  /things:\n    get:\n      tags: [things]\n      responses:\n        '200':\n          description: ok\n`;
    const created = await call('POST /v1/orgs/:organizationId/openapi', org, 201, {
      body: { slug: 'conformance', source: { text: text('Conformance') } },
    });
    await call('POST /v1/orgs/:organizationId/openapi', org, 409, {
      body: { slug: 'conformance', source: { text: text('Again') } },
    });
    await call('POST /v1/orgs/:organizationId/openapi', org, 400, {
      body: { slug: 'not a slug', source: { text: text('x') } },
    });
    await p.app.jobs.drain();
    const spec = { ...org, specSlug: created.body.slug };
    await call('GET /v1/orgs/:organizationId/openapi', org, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug', spec, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug', { ...org, specSlug: 'missing' }, 404);
    await call('PUT /v1/orgs/:organizationId/openapi/:specSlug', spec, 200, {
      body: { source: { text: text('Conformance, v2') } },
    });
    await call('PUT /v1/orgs/:organizationId/openapi/:specSlug', { ...org, specSlug: 'conformance-put' }, 201, {
      body: { source: { url: 'http://127.0.0.1:9/openapi.yaml' } },
    });
    await call('PUT /v1/orgs/:organizationId/openapi/:specSlug', spec, 400, { body: { source: { url: 'nope' } } });
    await call('PATCH /v1/orgs/:organizationId/openapi/:specSlug', spec, 200, { body: { visibility: 'public' } });
    await call('PATCH /v1/orgs/:organizationId/openapi/:specSlug', spec, 400, { body: { visibility: 'everyone' } });
    await p.app.jobs.drain();
    const versions = await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions', spec, 200);
    const version = { ...spec, versionId: versions.body.items[1].id };
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest', spec, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content', spec, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest/content/raw', spec, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId', version, 200);
    await call('GET /v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId/content', version, 200);
    await call(
      'GET /v1/orgs/:organizationId/openapi/:specSlug/versions/:versionId',
      { ...spec, versionId: 'missing' },
      404,
    );
    await call(
      'GET /v1/orgs/:organizationId/openapi/:specSlug/versions/latest',
      { ...org, specSlug: 'conformance-put' },
      404,
    );
    await call('DELETE /v1/orgs/:organizationId/openapi/:specSlug', spec, 205);
    await call('DELETE /v1/orgs/:organizationId/openapi/:specSlug', spec, 204);
  });

  it('computes documents and revisions of builtin:openapi sources, and expands computed pages', async () => {
    const spaceId = S.openapi;
    const source = (props: Record<string, unknown>) => ({
      type: 'builtin:openapi',
      props,
      dependencies: { spec: { ref: { kind: 'openapi', spec: PETSTORE } } },
    });
    await call('POST /v1/spaces/:spaceId/content/computed/revision', { spaceId }, 200, {
      body: { source: source({ models: true }), seed: 'conformance' },
    });
    await call('POST /v1/spaces/:spaceId/content/computed/revision', { spaceId }, 200, {
      body: { source: source({ models: false, grouping: 'by-operation' }), seed: 'conformance' },
    });
    await call('POST /v1/spaces/:spaceId/content/computed/document', { spaceId }, 200, {
      body: { source: source({ doc: 'operations', page: 'pets' }), seed: 'conformance' },
    });
    await call('POST /v1/spaces/:spaceId/content/computed/document', { spaceId }, 200, {
      body: { source: source({ doc: 'models' }), seed: 'conformance' },
      query: { schema: 'current' },
    });
    await call('POST /v1/spaces/:spaceId/content/computed/document', { spaceId }, 400, {
      body: { source: source({ doc: 'models' }) },
    });
    const pages = await call('GET /v1/spaces/:spaceId/content/pages', { spaceId }, 200);
    const stored = await call('GET /v1/spaces/:spaceId/content/pages', { spaceId }, 200, {
      query: { computed: false },
    });
    await call('GET /v1/spaces/:spaceId/content', { spaceId }, 200);
    await call('GET /v1/spaces/:spaceId/content', { spaceId }, 200, { query: { computed: false } });
    // A page the specification generated: in the expanded tree, not among the stored pages.
    const storedIds = new Set(stored.body.pages.map((page: { id: string }) => page.id));
    const generated = pages.body.pages.find((page: { id: string }) => !storedIds.has(page.id));
    expect(generated).toBeDefined();
    await call('GET /v1/spaces/:spaceId/content/page/:pageId', { spaceId, pageId: generated.id }, 200, {
      query: { format: 'document' },
    });
  });
});

describe('Conversations', () => {
  it('ingests conversations, lists and reads them, their issues and clusters, and mutes a cluster', async () => {
    const org = { organizationId: SOUTH };
    const conversation = {
      id: 'conformance-1',
      subject: 'Search finds nothing',
      metadata: {
        url: 'https://support.example.test/c/1',
        attributes: { plan: 'free' },
        createdAt: '2025-02-01T09:00:00Z',
      },
      parts: [
        {
          type: 'message',
          role: 'user',
          body: 'The search of our docs site returns no results for words that are on the page.',
        },
        { type: 'message', role: 'assistant', body: 'Thanks, we are looking into it.' },
      ],
    };
    await call('POST /v1/orgs/:organizationId/conversations', org, 204, { body: conversation });
    await call('POST /v1/orgs/:organizationId/conversations', org, 204, {
      body: [conversation, { ...conversation, id: 'conformance-2' }],
    });
    await call('POST /v1/orgs/:organizationId/conversations', org, 400, { body: { id: 'conformance-3', parts: [] } });
    await call('POST /v1/orgs/:organizationId/conversations', { organizationId: NORTH }, 403, {
      ...as(U.ben),
      body: conversation,
    });
    await call('GET /v1/orgs/:organizationId/conversations', org, 200);
    await call('GET /v1/orgs/:organizationId/conversations', org, 200, { query: { source: 'api' } });
    await call(
      'GET /v1/orgs/:organizationId/conversations/:conversationId',
      { ...org, conversationId: 'conformance-1' },
      200,
    );
    await call(
      'GET /v1/orgs/:organizationId/conversations/:conversationId',
      { ...org, conversationId: 'missing' },
      404,
    );
    const issues = await call('GET /v1/orgs/:organizationId/conversations-issues', org, 200, {
      query: { conversation: 'conformance-1' },
    });
    const { issue } = issues.body.items[0];
    await call('GET /v1/orgs/:organizationId/conversations-issues', org, 200, { query: { cluster: issue.cluster } });
    await call('GET /v1/orgs/:organizationId/conversations-issues/:issueId', { ...org, issueId: issue.id }, 200);
    await call('GET /v1/orgs/:organizationId/conversations-issues/:issueId', { ...org, issueId: 'missing' }, 404);
    const cluster = { ...org, clusterId: issue.cluster };
    await call('GET /v1/orgs/:organizationId/conversations-clusters', org, 200, {
      query: { order: 'asc', orderBy: 'createdAt' },
    });
    await call('GET /v1/orgs/:organizationId/conversations-clusters', org, 400, { query: { orderBy: 'nope' } });
    await call('GET /v1/orgs/:organizationId/conversations-clusters/:clusterId', cluster, 200);
    await call('GET /v1/orgs/:organizationId/conversations-clusters/:clusterId', { ...org, clusterId: 'missing' }, 404);
    await call('PATCH /v1/orgs/:organizationId/conversations-clusters/:clusterId', cluster, 200, {
      body: { muted: true },
    });
    await call('PATCH /v1/orgs/:organizationId/conversations-clusters/:clusterId', cluster, 400, {
      body: { muted: null },
    });
  });
});

describe('Integrations', () => {
  it('publishes, lists, reads, installs on an organization, a space and a site, configures, reads events, uninstalls and unpublishes', async () => {
    const named = { integrationName: 'conformance-hooks' };
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
    const publication = {
      organization: NORTH,
      title: 'Conformance hooks',
      description: 'Every field of a publication',
      summary: '# Hooks',
      icon: png,
      previewImages: [png],
      visibility: 'public',
      target: 'all',
      scopes: ['space:content:read', 'site:views:read'],
      categories: ['other'],
      blocks: [
        {
          id: 'card',
          title: 'Card',
          description: 'A card',
          urlUnfurl: ['https://cards.example.com/**'],
          markdown: { codeblock: 'card', body: '{{url}}' },
        },
      ],
      contentSources: [{ id: 'source', title: 'Source', configuration: { componentId: 'configure' } }],
      externalLinks: [{ url: 'https://example.com/docs', label: 'Docs' }],
      configurations: {
        account: {
          properties: {
            token: { type: 'string', title: 'Token', description: 'An API token' },
            level: { type: 'number', default: 1 },
          },
          required: ['token'],
        },
        space: {
          properties: {
            notify: { type: 'boolean', default: false },
            refresh: { type: 'button', title: 'Refresh', callback_url: '/refresh', button_text: 'Refresh' },
          },
        },
        site: { componentId: 'site-settings' },
      },
      contentSecurityPolicy: { 'script-src': "'self'" },
      script: 'export default {};',
      secrets: { KEY: 'value' },
    };
    await call('POST /v1/integrations/:integrationName', named, 200, { body: publication });
    await call('POST /v1/integrations/:integrationName', named, 200, {
      body: { ...publication, contentSecurityPolicy: "default-src 'self'" },
    });
    await call('POST /v1/integrations/:integrationName', named, 400, { body: { ...publication, title: 'x' } });
    await call('POST /v1/integrations/:integrationName', named, 403, { ...as(U.ben), body: publication });
    await call('POST /v1/integrations/:integrationName', named, 404, {
      body: { ...publication, organization: 'nope' },
    });
    await call('POST /v1/integrations/:integrationName', named, 409, {
      body: { ...publication, organization: SOUTH },
    });
    await call('GET /v1/integrations', {}, 200);
    await call('GET /v1/integrations', {}, 200, {
      query: {
        blocks: true,
        contentSources: true,
        blockDomain: 'example.com',
        category: 'other',
        scope: 'site:views:read',
        target: 'space',
        owner: NORTH,
        search: 'conformance',
      },
    });
    await call('GET /v1/integrations', {}, 400, { query: { target: 'planet' } });
    await call('GET /v1/integrations/:integrationName', named, 200);
    await call('GET /v1/integrations/:integrationName', named, 200, as(U.hana));
    await call('GET /v1/integrations/:integrationName', { integrationName: 'missing' }, 404);

    const installed = await call('POST /v1/integrations/:integrationName/installations', named, 201, {
      body: { organization: SOUTH },
    });
    await call('POST /v1/integrations/:integrationName/installations', named, 409, { body: { organization: SOUTH } });
    await call('POST /v1/integrations/:integrationName/installations', named, 403, {
      ...as(U.hana),
      body: { organization: SOUTH },
    });
    const installation = { ...named, installationId: installed.body.id };
    await call('GET /v1/integrations/:integrationName/installations', named, 200);
    await call('GET /v1/integrations/:integrationName/installations/:installationId', installation, 200);
    await call(
      'GET /v1/integrations/:integrationName/installations/:installationId',
      { ...named, installationId: 'missing' },
      404,
    );
    await call('PATCH /v1/integrations/:integrationName/installations/:installationId', installation, 200, {
      body: { configuration: { token: 't', level: 2 }, externalIds: ['e1'] },
    });
    await call('PATCH /v1/integrations/:integrationName/installations/:installationId', installation, 400, {
      body: { configuration: { level: 2 } },
    });
    await call('GET /v1/integrations/:integrationName/installations/:installationId/signing-secret', installation, 200);

    const spaceId = S.developerPortal;
    const onSpace = { ...installation, spaceId };
    await call('POST /v1/integrations/:integrationName/installations/:installationId/spaces', installation, 201, {
      body: { space: spaceId },
    });
    await call('POST /v1/integrations/:integrationName/installations/:installationId/spaces', installation, 409, {
      body: { space: spaceId },
    });
    await call('POST /v1/integrations/:integrationName/installations/:installationId/spaces', installation, 404, {
      body: { space: 'missing' },
    });
    await call('GET /v1/integrations/:integrationName/installations/:installationId/spaces', installation, 200, {
      query: { extended: true },
    });
    await call('GET /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId', onSpace, 200);
    await call('PATCH /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId', onSpace, 200, {
      body: { configuration: { notify: true } },
      query: { extended: true },
    });
    await call('PATCH /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId', onSpace, 400, {
      body: { configuration: { notify: 'yes' } },
    });
    await call('GET /v1/integrations/:integrationName/spaces', named, 200);
    await call('GET /v1/integrations/:integrationName/spaces', named, 200, {
      query: { extended: true, externalId: 'none' },
    });

    const siteId = southSite;
    const onSite = { ...installation, siteId };
    await call('POST /v1/integrations/:integrationName/installations/:installationId/sites', installation, 201, {
      body: { siteId },
      query: { extended: true },
    });
    await call('GET /v1/integrations/:integrationName/installations/:installationId/sites', installation, 200);
    await call('GET /v1/integrations/:integrationName/installations/:installationId/sites/:siteId', onSite, 200, {
      query: { extended: true },
    });
    await call('PATCH /v1/integrations/:integrationName/installations/:installationId/sites/:siteId', onSite, 200, {
      body: { externalIds: ['site-1'] },
    });
    await call('GET /v1/integrations/:integrationName/sites', named, 200, { query: { extended: true } });
    await call(
      'GET /v1/integrations/:integrationName/installations/:installationId/sites/:siteId',
      { ...installation, siteId: 'missing' },
      404,
    );

    const events = await call('GET /v1/integrations/:integrationName/events', named, 200);
    expect(events.body.items.length).toBeGreaterThanOrEqual(6);
    await call(
      'GET /v1/integrations/:integrationName/events/:eventId',
      { ...named, eventId: events.body.items[0].id },
      200,
    );
    await call('GET /v1/integrations/:integrationName/events/:eventId', { ...named, eventId: 'missing' }, 404);
    await call('GET /v1/integrations/:integrationName/events', named, 403, as(U.hana));

    await call('DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId', onSite, 205);
    await call('DELETE /v1/integrations/:integrationName/installations/:installationId/sites/:siteId', onSite, 204);
    await call('DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId', onSpace, 205);
    await call('DELETE /v1/integrations/:integrationName/installations/:installationId/spaces/:spaceId', onSpace, 204);
    await call('DELETE /v1/integrations/:integrationName/installations/:installationId', installation, 205);
    await call('DELETE /v1/integrations/:integrationName/installations/:installationId', installation, 204);
    await call('DELETE /v1/integrations/:integrationName', named, 403, as(U.ben));
    await call('DELETE /v1/integrations/:integrationName', named, 205);
    await call('DELETE /v1/integrations/:integrationName', named, 204);
  });
});

describe('Users', () => {
  it('reads the caller and another user', async () => {
    await call('GET /v1/user', {}, 200);
    await call('GET /v1/users/:userId', { userId: p.userId(U.ben) }, 200);
  });
});

describe('error answers', () => {
  it('400: invalid bodies, queries and positions, and a domain that may not join', async () => {
    await call('PATCH /v1/orgs/:organizationId', { organizationId: NORTH }, 400, { body: { title: 'x' } });
    await call('GET /v1/orgs', {}, 400, { query: { limit: 0 } });
    await call('POST /v1/orgs/:organizationId/join', { organizationId: SOUTH }, 400, as(U.ben));
    await call('POST /v1/collections/:collectionId/move', { collectionId: C.guides }, 400, {
      body: { position: { before: { type: 'space', space: C.guides } } },
    });
    await call('PUT /v1/orgs/:organizationId/agent-instructions', { organizationId: NORTH }, 400, {
      body: { instructions: { object: 'document', data: {}, nodes: [{ object: 'block', nodes: [] }] } },
    });
  });

  it('401: no token, an unknown token', async () => {
    await call('GET /v1/orgs', {}, 401, { token: null });
    await call('GET /v1/spaces/:spaceId', { spaceId: 'any' }, 401, { token: 'not-a-token' });
  });

  it('403: a role too low', async () => {
    await call('PATCH /v1/orgs/:organizationId', { organizationId: NORTH }, 403, {
      ...as(U.ben),
      body: { title: 'Northwind' },
    });
    await call('PATCH /v1/collections/:collectionId', { collectionId: C.product }, 403, {
      ...as(U.finn),
      body: { title: 'Nope' },
    });
  });

  it('404: missing or invisible, by path and by body, and no such route', async () => {
    await call('GET /v1/orgs/:organizationId', { organizationId: 'nope' }, 404);
    await call('GET /v1/users/:userId', { userId: 'nope' }, 404);
    await call('POST /v1/collections/:collectionId/move', { collectionId: 'nope' }, 404, { body: { parent: null } });
    await call('POST /v1/collections/:collectionId/permissions', { collectionId: C.guides }, 404, {
      body: { role: 'read', teams: ['nope'] },
    });
    await call('GET /v1/spaces/:spaceId', { spaceId: S.benefits }, 404, as(U.ben));
    await call('GET /v1/nothing/here', {}, 404);
  });

  it('409: moves and transfers that change nothing, the last admin, restoring what is not deleted', async () => {
    // The first move puts Guides last in Product; the second changes nothing.
    await call('POST /v1/collections/:collectionId/move', { collectionId: C.guides }, 200, {
      body: { parent: C.product },
    });
    await call('POST /v1/collections/:collectionId/move', { collectionId: C.guides }, 409, {
      body: { parent: C.product },
    });
    await call('POST /v1/collections/:collectionId/transfer', { collectionId: C.guides }, 409, {
      body: { organization: NORTH },
    });
    await call('POST /v1/spaces/:spaceId/move', { spaceId: S.userGrant }, 409, {
      body: { parent: C.engineering },
    });
    await call(
      'PATCH /v1/orgs/:organizationId/members/:userId',
      { organizationId: SOUTH, userId: p.userId(U.ada) },
      409,
      { body: { role: 'read' } },
    );
    await call('POST /v1/spaces/:spaceId/restore', { spaceId: S.userGrant }, 409);
  });

  it('412: a transfer to an organization where the caller is not an admin', async () => {
    // hana: admin of Southwind, a member of Northwind (added as an SSO member) but not its admin.
    await call(
      'PATCH /v1/orgs/:organizationId/members/:userId',
      { organizationId: SOUTH, userId: p.userId(U.hana) },
      200,
      { body: { role: 'admin' } },
    );
    await call(
      'POST /v1/orgs/:organizationId/members/:userId/sso',
      { organizationId: NORTH, userId: p.userId(U.hana) },
      200,
    );
    await call('POST /v1/collections/:collectionId/transfer', { collectionId: C.southHandbook }, 412, {
      ...as(U.hana),
      body: { organization: NORTH },
    });
  });
});

describe('coverage', () => {
  // That every operation answered some test with a success status (checked against the
  // description as it was sent) is a check of the whole suite: ../suite-checks.ts.
  it('serves only operations of the description, those it lacks named in the overlay', async () => {
    const db = openDatabase({ file: ':memory:' });
    const app = createPlatform({ db });
    const routes: string[] = [];
    app.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) {
        if (method !== 'HEAD' && route.url.startsWith('/v1/')) routes.push(`${method} ${route.url}`);
      }
    });
    await app.ready();
    await app.close();
    db.close();
    expect(routes.length).toBeGreaterThan(40);
    const checker = conformance();
    const notInSpec = routes.filter((route) => {
      const [method = '', pattern = ''] = route.split(' ');
      return checker.findOperation(method, pattern) === undefined;
    });
    expect(notInSpec).toEqual([]);
  });
});

describe('the validator', () => {
  const checker = conformance();
  const answer = (route: string, status: number, body: unknown): Answer => {
    const [method = '', pattern = ''] = route.split(' ');
    return {
      method,
      path: pattern,
      route: pattern,
      status,
      contentType: 'application/json',
      body: body === undefined ? undefined : JSON.stringify(body),
    };
  };
  const member = {
    object: 'member',
    id: 'u1',
    role: 'read',
    user: { object: 'user', id: 'u1', displayName: 'U', urls: { location: 'https://api.test/v1/users/u1' } },
    disabled: false,
    joinedAt: '2024-01-01T00:00:00.000Z',
    sso: false,
    spaces: 0,
    teams: 0,
    sites: 0,
  };
  const space = {
    object: 'space',
    id: 's1',
    title: 'S',
    visibility: 'private',
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    mergeRules: { type: 'inherit' },
    urls: { location: 'https://api.test/v1/spaces/s1', app: 'https://app.test/s/s1' },
    organization: 'o1',
    revision: 'r1',
    defaultLevel: 'inherit',
    comments: 0,
    changeRequests: 0,
    changeRequestsOpen: 0,
    changeRequestsDraft: 0,
    permissions: {
      view: true,
      access: true,
      admin: true,
      viewInviteLinks: true,
      edit: true,
      triggerGitSync: true,
      comment: true,
      merge: true,
      review: true,
      installIntegration: true,
    },
  };

  it('passes a complete answer and names what is missing or mistyped, by JSON path', () => {
    expect(checker.check(answer('GET /v1/orgs/:organizationId/members/:userId', 200, member))).toBeUndefined();
    const { sites: _, ...withoutSites } = member;
    expect(checker.check(answer('GET /v1/orgs/:organizationId/members/:userId', 200, withoutSites))?.messages).toEqual([
      "/sites: must have required property 'sites'",
    ]);
    const mistyped = checker.check(
      answer('GET /v1/orgs/:organizationId/members', 200, { count: 1, items: [{ ...member, role: 'owner' }] }),
    );
    expect(mistyped?.messages.join('\n')).toMatch(
      /^\/items\/0\/role: matches no alternative of oneOf.*\n +\/items\/0\/role: must be equal to one of the allowed values/,
    );
  });

  it('explains a failed union by its nearest alternative', () => {
    const rules = { type: 'rules', rules: [{ rule: 'require_specific_reviewers' }] };
    const messages =
      checker.check(answer('GET /v1/spaces/:spaceId', 200, { ...space, emoji: '', mergeRules: rules }))?.messages ?? [];
    expect(messages[0]).toBe(
      '/mergeRules: matches no alternative of oneOf; the nearest, #/components/schemas/MergeRulesStandaloneConfiguration, fails with',
    );
    expect(messages.at(-1)).toMatch(/^ +\/mergeRules\/rules\/0\/users: must have required property 'users'$/);
  });

  it('refuses statuses the operation does not declare, and bodies where there is none', () => {
    expect(checker.check(answer('GET /v1/orgs/:organizationId/members/:userId', 201, member))?.messages).toEqual([
      'status 201 is not among the answers the description declares (200)',
    ]);
    expect(checker.check(answer('DELETE /v1/orgs/:organizationId/teams/:teamId', 205, {}))?.messages).toEqual([
      'status 205 has no body in the description, the answer has 2 bytes',
    ]);
  });

  it('checks error answers against the error answer of their status', () => {
    expect(
      checker.check(
        answer('GET /v1/orgs/:organizationId', 404, { error: { code: 404, message: 'Organization not found' } }),
      ),
    ).toBeUndefined();
    expect(
      checker.check(answer('GET /v1/orgs/:organizationId', 404, { error: { code: 400, message: 'x' } }))?.messages,
    ).toEqual(['/error/code: must be equal to one of the allowed values [404]']);
    expect(checker.check(answer('GET /v1/orgs/:organizationId', 401, { message: 'x' }))?.messages).toEqual([
      "/error: must have required property 'error'",
    ]);
  });

  it('names operations the description lacks, checks those the overlay adds, and leaves other paths alone', () => {
    expect(checker.check(answer('GET /v1/orgs/:organizationId/unknown', 200, {}))?.messages[0]).toMatch(
      /which the description \(with its overlay\) does not have/,
    );
    expect(checker.check(answer('POST /v1/spaces/:spaceId/transfer', 200, { anything: true }))?.messages).toContain(
      "/object: must have required property 'object'",
    );
    expect(checker.check(answer('POST /v1/spaces/:spaceId/transfer', 404, { error: { code: 404 } }))?.messages).toEqual(
      ["/error/message: must have required property 'message'"],
    );
    expect(checker.check(answer('GET /health', 200, { status: 'ok' }))).toBeUndefined();
  });

  it('applies the overlay and each pending difference to its operations only', () => {
    const event = {
      id: 'e1',
      integrationId: 'i1',
      createdAt: '2026-01-01T00:00:00.000Z',
      payload: { type: 'installation_setup' },
    };
    const route = 'GET /v1/integrations/:integrationName/events/:eventId';
    const statusOf = (status: string) => checker.check(answer(route, 200, { event: { ...event, status } }))?.messages;
    // The overlay adds `pending` (an event still being delivered) to the description's statuses.
    expect(statusOf('pending')?.some((message) => message.startsWith('/event/status'))).not.toBe(true);
    expect(statusOf('queued')?.some((message) => message.startsWith('/event/status'))).toBe(true);
    for (const entry of PENDING) {
      const [method = '', path = ''] = entry.operation.split(' ');
      expect(checker.findOperation(method, `/v1${path}`)?.name).toBe(entry.operation);
    }
    // A space must carry its emoji, "" for none.
    expect(checker.check(answer('GET /v1/spaces/:spaceId', 200, { ...space, emoji: '' }))).toBeUndefined();
    expect(checker.check(answer('GET /v1/spaces/:spaceId', 200, space))?.messages).toEqual([
      "/emoji: must have required property 'emoji'",
    ]);
    expect(checker.check(answer('GET /v1/spaces/:spaceId', 200, { ...space, emoji: 5 }))?.messages).toEqual([
      '/emoji: must be string',
    ]);
  });
});

describe('the fixture', () => {
  it('fails the test file when an answer does not match, listing it with its test', async () => {
    const other = await startTestPlatform({ seed: false });
    other.violations.push({
      operation: 'GET /orgs',
      path: '/v1/orgs',
      status: 200,
      messages: ['/items: must be array'],
      test: 'a test',
    });
    await expect(other.destroy()).rejects.toThrow(
      /1 platform answer\(s\) do not match the official API description[\s\S]*GET \/orgs → 200 \(\/v1\/orgs\)\n {4}\/items: must be array\n {4}in test: a test/,
    );
  });
});

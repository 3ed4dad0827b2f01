import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLUSTER_ID } from '../../src/platform/conversations/demo.js';
import { Access, isExpired, RESTORE_WINDOW_MS, ROLES, type Role } from '../../src/platform/access.js';
import { DEMO, seedDemoData } from '../../src/platform/demo-data.js';
import { loadDemoOpenAPI } from '../../src/platform/demo-content/load.js';
import { DEMO_SPEC_SLUG } from '../../src/platform/openapi/demo.js';
import { readSpec } from '../../src/platform/openapi/parse.js';
import type { CollectionRow, SpaceRow, UserRow } from '../../src/platform/rows.js';
import { DEMO_SITE_SECRETS } from '../../src/platform/sites/demo.js';
import { openDatabase, type Db } from '../../src/platform/store/db.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const DAY = 24 * 60 * 60 * 1000;
const demoEmails = Object.values(DEMO.users);

function rowCounts(db: Db): Record<string, number> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as Array<{ name: string }>;
  return Object.fromEntries(
    tables.map(({ name }) => [name, (db.prepare(`SELECT COUNT(*) AS n FROM "${name}"`).get() as { n: number }).n]),
  );
}

/**
 * Every id of the database, by `table.column`, sorted: the columns named `id` or ending in `_id`,
 * and those naming a revision or a space.
 */
function seededIds(db: Db): Record<string, string[]> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
    .all() as Array<{ name: string }>;
  const ids: Record<string, string[]> = {};
  for (const { name: table } of tables) {
    const columns = db.prepare(`PRAGMA table_info("${table}")`).all() as Array<{ name: string }>;
    for (const { name } of columns.filter((column) => /^id$|_id$|^revision$|_space$|_revision$/.test(column.name))) {
      ids[`${table}.${name}`] = (
        db.prepare(`SELECT "${name}" FROM "${table}" ORDER BY 1`).pluck(true).all() as unknown[]
      ).map(String);
    }
  }
  return ids;
}

function userByEmail(db: Db, email: string): UserRow {
  return db.prepare('SELECT * FROM users WHERE email = ?').get(email) as UserRow;
}

function spaceByTitle(db: Db, title: string): SpaceRow {
  const rows = db.prepare('SELECT * FROM spaces WHERE title = ?').all(title) as SpaceRow[];
  expect(rows, `space "${title}"`).toHaveLength(1);
  return rows[0]!;
}

function collection(db: Db, id: string): CollectionRow {
  return db.prepare('SELECT * FROM collections WHERE id = ?').get(id) as CollectionRow;
}

describe('seedDemoData', () => {
  let db: Db;
  let tokens: Record<string, string>;

  beforeAll(() => {
    db = openDatabase({ file: ':memory:' });
    tokens = seedDemoData(db);
  });
  afterAll(() => db.close());

  it('returns one distinct url-safe token per demo user, in DEMO.users order, ada first', () => {
    expect(Object.keys(tokens)).toEqual(demoEmails);
    expect(Object.keys(tokens)[0]).toBe(DEMO.users.ada);
    const values = Object.values(tokens);
    expect(new Set(values).size).toBe(values.length);
    for (const token of values) expect(token).toMatch(/^[A-Za-z0-9_-]{40}$/);
    for (const [email, token] of Object.entries(tokens)) {
      const owner = db
        .prepare('SELECT u.email FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE t.token = ?')
        .get(token) as { email: string };
      expect(owner.email).toBe(email);
    }
  });

  it('seeds only once: a second call returns the same tokens and adds no row', () => {
    const before = rowCounts(db);
    expect(seedDemoData(db)).toEqual(tokens);
    expect(seedDemoData(db)).toEqual(tokens);
    expect(rowCounts(db)).toEqual(before);
    expect(db.prepare("SELECT value FROM meta WHERE key = 'demo_seeded'").get()).toEqual({
      value: JSON.stringify(demoEmails),
    });
  });

  it('remembers it was seeded after the database file is closed and reopened', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-seed-'));
    try {
      const file = join(dir, 'platform.sqlite');
      const first = openDatabase({ file });
      const seeded = seedDemoData(first);
      const counts = rowCounts(first);
      first.close();
      const second = openDatabase({ file });
      expect(seedDemoData(second)).toEqual(seeded);
      expect(rowCounts(second)).toEqual(counts);
      second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws random tokens and share keys for each new database, and gives every demo object the same id on every install', () => {
    const other = openDatabase({ file: ':memory:' });
    try {
      const otherTokens = seedDemoData(other);
      expect(Object.values(otherTokens).some((token) => Object.values(tokens).includes(token))).toBe(false);
      const shareKeys = (d: Db) => d.prepare('SELECT share_key FROM spaces ORDER BY id').pluck(true).all() as string[];
      expect(shareKeys(other).some((key, index) => key === shareKeys(db)[index])).toBe(false);

      const ids = seededIds(db);
      expect(seededIds(other)).toEqual(ids);
      // Every kind of object a reader would paste is among them.
      for (const column of [
        'users.id',
        'spaces.id',
        'revisions.id',
        'sites.id',
        'site_spaces.id',
        'site_sections.id',
        'site_section_groups.id',
        'site_share_links.id',
        'change_requests.id',
        'translations.id',
        'openapi_specs.id',
        'saml_providers.id',
        'conversations.id',
        'conversation_clusters.id',
        'integration_installations.id',
        'integration_events.id',
      ])
        expect(ids[column]?.length, column).toBeGreaterThan(0);
      expect(new Set(ids['spaces.id']).size).toBe(ids['spaces.id']!.length);
    } finally {
      other.close();
    }
  });

  it('has the demo users, two organizations and every role plus a guest in Acme', () => {
    expect(rowCounts(db).users).toBe(demoEmails.length);
    const orgs = db.prepare('SELECT * FROM organizations ORDER BY created_at').all() as Array<Record<string, unknown>>;
    expect(orgs.map((o) => o.id)).toEqual([DEMO.orgs.acme, DEMO.orgs.globex]);
    expect(orgs[0]).toMatchObject({
      title: 'Acme Docs',
      hostname: 'acme-docs',
      plan: 'pro',
      default_role: 'read',
      email_domains: '["acme.test"]',
    });
    expect(orgs[1]).toMatchObject({
      title: 'Globex',
      hostname: 'globex',
      plan: 'free',
      default_role: null,
      email_domains: '["globex.test"]',
    });

    const members = db
      .prepare('SELECT m.*, u.email FROM members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ?')
      .all(DEMO.orgs.acme) as Array<{ email: string; role: Role | null; sso: number; last_seen_at: string | null }>;
    const roleOf = Object.fromEntries(members.map((m) => [m.email, m.role]));
    expect(roleOf).toEqual({
      [DEMO.users.ada]: 'admin',
      [DEMO.users.ben]: 'create',
      [DEMO.users.cy]: 'review',
      [DEMO.users.dee]: 'edit',
      [DEMO.users.eve]: 'comment',
      [DEMO.users.finn]: 'read',
      [DEMO.users.gus]: null,
    });
    expect(new Set(Object.values(roleOf))).toEqual(new Set([...ROLES, null]));
    expect(members.filter((m) => m.sso === 1)).toHaveLength(1);
    expect(members.some((m) => m.last_seen_at === null)).toBe(true);
    expect(members.some((m) => m.last_seen_at !== null)).toBe(true);

    const globex = db
      .prepare(
        'SELECT u.email, m.role FROM members m JOIN users u ON u.id = m.user_id WHERE m.org_id = ? ORDER BY u.email',
      )
      .all(DEMO.orgs.globex);
    expect(globex).toEqual([
      { email: DEMO.users.ada, role: 'admin' },
      { email: DEMO.users.hana, role: 'edit' },
    ]);
    expect(
      db.prepare('SELECT COUNT(*) AS n FROM members WHERE user_id = ?').get(userByEmail(db, DEMO.users.ivy).id),
    ).toEqual({ n: 0 });
  });

  it('has the teams with their owners and members', () => {
    const rows = db
      .prepare(
        'SELECT tm.team_id, tm.role, u.email FROM team_members tm JOIN users u ON u.id = tm.user_id ORDER BY tm.team_id, u.email',
      )
      .all() as Array<{ team_id: string; role: string; email: string }>;
    const byTeam = (id: string) => rows.filter((r) => r.team_id === id).map((r) => `${r.email}:${r.role}`);
    expect(byTeam(DEMO.teams.writers)).toEqual([
      `${DEMO.users.ben}:owner`,
      `${DEMO.users.dee}:member`,
      `${DEMO.users.eve}:member`,
    ]);
    expect(byTeam(DEMO.teams.reviewers)).toEqual([`${DEMO.users.cy}:owner`, `${DEMO.users.finn}:member`]);
    expect(byTeam(DEMO.teams.platform)).toEqual([`${DEMO.users.dee}:owner`]);
    expect(db.prepare('SELECT DISTINCT org_id FROM teams').all()).toEqual([{ org_id: DEMO.orgs.acme }]);
  });

  it('nests the collections as DEMO describes', () => {
    const C = DEMO.collections;
    expect(collection(db, C.product)).toMatchObject({ org_id: 'acme', parent_id: null });
    expect(collection(db, C.guides)).toMatchObject({ org_id: 'acme', parent_id: C.product });
    expect(collection(db, C.advanced)).toMatchObject({ org_id: 'acme', parent_id: C.guides });
    expect(collection(db, C.engineering)).toMatchObject({ org_id: 'acme', parent_id: null, default_level: 'read' });
    expect(collection(db, C.internal)).toMatchObject({ org_id: 'acme', parent_id: null, default_level: 'inherit' });
    expect(collection(db, C.globexHandbook)).toMatchObject({ org_id: 'globex', parent_id: null });
    const top = db
      .prepare("SELECT id FROM collections WHERE org_id = 'acme' AND parent_id IS NULL ORDER BY position")
      .all()
      .map((r) => (r as { id: string }).id);
    expect(top).toEqual([C.product, C.engineering, C.internal]);
  });

  it('has at least 25 spaces with varied settings', () => {
    const spaces = db.prepare('SELECT * FROM spaces').all() as SpaceRow[];
    const live = spaces.filter((s) => s.deleted_at === null);
    expect(live.length).toBeGreaterThanOrEqual(25);
    expect(spaces.filter((s) => s.org_id === 'acme').length).toBeGreaterThanOrEqual(17);
    expect(spaces.filter((s) => s.org_id === 'globex').length).toBeGreaterThanOrEqual(5);
    expect(new Set(spaces.map((s) => s.visibility))).toEqual(
      new Set(['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private']),
    );
    for (const s of spaces.filter((s) => s.visibility === 'in-collection')) expect(s.parent_id).not.toBeNull();
    expect(new Set(spaces.map((s) => s.edit_mode))).toEqual(new Set(['live', 'locked']));
    expect(spaces.filter((s) => s.edit_mode === 'live').length).toBeGreaterThan(spaces.length / 2);
    expect(new Set(spaces.map((s) => s.language))).toEqual(new Set(['en', 'fr', 'de', null]));
    expect(new Set(spaces.map((s) => JSON.parse(s.merge_rules).type))).toEqual(new Set(['inherit', 'none', 'rules']));
    expect(spaces.filter((s) => s.parent_id === null && s.org_id === 'acme').length).toBeGreaterThan(0);
    const ids = spaces.flatMap((s) => [s.id, s.revision, s.share_key]);
    expect(new Set(ids).size).toBe(ids.length);
    for (const s of spaces) expect(Date.parse(s.created_at)).toBeLessThanOrEqual(Date.parse(s.updated_at));

    const rules = JSON.parse(spaceByTitle(db, DEMO.spaces.visitorAuth).merge_rules);
    expect(rules).toEqual({
      type: 'rules',
      rules: [{ rule: 'require_specific_reviewers', users: [userByEmail(db, DEMO.users.cy).id] }],
    });
    expect(JSON.parse(spaceByTitle(db, DEMO.spaces.visitorAuth).visitor_auth!)).toEqual({ backend: 'custom' });

    const synced = spaces.filter((s) => s.git_sync !== null);
    expect(synced).toHaveLength(1);
    expect(synced[0]!.title).toBe(DEMO.spaces.gitSynced);
    expect(JSON.parse(synced[0]!.git_sync!)).toEqual({
      repoName: 'acme/handbook',
      installationProvider: 'github',
      integration: 'github',
      url: 'https://github.test/acme/handbook',
      updatedAt: expect.any(String),
    });
  });

  it('has one space deleted inside the restore window and one outside it', () => {
    const deleted = spaceByTitle(db, DEMO.spaces.deleted);
    const expired = spaceByTitle(db, DEMO.spaces.expired);
    const age = (s: SpaceRow) => Date.now() - Date.parse(s.deleted_at!);
    expect(age(deleted)).toBeGreaterThan(1.9 * DAY);
    expect(age(deleted)).toBeLessThan(RESTORE_WINDOW_MS);
    expect(isExpired(deleted)).toBe(false);
    expect(age(expired)).toBeGreaterThan(9.9 * DAY);
    expect(isExpired(expired)).toBe(true);
    expect(db.prepare('SELECT COUNT(*) AS n FROM spaces WHERE deleted_at IS NOT NULL').get()).toEqual({ n: 2 });
  });

  it('gives each user the access the DEMO comments promise', () => {
    const access = (email: string) => new Access(db, userByEmail(db, email));
    const C = DEMO.collections;
    const gus = access(DEMO.users.gus);
    expect(gus.orgRole('acme')).toBeNull();
    expect(gus.collectionRole(collection(db, C.guides))).toBe('read');
    expect(gus.collectionRole(collection(db, C.advanced))).toBe('read');
    expect(gus.collectionRole(collection(db, C.product))).toBeNull();
    expect(gus.collectionRole(collection(db, C.engineering))).toBeNull();
    expect(gus.spaceRole(spaceByTitle(db, DEMO.spaces.guestComment))).toBe('comment');
    expect(gus.spaceRole(spaceByTitle(db, DEMO.spaces.userGrant))).toBeNull();

    expect(access(DEMO.users.ben).collectionRole(collection(db, C.engineering))).toBe('edit');
    expect(access(DEMO.users.eve).collectionRole(collection(db, C.engineering))).toBe('edit');
    expect(access(DEMO.users.cy).collectionRole(collection(db, C.engineering))).toBe('read');
    expect(access(DEMO.users.finn).collectionRole(collection(db, C.engineering))).toBe('read');
    expect(access(DEMO.users.finn).spaceRole(spaceByTitle(db, DEMO.spaces.userGrant))).toBe('edit');
    expect(access(DEMO.users.finn).collectionRole(collection(db, C.internal))).toBe('review');
    expect(access(DEMO.users.eve).collectionRole(collection(db, C.internal))).toBe('comment');
    expect(access(DEMO.users.dee).spaceRole(spaceByTitle(db, DEMO.spaces.teamGrant))).toBe('edit');
    expect(access(DEMO.users.cy).spaceRole(spaceByTitle(db, DEMO.spaces.teamGrant))).toBe('read');
    expect(access(DEMO.users.ada).spaceRole(spaceByTitle(db, 'Handbuch'))).toBe('admin');
    expect(access(DEMO.users.hana).orgRole('acme')).toBeUndefined();
    expect(access(DEMO.users.hana).collectionRole(collection(db, C.globexHandbook))).toBe('edit');
  });

  it('has link invites and agent instructions for Acme', () => {
    expect(db.prepare('SELECT org_id, role FROM link_invites ORDER BY created_at').all()).toEqual([
      { org_id: 'acme', role: 'comment' },
      { org_id: 'acme', role: 'read' },
    ]);
    const row = db.prepare('SELECT * FROM agent_instructions').get() as {
      org_id: string;
      instructions: string;
      updated_by: string;
    };
    expect(row.org_id).toBe('acme');
    expect(row.updated_by).toBe(userByEmail(db, DEMO.users.ada).id);
    expect(JSON.parse(row.instructions)).toMatchObject({
      object: 'document',
      data: { schemaVersion: 1 },
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          nodes: [{ object: 'text', leaves: [{ text: 'Answer in a friendly tone.' }] }],
        },
      ],
    });
  });
});

describe('demo data through the API', () => {
  let p: TestPlatform;

  beforeAll(async () => {
    p = await startTestPlatform();
  });
  afterAll(async () => {
    await p?.destroy();
  });

  it('writes demo-tokens.json in the data folder, the admin first', () => {
    const file = JSON.parse(readFileSync(join(p.dataDir, 'demo-tokens.json'), 'utf8')) as Record<string, string>;
    expect(file).toEqual(p.tokens);
    expect(Object.keys(file)).toEqual(demoEmails);
    expect(Object.keys(file)[0]).toBe(DEMO.users.ada);
    expect(seedDemoData(p.db)).toEqual(p.tokens);
  });

  it('answers GET /v1/user with the owner of each token', async () => {
    for (const email of demoEmails) {
      const { status, body } = await p.api('GET', '/user', { token: p.token(email) });
      expect(status).toBe(200);
      expect(body).toMatchObject({ object: 'user', email, id: userByEmail(p.db, email).id });
    }
    expect((await p.api('GET', '/user', { token: `${p.adminToken}x` })).status).toBe(401);
  });

  it('makes the first token an admin of every organization', async () => {
    const orgs = await p.api('GET', '/orgs');
    expect(orgs.status).toBe(200);
    expect(orgs.body.items.map((o: { id: string }) => o.id)).toEqual([DEMO.orgs.acme, DEMO.orgs.globex]);
    for (const org of Object.values(DEMO.orgs)) {
      const { status, body } = await p.api('GET', `/orgs/${org}`);
      expect(status).toBe(200);
      expect(body.permissions.admin).toBe(true);
    }
    const acme = await p.api('GET', '/orgs/acme');
    expect(acme.body).toMatchObject({
      title: 'Acme Docs',
      emailDomains: ['acme.test'],
      hostname: 'acme-docs',
      plan: 'pro',
      defaultRole: 'read',
    });
    const globex = await p.api('GET', '/orgs/globex');
    expect(globex.body).toMatchObject({ title: 'Globex', emailDomains: ['globex.test'], defaultRole: null });
  });

  it('shows Acme to its guest without member listing, and hides it from hana', async () => {
    const gus = await p.api('GET', '/orgs/acme', { token: p.token(DEMO.users.gus) });
    expect(gus.status).toBe(200);
    expect(gus.body.permissions).toMatchObject({ admin: false, listMembers: false, listTeams: false });
    expect((await p.api('GET', '/orgs/acme', { token: p.token(DEMO.users.hana) })).status).toBe(404);
  });

  it('returns the seeded agent instructions', async () => {
    const { status, body } = await p.api('GET', '/orgs/acme/agent-instructions');
    expect(status).toBe(200);
    expect(body.instructions.nodes[0].nodes[0].leaves[0].text).toBe('Answer in a friendly tone.');
    expect(body.updatedBy).toBe(userByEmail(p.db, DEMO.users.ada).id);
  });

  it('has an active and a pending SAML provider for Acme, the active one on its login page', async () => {
    const { body } = await p.api('GET', '/orgs/acme/saml');
    expect(body.items.map((item: { label: string; status: string }) => [item.label, item.status])).toEqual([
      ['Acme Login', 'active'],
      ['Partner IdP', 'pending'],
    ]);
    const login = await p.api('GET', '/orgs/acme/sso', { token: p.token(DEMO.users.ivy) });
    expect(login.body.items.map((item: { label: string }) => item.label)).toEqual(['Acme Login']);
  });

  it('has two custom fonts of two weights for Acme', async () => {
    const { body } = await p.api('GET', '/orgs/acme/fonts');
    expect(
      body.items.map((font: { fontFamily: string; fontFaces: Array<{ weight: number }> }) => [
        font.fontFamily,
        font.fontFaces.map((face) => face.weight),
      ]),
    ).toEqual([
      ['Acme Sans', [400, 700]],
      ['Acme Serif', [400, 700]],
    ]);
  });

  it('lets ivy join Acme by e-mail domain with its default role, but not hana', async () => {
    const ivy = p.token(DEMO.users.ivy);
    expect((await p.api('GET', '/orgs/acme', { token: ivy })).status).toBe(404);
    expect((await p.api('GET', '/orgs', { token: ivy })).body.items).toEqual([]);

    const joined = await p.api('POST', '/orgs/acme/join', { token: ivy });
    expect(joined.status).toBe(204);
    const org = await p.api('GET', '/orgs/acme', { token: ivy });
    expect(org.status).toBe(200);
    expect(org.body.permissions).toMatchObject({ admin: false, listMembers: true, createContent: false });
    const member = p.db
      .prepare('SELECT role FROM members WHERE org_id = ? AND user_id = ?')
      .get('acme', userByEmail(p.db, DEMO.users.ivy).id) as { role: string | null };
    expect(member.role).toBe('read');
    expect(member.role).toBe(org.body.defaultRole);

    const hana = await p.api('POST', '/orgs/acme/join', { token: p.token(DEMO.users.hana) });
    expect(hana.status).toBe(400);
    expect(hana.body.error.code).toBe(400);
    expect((await p.api('GET', '/orgs/acme', { token: p.token(DEMO.users.hana) })).status).toBe(404);
  });

  it('seeds a sectioned site as Acme’s default content, a share-link site, a visitor-auth site on a custom hostname and a draft', async () => {
    const sites = `/orgs/${DEMO.orgs.acme}/sites`;
    const ok = async (path: string, query?: Record<string, number>) => {
      const answer = await p.api('GET', path, query ? { query } : {});
      expect(answer.status, `${path}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body;
    };
    /** `[type, title or path, default, children…]` of a site's structure; an external link by its address. */
    const outline = async (siteId: string): Promise<unknown> => {
      const structure = await ok(`${sites}/${siteId}/structure`);
      const item = (node: any): unknown => {
        if (node.object === 'site-space') return `${node.path}${node.default ? '*' : ''}`;
        if (node.object === 'site-section')
          return { [`${node.path}${node.default ? '*' : ''}`]: node.siteSpaces.map(item) };
        if (node.object === 'site-external-link') return `link:${node.url}`;
        return { [`group:${node.title}`]: node.children.map(item) };
      };
      return { [structure.type]: structure.structure.map(item) };
    };
    const list = await ok(sites, { limit: 1000 });
    const byTitle = new Map(list.items.map((item: any) => [item.title, item]));
    const docs: any = byTitle.get(DEMO.sites.docs);
    expect(docs).toMatchObject({ published: true, visibility: 'public', basename: 'docs' });
    expect((await ok(`/orgs/${DEMO.orgs.acme}`)).defaultContent).toEqual({ type: 'site', site: docs.id });
    expect(await outline(docs.id)).toEqual({
      sections: [
        { 'getting-started*': ['en*', 'fr'] },
        { product: ['product-overview*'] },
        {
          'group:Resources': [
            { 'release-notes': ['release-notes*'] },
            { status: ['status-page*'] },
            'link:https://community.acme.test/',
          ],
        },
        'link:https://support.acme.test/',
      ],
    });
    expect(byTitle.get(DEMO.sites.partners)).toMatchObject({ visibility: 'share-link', published: true });
    const api: any = byTitle.get(DEMO.sites.api);
    expect(api).toMatchObject({
      visibility: 'visitor-auth',
      hostname: 'api.acme-docs.test',
      adaptiveContent: { enabled: true },
    });
    expect(api.urls.published).toBe('https://api.acme-docs.test/');
    const variants = (await ok(`${sites}/${api.id}/site-spaces`)).items;
    expect(variants.map((item: any) => [item.path, item.condition ?? null])).toEqual([
      ['reference', null],
      ['beta', 'visitor.claims.betaAccess == true'],
    ]);
    expect(byTitle.get(DEMO.sites.draft)).toMatchObject({ published: false });
    const globexSites = await ok(`/orgs/${DEMO.orgs.globex}/sites`);
    expect(globexSites.items.map((item: any) => [item.title, item.hostname])).toEqual([
      [DEMO.sites.globex, 'developers.globex.test'],
    ]);
  });

  it('customizes Acme’s docs site with its custom fonts, links to its spaces, and an override of its French variant', async () => {
    const sites = `/orgs/${DEMO.orgs.acme}/sites`;
    const list = await p.api('GET', sites, { query: { limit: 1000 } });
    const docs = list.body.items.find((item: any) => item.title === DEMO.sites.docs);
    const site = await p.api('GET', `${sites}/${docs.id}/customization`);
    expect(site.status).toBe(200);
    expect(site.body).toMatchObject({
      title: DEMO.sites.docs,
      styling: {
        theme: 'muted',
        font: { custom: true, fontFamily: 'Acme Sans' },
        headingFont: { fontFamily: 'Acme Serif' },
      },
      header: { links: [{ to: { kind: 'space', space: p.spaceId('Release notes') } }, { to: { kind: 'page' } }] },
      ai: { mode: 'assistant', instructions: 'Answer in two sentences.' },
      updatedAt: expect.any(String),
    });
    const french = (await p.api('GET', `${sites}/${docs.id}/site-spaces`, { query: { limit: 100 } })).body.items.find(
      (item: any) => item.path === 'fr',
    );
    const variant = await p.api('GET', `${sites}/${docs.id}/site-spaces/${french.id}/customization`);
    expect(variant.body).toMatchObject({
      title: 'Documentation Acme',
      styling: { theme: 'muted', primaryColor: { light: '#0090FF' } },
      announcement: { message: 'Acme 4.0 est disponible' },
    });
  });

  it('resolves the documented demo examples: the partner portal’s share key and the demo visitor token', async () => {
    const readme = readFileSync(new URL('../../docs/demo-data.md', import.meta.url), 'utf8');
    expect(readme).toContain(DEMO_SITE_SECRETS.visitorToken);
    expect(readme).toContain(DEMO_SITE_SECRETS.shareKey);
    const pub = `${p.url.replace(/\/v1$/, '')}/published`;
    const resolved = async (url: string, visitor?: Record<string, unknown>) => {
      const answer = await p.api('POST', '/urls/published', { body: { url, ...(visitor ? { visitor } : {}) } });
      expect(answer.status, `${url}: ${JSON.stringify(answer.body)}`).toBe(200);
      return answer.body;
    };
    const partners = await resolved(`${pub}/acme-docs/acme-partner-portal/${DEMO_SITE_SECRETS.shareKey}/de`);
    expect(partners).toMatchObject({ space: p.spaceId(DEMO.spaces.shareLink), shareKey: DEMO_SITE_SECRETS.shareKey });
    const beta = await resolved('https://api.acme-docs.test/beta', { jwtToken: DEMO_SITE_SECRETS.visitorToken });
    expect(beta.space).toBe(p.spaceId(DEMO.spaces.userGrant));
    expect(decodeJwt(beta.apiToken).claims).toEqual({ sub: 'demo-visitor', betaAccess: true, plan: 'pro' });
  });

  it('has 40+ conversations from four sources, the installer errors linked to a change request, one cluster muted', async () => {
    const { acme } = DEMO.orgs;
    const conversations = (await p.api('GET', `/orgs/${acme}/conversations`, { query: { limit: 1000 } })).body;
    expect(conversations.items.length).toBeGreaterThanOrEqual(40);
    expect(new Set(conversations.items.map((item: { source: string }) => item.source))).toEqual(
      new Set(['intercom', 'slack', 'email', 'docs-feedback']),
    );
    const clusters = (
      await p.api('GET', `/orgs/${acme}/conversations-clusters`, { query: { orderBy: 'issues', limit: 6 } })
    ).body.items;
    expect(clusters.every((cluster: { stats: { issues: number } }) => cluster.stats.issues >= 3)).toBe(true);
    expect(
      clusters.filter((cluster: { muted: boolean }) => cluster.muted).map((cluster: { icon: string }) => cluster.icon),
    ).toEqual(['credit-card']);
    const install = (await p.api('GET', `/orgs/${acme}/conversations-clusters/${DEMO_CLUSTER_ID}`)).body;
    expect(install).toMatchObject({
      id: DEMO_CLUSTER_ID,
      label: 'Install, permission denied',
      icon: 'download',
      muted: false,
      impact: 'high',
      stats: { issues: 11, conversations: 11 },
    });
    expect(Object.keys(install.sources).sort()).toEqual(['docs-feedback', 'email', 'intercom', 'slack']);
    const two = (
      await p.api('GET', `/orgs/${acme}/conversations-issues`, { query: { conversation: 'email-2024-0425' } })
    ).body.items;
    expect(new Set(two.map((item: { issue: { cluster: string } }) => item.issue.cluster)).size).toBe(2);
    const linked = await p.api('GET', `/spaces/${p.spaceId('Getting started')}/change-requests`, {
      query: { conversationsIssuesCluster: DEMO_CLUSTER_ID },
    });
    expect(linked.body.items.map((item: { subject: string }) => item.subject)).toEqual([
      'Explain the most common install errors',
    ]);
  });

  it('seeds the demo translation: Getting started into French, one run completed', async () => {
    const list = await p.api('GET', '/orgs/acme/translations');
    expect(list.body.count).toBe(1);
    const demo = list.body.items[0];
    expect(demo).toMatchObject({
      object: 'translation',
      status: 'completed',
      source: { space: p.spaceId('Getting started'), language: 'en' },
      language: 'fr',
      result: { language: 'fr' },
      stats: { runs: 1 },
    });
    expect(demo.stats.totalPages).toBe(demo.stats.latestPages);
    expect(demo.stats.totalPages).toBeGreaterThan(5);
    expect(demo.stats.totalWords).toBeGreaterThan(1000);
    expect((await p.api('GET', `/spaces/${demo.result.space}`)).body).toMatchObject({
      title: 'Getting started (FR)',
      language: 'fr',
      parent: DEMO.collections.guides,
      revision: demo.result.revision,
    });
  });

  it('seeds Acme’s translation glossary, whose terms the demo translation kept', async () => {
    const glossary = (await p.api('GET', '/orgs/acme/translations-glossary', { query: { orderBy: 'en' } })).body;
    expect(glossary.items.map((entry: any) => entry.translations.en)).toEqual([
      'Acme',
      'change request',
      'published site',
      'self-hosted',
    ]);
    const result = (await p.api('GET', '/orgs/acme/translations')).body.items[0].result.space;
    const flat = (pages: any[]): any[] => pages.flatMap((page) => [page, ...flat(page.pages ?? [])]);
    const pages = flat((await p.api('GET', `/spaces/${result}/content/pages`)).body.pages);
    const texts = await Promise.all(
      pages.map(async (page) =>
        JSON.stringify(
          (await p.api('GET', `/spaces/${result}/content/page/${page.id}`, { query: { format: 'document' } })).body,
        ),
      ),
    );
    const all = texts.join('\n');
    expect(all).toContain('auto-hébergé');
    expect(all).toContain('demande de modification');
    expect(all).not.toMatch(/⟪\d+⟫/);
  });

  it('seeds change requests in every state on "Getting started": merged, outdated, conflicting, reviewed, draft, archived', async () => {
    const spaceId = p.spaceId('Getting started');
    const [drafts, open, archived, merged] = await Promise.all(
      (['draft', 'open', 'archived', 'merged'] as const).map(
        async (status) =>
          (await p.api('GET', `/spaces/${spaceId}/change-requests`, { query: { status } })).body.items as Array<{
            outdated: boolean;
            conversationsIssuesCluster?: string;
          }>,
      ),
    );
    expect(drafts!.length).toBeGreaterThanOrEqual(1);
    expect(archived!.length).toBeGreaterThanOrEqual(1);
    expect(merged!.length).toBeGreaterThanOrEqual(1);
    expect(open!.filter((item) => item.outdated).length).toBeGreaterThanOrEqual(2);
    expect(open!.some((item) => item.conversationsIssuesCluster === DEMO_CLUSTER_ID)).toBe(true);
  });

  it('has the integrations of Acme, published, installed, with events, traces and site scripts', async () => {
    const video = await p.api('GET', `/integrations/${DEMO.integrations.public}`);
    expect(video.body).toMatchObject({
      visibility: 'public',
      blocks: [{ id: 'video' }],
      configurations: { account: { required: ['channel'] } },
    });
    const installations = (await p.api('GET', `/integrations/${DEMO.integrations.public}/installations`)).body.items;
    expect(
      installations.map((item: { target: { organization: string }; status: string }) => [
        item.target.organization,
        item.status,
      ]),
    ).toEqual([
      [DEMO.orgs.acme, 'active'],
      [DEMO.orgs.globex, 'pending'],
    ]);
    const spaces = (
      await p.api('GET', `/integrations/${DEMO.integrations.public}/spaces`, { query: { extended: true } })
    ).body.items;
    expect(spaces).toMatchObject([{ configuration: { quality: 'hd' }, space: { title: DEMO.spaces.public } }]);
    const events = (await p.api('GET', `/integrations/${DEMO.integrations.public}/events`)).body.items;
    expect(events.map((event: { payload: { type: string } }) => event.payload.type)).toEqual([
      'installation_setup',
      'space_content_updated',
      'space_installation_setup',
      'space_installation_setup',
      'installation_setup',
      'installation_setup',
    ]);
    const trace = (await p.api('GET', `/integrations/${DEMO.integrations.public}/events/${events[0].id}`)).body.trace;
    expect(trace.logs.length).toBeGreaterThan(0);
    const sites = (await p.api('GET', `/integrations/${DEMO.integrations.private}/sites`)).body.items;
    expect(sites).toMatchObject([{ status: 'active', configuration: { trackingId: 'ACME-0001' } }]);
    // Both site integrations add a script to Acme Docs; the support chat's may use cookies.
    const docs = (await p.api('GET', `/orgs/${DEMO.orgs.acme}/sites`)).body.items.find(
      (site: { title: string }) => site.title === DEMO.sites.docs,
    );
    const onDocs = (await p.api('GET', `/orgs/${DEMO.orgs.acme}/sites/${docs.id}/integrations`)).body.items;
    expect(onDocs.map((item: { name: string }) => item.name)).toEqual([
      DEMO.integrations.private,
      DEMO.integrations.chat,
    ]);
    const scripts = (await p.api('GET', `/orgs/${DEMO.orgs.acme}/sites/${docs.id}/integration-scripts`)).body;
    expect(scripts.map((script: { cookies: boolean }) => script.cookies)).toEqual([false, true]);
  });

  it('has the OpenAPI specification of Acme processed, public, with two valid versions, the newest last', async () => {
    const [v1, v2] = loadDemoOpenAPI().versions.map((version) => version.text) as [string, string];
    const specs = `/orgs/${DEMO.orgs.acme}/openapi`;
    const list = await p.api('GET', specs);
    expect(list.status).toBe(200);
    const demo = list.body.items.find((item: any) => item.slug === DEMO_SPEC_SLUG);
    expect(demo).toMatchObject({
      object: 'openapi-spec',
      processingState: 'complete',
      visibility: 'public',
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
    });
    const versions = await p.api('GET', `${specs}/${DEMO_SPEC_SLUG}/versions`);
    expect(versions.body.count).toBe(2);
    expect(versions.body.items[0].id).toBe(demo.lastVersion);
    const raw = await p.api('GET', `${specs}/${DEMO_SPEC_SLUG}/versions/latest/content/raw`);
    expect(raw.body).toEqual({ text: v2, format: 'yaml' });
    // Seeded without processing: the parser must accept both texts.
    for (const text of [v1, v2]) expect((await readSpec(text)).ok).toBe(true);
  });
});

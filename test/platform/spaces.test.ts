import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const DAY = 24 * 60 * 60 * 1000;
const NAMES = {
  ada: 'Ada Lovelace',
  ben: 'Ben Okafor',
  cy: 'Cy Tanaka',
  dee: 'Dee Alvarez',
  eve: 'Eve Martin',
  finn: 'Finn Larsen',
  gus: 'Gus Partner',
  hana: 'Hana Kowalski',
  ivy: 'Ivy Chen',
};
type Key = keyof typeof NAMES;
/** The users' e-mails. */
const U = {} as Record<Key, string>;
const users = {} as Record<Key, TestUser>;
/**
 * Northwind's collections: Product > Guides (gus has `read`) > Advanced, Engineering (`defaultLevel: read`; team
 * Writers has `edit`), Internal (team Reviewers has `review`); and Southwind's Handbook.
 */
const C = {} as Record<'product' | 'guides' | 'advanced' | 'engineering' | 'internal' | 'southHandbook', string>;
/** Spaces the tests single out, by their role in them. */
const S = {
  /** Root, private, Git-synced. */
  gitSynced: 'Company handbook',
  /** In Product, public. */
  public: 'Release notes',
  /** In Engineering, visitor-auth, merge rules requiring cy's review. */
  visitorAuth: 'API reference',
  /** In Engineering, private; finn has a direct `edit` grant. */
  userGrant: 'Runbooks',
  /** In Engineering, private, no merge rules; team Platform has `edit`. */
  teamGrant: 'Architecture decisions',
  /** In Guides, in-collection; gus has a direct `comment` grant. */
  guestComment: 'Tutorials',
  /** In Advanced, private and locked. */
  locked: 'Security hardening',
  /** In Guides, share-link, German. */
  shareLink: 'Erste Schritte',
  /** In Engineering, deleted two days ago. */
  deleted: 'SDK changelog',
  /** In Internal, deleted ten days ago: past restoring. */
  expired: 'Meeting notes 2023',
};
/** Northwind's live spaces in tree order (each collection's contents right after it, by position). */
const ACME_TREE = [
  'Performance tuning',
  'Security hardening',
  'Getting started',
  'Getting started (FR)',
  'Tutorials',
  'Guide de démarrage',
  'Erste Schritte',
  'Product overview',
  'Release notes',
  'Roadmap',
  'Pricing FAQ',
  'API reference',
  'Architecture decisions',
  'Runbooks',
  'Onboarding checklist',
  'Incident postmortems',
  'Company handbook',
  'Status page',
  'Brand guidelines',
  'Petstore API',
];

/** Northwind's teams: Writers (owner ben; dee, eve), Reviewers (owner cy; finn), Platform (owner dee). */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;

let p: TestPlatform;

/**
 * Northwind: ada admin, ben `create`, cy `review`, dee `edit`, eve `comment`, finn `read`, gus a guest; three
 * teams, its collections and spaces (`S`, `ACME_TREE`, two deleted), each with its own emoji but one. Southwind:
 * ada admin, hana `edit`, its Handbook and seven spaces. ivy is in no organization.
 */
beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const [key, name] of Object.entries(NAMES) as Array<[Key, string]>) {
    users[key] = addUser(p, key, { name });
    U[key] = users[key].email;
  }
  const org = addOrg(p, {
    id: 'northwind',
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  const south = addOrg(p, { id: 'southwind', members: { ada: 'admin', hana: 'edit' }, users });
  C.southHandbook = await south.collection('Handbook');
  for (const [title, emoji, visibility] of [
    ['Employee handbook', '📗', 'in-collection'],
    ['Benefits', '🎁', 'private'],
    ['Travel policy', '✈️', 'private'],
    ['Developer portal', '💻', 'public'],
    ['Partner API', '🤝', 'visitor-auth'],
    ['Guide utilisateur', '📙', 'unlisted'],
    ['Handbuch', undefined, 'share-link'],
  ] as const) {
    const inHandbook = title === 'Employee handbook' || title === 'Benefits' || title === 'Travel policy';
    await south.space(title, {
      visibility,
      ...(emoji ? { emoji } : {}),
      ...(inHandbook ? { parent: C.southHandbook } : {}),
    });
  }
  C.product = await org.collection('Product');
  C.guides = await org.collection('Guides', { parent: C.product });
  C.advanced = await org.collection('Advanced', { parent: C.guides });
  C.engineering = await org.collection('Engineering', { defaultLevel: 'read' });
  C.internal = await org.collection('Internal');
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: C.engineering }, 'edit', { teams: [T.writers] });
  await org.grant({ collection: C.internal }, 'review', { teams: [T.reviewers] });
  await org.grant({ collection: C.guides }, 'read', { users: ['gus'] });
  const spaces: Array<[string, string | undefined, Record<string, string>]> = [
    ['Performance tuning', C.advanced, { emoji: '⚡', visibility: 'in-collection', language: 'en' }],
    ['Security hardening', C.advanced, { emoji: '🔒', language: 'en', editMode: 'locked' }],
    ['Getting started', C.guides, { emoji: '👋', visibility: 'public', language: 'en' }],
    ['Getting started (FR)', C.guides, { language: 'fr' }],
    ['Tutorials', C.guides, { emoji: '🧭', visibility: 'in-collection', language: 'en' }],
    ['Guide de démarrage', C.guides, { emoji: '🇫🇷', visibility: 'unlisted', language: 'fr' }],
    ['Erste Schritte', C.guides, { emoji: '🇩🇪', visibility: 'share-link', language: 'de' }],
    ['Product overview', C.product, { emoji: '🚀', visibility: 'public', language: 'en' }],
    ['Release notes', C.product, { emoji: '📣', visibility: 'public', language: 'en' }],
    ['Roadmap', C.product, { emoji: '🗺️', visibility: 'in-collection' }],
    ['Pricing FAQ', C.product, { visibility: 'share-link', language: 'en' }],
    ['API reference', C.engineering, { emoji: '🔌', visibility: 'visitor-auth', language: 'en' }],
    ['Architecture decisions', C.engineering, { emoji: '🏛️' }],
    ['Runbooks', C.engineering, { emoji: '🛠️', language: 'en' }],
    ['SDK changelog', C.engineering, { emoji: '🧾', language: 'en' }],
    ['Onboarding checklist', C.internal, { emoji: '✅', visibility: 'in-collection' }],
    ['Incident postmortems', C.internal, { emoji: '🚒', editMode: 'locked' }],
    ['Meeting notes 2023', C.internal, { emoji: '🗒️' }],
    ['Company handbook', undefined, { emoji: '📘', language: 'en' }],
    ['Status page', undefined, { emoji: '🟢', visibility: 'public', language: 'en' }],
    ['Brand guidelines', undefined, { emoji: '🎨', visibility: 'unlisted', editMode: 'locked' }],
    ['Petstore API', undefined, { emoji: '🐾', visibility: 'public', language: 'en' }],
  ];
  const ids: Record<string, string> = {};
  for (const [title, parent, { editMode, ...settings }] of spaces) {
    ids[title] = await org.space(title, { ...(parent ? { parent } : {}), ...settings });
    if (editMode) expect((await p.api('PATCH', `/spaces/${ids[title]}`, { body: { editMode } })).status).toBe(200);
  }
  const mergeRules = { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [users.cy.id] }] };
  expect((await p.api('PATCH', `/spaces/${ids[S.visitorAuth]}`, { body: { mergeRules } })).status).toBe(200);
  const none = { mergeRules: { type: 'none' } };
  expect((await p.api('PATCH', `/spaces/${ids[S.teamGrant]}`, { body: none })).status).toBe(200);
  // The API has no way to connect a Git repository: it is a setting of the platform's store.
  const gitSync = { repoName: 'northwind/handbook', installationProvider: 'github', integration: 'github' };
  p.db
    .prepare('UPDATE spaces SET git_sync = ? WHERE id = ?')
    .run(JSON.stringify({ ...gitSync, url: 'https://github.test/northwind/handbook' }), ids[S.gitSynced]);
  await org.grant({ space: ids[S.userGrant]! }, 'edit', { users: ['finn'] });
  await org.grant({ space: ids[S.teamGrant]! }, 'edit', { teams: [T.platform] });
  await org.grant({ space: ids[S.guestComment]! }, 'comment', { users: ['gus'] });
  for (const [title, days] of [
    [S.deleted, 2],
    [S.expired, 10],
  ] as const) {
    expect((await p.api('DELETE', `/spaces/${ids[title]}`)).status).toBe(205);
    p.db
      .prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?')
      .run(new Date(Date.now() - days * DAY).toISOString(), ids[title]);
  }
});

afterAll(async () => {
  await p?.destroy();
});

const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });
const userId = (email: string) => p.userId(email);
const spaceRow = (title: string) =>
  p.db.prepare('SELECT * FROM spaces WHERE title = ? ORDER BY created_at LIMIT 1').get(title) as {
    id: string;
    share_key: string;
    revision: string;
    position: number;
    deleted_at: string | null;
  };
const spaceId = (title: string) => spaceRow(title).id;
const titles = (items: Array<{ title: string }>) => items.map((item) => item.title);
const setDeletedAt = (id: string, msAgo: number | null) =>
  p.db
    .prepare('UPDATE spaces SET deleted_at = ? WHERE id = ?')
    .run(msAgo === null ? null : new Date(Date.now() - msAgo).toISOString(), id);

async function createSpace(body: Record<string, unknown> = {}, email: string = U.ada): Promise<any> {
  const answer = await p.api('POST', '/orgs/northwind/spaces', { ...as(email), body });
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return answer.body;
}

const collectionSpaces = async (collectionId: string) =>
  titles((await p.api('GET', `/collections/${collectionId}/spaces`)).body.items);

describe('GET /orgs/{organizationId}/spaces', () => {
  it('lists the non-deleted spaces in tree order', async () => {
    const answer = await p.api('GET', '/orgs/northwind/spaces');
    expect(answer.status).toBe(200);
    expect(answer.body.count).toBe(ACME_TREE.length);
    expect(titles(answer.body.items)).toEqual(ACME_TREE);
    expect(answer.body.items.find((s: any) => s.title === S.gitSynced)).toMatchObject({
      object: 'space',
      organization: 'northwind',
      visibility: 'private',
      editMode: 'live',
      gitSync: { repoName: 'northwind/handbook', url: 'https://github.test/northwind/handbook' },
      permissions: { view: true, access: true, admin: true, edit: true },
    });
  });

  it('walks the pages with limit=2', async () => {
    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const answer = await p.api('GET', '/orgs/northwind/spaces', { query: { limit: 2, ...(page ? { page } : {}) } });
      expect(answer.status).toBe(200);
      expect(answer.body.count).toBe(ACME_TREE.length);
      // Two at a time; the last page holds what is left.
      expect(answer.body.items).toHaveLength(Math.min(2, ACME_TREE.length - seen.length));
      seen.push(...titles(answer.body.items));
      page = answer.body.next?.page;
      pages += 1;
    } while (page);
    expect(pages).toBe(Math.ceil(ACME_TREE.length / 2));
    expect(seen).toEqual(ACME_TREE);
  });

  it('validates page and limit', async () => {
    const queries: Array<Record<string, string | number>> = [
      { limit: 0 },
      { limit: 1001 },
      { limit: 2.5 },
      { page: '***' },
    ];
    for (const query of queries) {
      expect((await p.api('GET', '/orgs/northwind/spaces', { query })).status, JSON.stringify(query)).toBe(400);
    }
  });

  it('shows a guest only what was granted, and is a 404 outside the organization', async () => {
    const gus = await p.api('GET', '/orgs/northwind/spaces', as(U.gus));
    expect(gus.status).toBe(200);
    expect(titles(gus.body.items)).toEqual(ACME_TREE.slice(0, 7));
    expect((await p.api('GET', '/orgs/northwind/spaces', as(U.hana))).status).toBe(404);
    expect((await p.api('GET', '/orgs/northwind/spaces', as(U.ivy))).status).toBe(404);
    expect((await p.api('GET', '/orgs/southwind/spaces', as(U.hana))).body.count).toBe(7);
  });

  it('answers each reader the role and origin of their own request from kept items, and a write at once', async () => {
    const shareLink = (answer: { body: { items: any[] } }) => answer.body.items.find((s) => s.title === S.shareLink);
    // Read first by the admin, then (no write between) by a reader and through another host name.
    const admin = shareLink(await p.api('GET', '/orgs/northwind/spaces'));
    const reader = shareLink(await p.api('GET', '/orgs/northwind/spaces', as(U.finn)));
    // fetch sends the URL's host whatever the headers say: undici's request sends the one given.
    const other = await request(`${p.url}/orgs/northwind/spaces`, {
      headers: { host: 'docs.example', authorization: `Bearer ${p.adminToken}` },
    });
    const elsewhere = shareLink({ body: (await other.body.json()) as { items: any[] } });
    expect(admin.permissions.admin).toBe(true);
    expect(admin.urls.published).toContain('shareKey=');
    expect(reader.permissions).toMatchObject({ admin: false, edit: false });
    expect(reader.urls.published).not.toContain('shareKey=');
    expect(elsewhere.urls.location).toBe(`http://docs.example/v1/spaces/${admin.id}`);

    const renamed = await p.api('PATCH', `/spaces/${admin.id}`, { body: { title: 'Erste Schritte (neu)' } });
    expect(renamed.status).toBe(200);
    const after = await p.api('GET', '/orgs/northwind/spaces', as(U.finn));
    expect(after.body.items.find((s: any) => s.id === admin.id).title).toBe('Erste Schritte (neu)');
    const inCollection = await p.api('GET', `/collections/${C.guides}/spaces`, as(U.finn));
    expect(inCollection.body.items.find((s: any) => s.id === admin.id).title).toBe('Erste Schritte (neu)');
    await p.api('PATCH', `/spaces/${admin.id}`, { body: { title: S.shareLink } });
  });
});

describe('POST /orgs/{organizationId}/spaces', () => {
  it('creates a private space at the end of the root', async () => {
    const created = await createSpace({ title: 'Fresh space' });
    expect(created).toMatchObject({
      object: 'space',
      title: 'Fresh space',
      visibility: 'private',
      editMode: 'live',
      organization: 'northwind',
      defaultLevel: 'inherit',
      mergeRules: { type: 'inherit' },
    });
    expect(created.parent).toBeUndefined();
    expect(created.deletedAt).toBeUndefined();
    expect(created.revision).toMatch(/^[A-Za-z0-9]{20}$/);
    const row = spaceRow('Fresh space');
    expect(row.share_key).toMatch(/^[A-Za-z0-9]{24}$/);
    expect(titles((await p.api('GET', '/orgs/northwind/spaces')).body.items).at(-1)).toBe('Fresh space');
  });

  it('accepts every documented field and defaults the title', async () => {
    expect((await createSpace({})).title).toBe('Untitled');
    const full = await createSpace({
      title: 'x'.repeat(50),
      emoji: '🧪',
      parent: C.guides,
      language: 'fr',
      editMode: 'locked',
      visibility: 'in-collection',
    });
    expect(full).toMatchObject({
      emoji: '🧪',
      parent: C.guides,
      language: 'fr',
      editMode: 'locked',
      visibility: 'in-collection',
    });
    expect(full.permissions.edit).toBe(false);
    expect((await collectionSpaces(C.guides)).at(-1)).toBe('x'.repeat(50));
  });

  it('enforces the limits', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ title: 'x'.repeat(51) }, 'title'],
      [{ emoji: 'x'.repeat(51) }, 'emoji'],
      [{ visibility: 'in-collection' }, 'visibility'],
      [{ visibility: 'secret' }, 'visibility'],
      [{ language: 'klingon' }, 'language'],
      [{ editMode: 'open' }, 'editMode'],
      [{ title: 'A', template: 'x' }, 'template'],
    ];
    for (const [body, field] of cases) {
      const answer = await p.api('POST', '/orgs/northwind/spaces', { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toContain(field);
    }
  });

  it('needs a title of 1 to 50 characters after trimming', async () => {
    for (const title of ['', ' ', '\t\n ', 'x'.repeat(51), ` ${'x'.repeat(51)} `]) {
      const answer = await p.api('POST', '/orgs/northwind/spaces', { body: { title } });
      expect(answer.status, JSON.stringify(title)).toBe(400);
      expect(answer.body.error.message).toBe('Invalid body field "title": must be 1 to 50 characters');
    }
    expect((await createSpace({ title: '  Padded  ' })).title).toBe('Padded');
    expect((await createSpace({ title: `  ${'y'.repeat(50)}  ` })).title).toBe('y'.repeat(50));
  });

  it('needs create in the organization and on the parent', async () => {
    expect((await p.api('POST', '/orgs/northwind/spaces', { ...as(U.finn), body: {} })).status).toBe(403);
    expect((await p.api('POST', '/orgs/northwind/spaces', { ...as(U.gus), body: { parent: C.guides } })).status).toBe(
      403,
    );
    expect((await p.api('POST', '/orgs/northwind/spaces', { ...as(U.hana), body: {} })).status).toBe(404);
    expect(
      (await p.api('POST', '/orgs/northwind/spaces', { ...as(U.ben), body: { parent: C.engineering } })).status,
    ).toBe(403);
    expect((await p.api('POST', '/orgs/northwind/spaces', { body: { parent: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', '/orgs/northwind/spaces', { body: { parent: C.southHandbook } })).status).toBe(404);
    const ben = await createSpace({ title: 'By ben', parent: C.product }, U.ben);
    expect(ben.permissions).toMatchObject({ access: true, admin: false, edit: true, review: true });
  });
});

describe('GET /spaces/{spaceId}', () => {
  it('returns the space with permissions for the caller role', async () => {
    const finn = await p.api('GET', `/spaces/${spaceId(S.userGrant)}`, as(U.finn));
    expect(finn.status).toBe(200);
    expect(finn.body).toMatchObject({ title: S.userGrant, parent: C.engineering, visibility: 'private' });
    expect(finn.body.permissions).toMatchObject({ view: true, access: true, edit: true, review: false, admin: false });
    expect(finn.body.urls.location).toMatch(new RegExp(`/v1/spaces/${spaceId(S.userGrant)}$`));
    expect((await p.api('GET', '/spaces/nope')).status).toBe(404);
  });

  it('lets any authenticated user read public and unlisted spaces, nothing else', async () => {
    for (const title of [S.public, 'Status page', 'Brand guidelines', 'Guide de démarrage']) {
      const answer = await p.api('GET', `/spaces/${spaceId(title)}`, as(U.hana));
      expect(answer.status, title).toBe(200);
      expect(answer.body.permissions).toEqual({
        view: true,
        access: false,
        admin: false,
        viewInviteLinks: false,
        edit: false,
        triggerGitSync: false,
        comment: false,
        merge: false,
        review: false,
        installIntegration: false,
      });
    }
    for (const title of [S.gitSynced, S.userGrant, 'Roadmap', S.visitorAuth]) {
      expect((await p.api('GET', `/spaces/${spaceId(title)}`, as(U.hana))).status, title).toBe(404);
    }
    expect((await p.api('GET', `/spaces/${spaceId(S.public)}`, as(U.ivy))).status).toBe(200);
  });

  it('opens a share-link space with its share key only', async () => {
    const row = spaceRow(S.shareLink);
    expect((await p.api('GET', `/spaces/${row.id}`, as(U.hana))).status).toBe(404);
    expect((await p.api('GET', `/spaces/${row.id}`, { ...as(U.hana), query: { shareKey: 'wrong' } })).status).toBe(404);
    const opened = await p.api('GET', `/spaces/${row.id}`, { ...as(U.hana), query: { shareKey: row.share_key } });
    expect(opened.status).toBe(200);
    expect(opened.body).toMatchObject({ title: S.shareLink, language: 'de', visibility: 'share-link' });
    expect(opened.body.permissions.access).toBe(false);
    const other = spaceRow('Pricing FAQ');
    expect(
      (await p.api('GET', `/spaces/${other.id}`, { ...as(U.hana), query: { shareKey: row.share_key } })).status,
    ).toBe(404);
  });

  it('gives the admins of a share-link space its share key in urls.published, and that URL opens it', async () => {
    const row = spaceRow(S.shareLink);
    const base = `${new URL(p.url).origin}/published`;
    const admin = await p.api('GET', `/spaces/${row.id}`);
    const published = new URL(admin.body.urls.published);
    expect(`${published.origin}${published.pathname}`).toBe(`${base}/${row.id}`);
    expect(published.searchParams.get('shareKey')).toBe(row.share_key);
    expect(admin.body.urls.public).toBeUndefined();
    const listed = (await p.api('GET', '/orgs/northwind/spaces', { query: { limit: 1000 } })).body.items.find(
      (space: { id: string }) => space.id === row.id,
    );
    expect(listed.urls.published).toBe(admin.body.urls.published);

    const opened = await p.api('GET', `/spaces/${row.id}`, {
      ...as(U.hana),
      query: { shareKey: published.searchParams.get('shareKey')! },
    });
    expect(opened.status).toBe(200);
    expect(opened.body.urls.published).toBe(`${base}/${row.id}`);
    const reader = await p.api('GET', `/spaces/${row.id}`, as(U.ben));
    expect(reader.status).toBe(200);
    expect(reader.body.permissions.admin).toBe(false);
    expect(reader.body.urls.published).toBe(`${base}/${row.id}`);

    const plain = await p.api('GET', `/spaces/${spaceId(S.gitSynced)}`);
    expect(plain.body.urls.published).toBe(`${base}/${spaceId(S.gitSynced)}`);
    const pub = await p.api('GET', `/spaces/${spaceId(S.public)}`);
    expect(pub.body.urls).toMatchObject({
      published: `${base}/${spaceId(S.public)}`,
      public: `${base}/${spaceId(S.public)}`,
    });
  });

  it('follows inheritance for a guest', async () => {
    const tutorials = await p.api('GET', `/spaces/${spaceId(S.guestComment)}`, as(U.gus));
    expect(tutorials.status).toBe(200);
    expect(tutorials.body.permissions).toMatchObject({ access: true, comment: true, edit: false });
    expect((await p.api('GET', `/spaces/${spaceId(S.locked)}`, as(U.gus))).status).toBe(200);
    expect((await p.api('GET', `/spaces/${spaceId(S.gitSynced)}`, as(U.gus))).status).toBe(404);
    expect((await p.api('GET', `/spaces/${spaceId(S.userGrant)}`, as(U.gus))).status).toBe(404);
  });

  it('shows deleted spaces within the window to their admins only', async () => {
    const deleted = await p.api('GET', `/spaces/${spaceId(S.deleted)}`);
    expect(deleted.status).toBe(200);
    expect(Date.now() - Date.parse(deleted.body.deletedAt)).toBeGreaterThan(DAY);
    expect((await p.api('GET', `/spaces/${spaceId(S.deleted)}`, as(U.dee))).status).toBe(404);
    expect((await p.api('GET', `/spaces/${spaceId(S.expired)}`)).status).toBe(404);
  });
});

describe('PATCH /spaces/{spaceId}', () => {
  it('updates the fields and bumps updatedAt', async () => {
    const created = await createSpace({ title: 'Patch me', emoji: '🙂' });
    const answer = await p.api('PATCH', `/spaces/${created.id}`, {
      body: {
        title: 'Patched',
        emoji: '🚀',
        language: 'ja',
        editMode: 'locked',
        defaultLevel: 'comment',
        mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [userId(U.cy)] }] },
      },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      title: 'Patched',
      emoji: '🚀',
      language: 'ja',
      editMode: 'locked',
      defaultLevel: 'comment',
      mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [userId(U.cy)] }] },
    });
    expect(Date.parse(answer.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
    const noEmoji = await p.api('PATCH', `/spaces/${created.id}`, { body: { emoji: null } });
    expect(noEmoji.status).toBe(200);
    // Removed: "", the description's value for no emoji.
    expect(noEmoji.body.emoji).toBe('');
    expect((await p.api('GET', `/spaces/${created.id}`)).body).toMatchObject({ title: 'Patched', editMode: 'locked' });
  });

  it('validates the body', async () => {
    const id = spaceId(S.gitSynced);
    const bodies = [
      {},
      { title: 'x'.repeat(51) },
      { emoji: 'x'.repeat(51) },
      { visibility: 'public' },
      { editMode: 'frozen' },
      { defaultLevel: 'owner' },
      { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [userId(U.hana)] }] } },
    ];
    for (const body of bodies) {
      expect((await p.api('PATCH', `/spaces/${id}`, { body })).status, JSON.stringify(body)).toBe(400);
    }
    const unknownReviewer = await p.api('PATCH', `/spaces/${id}`, {
      body: {
        mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [userId(U.cy), 'nobody'] }] },
      },
    });
    expect(unknownReviewer.status).toBe(404);
    expect(unknownReviewer.body.error.message).toBe(
      'User not found: body field "mergeRules.rules.0.users.1" ("nobody")',
    );
  });

  it('refuses empty and blank titles', async () => {
    const created = await createSpace({ title: 'Keeps its title' });
    for (const title of ['', '   ', 'x'.repeat(51)]) {
      const answer = await p.api('PATCH', `/spaces/${created.id}`, { body: { title } });
      expect(answer.status, JSON.stringify(title)).toBe(400);
      expect(answer.body.error.message).toBe('Invalid body field "title": must be 1 to 50 characters');
    }
    expect((await p.api('PATCH', `/spaces/${created.id}`, { body: { title: ' Trimmed ' } })).body.title).toBe(
      'Trimmed',
    );
  });

  it('answers the permissions of the role after the update', async () => {
    const created = await createSpace({ title: 'Self demotion' });
    await p.api('PATCH', `/spaces/${created.id}`, { body: { defaultLevel: 'admin' } });
    const before = await p.api('GET', `/spaces/${created.id}`, as(U.cy));
    expect(before.body.permissions.admin).toBe(true);
    const lowered = await p.api('PATCH', `/spaces/${created.id}`, { ...as(U.cy), body: { defaultLevel: 'read' } });
    expect(lowered.status).toBe(200);
    expect(lowered.body.permissions).toMatchObject({ admin: false, edit: false, comment: false, access: true });
    expect(lowered.body.permissions).toEqual((await p.api('GET', `/spaces/${created.id}`, as(U.cy))).body.permissions);
  });

  it('needs edit for title/emoji/language and admin for settings', async () => {
    const releaseNotes = spaceId(S.public);
    const finn = await p.api('PATCH', `/spaces/${releaseNotes}`, { ...as(U.finn), body: { title: 'Nope' } });
    expect(finn.status).toBe(403);
    expect(finn.body.error.code).toBe(403);
    const runbooks = spaceId(S.userGrant);
    expect((await p.api('PATCH', `/spaces/${runbooks}`, { ...as(U.finn), body: { language: 'fr' } })).status).toBe(200);
    expect((await p.api('PATCH', `/spaces/${runbooks}`, { ...as(U.finn), body: { editMode: 'locked' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', `/spaces/${runbooks}`, { ...as(U.dee), body: { defaultLevel: 'read' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', `/spaces/${releaseNotes}`, { ...as(U.hana), body: { title: 'Nope' } })).status).toBe(
      403,
    );
    expect(
      (await p.api('PATCH', `/spaces/${spaceId(S.gitSynced)}`, { ...as(U.hana), body: { title: 'Nope' } })).status,
    ).toBe(404);
    expect((await p.api('PATCH', `/spaces/${spaceId(S.deleted)}`, { body: { title: 'Nope' } })).status).toBe(404);
    expect((await p.api('GET', `/spaces/${releaseNotes}`)).body.title).toBe(S.public);
  });
});

describe('DELETE /spaces/{spaceId} and POST /spaces/{spaceId}/restore', () => {
  it('deletes (205), then answers 204, and restores within the window', async () => {
    const created = await createSpace({ title: 'Short-lived', parent: C.internal });
    const deleted = await p.api('DELETE', `/spaces/${created.id}`);
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect((await p.api('DELETE', `/spaces/${created.id}`)).status).toBe(204);
    expect(await collectionSpaces(C.internal)).not.toContain('Short-lived');
    expect((await p.api('GET', `/spaces/${created.id}`)).body.deletedAt).toEqual(expect.any(String));

    const restored = await p.api('POST', `/spaces/${created.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.deletedAt).toBeUndefined();
    expect(restored.body.parent).toBe(C.internal);
    expect(await collectionSpaces(C.internal)).toContain('Short-lived');
  });

  it('restores the space deleted 2 days ago, not the one deleted 10 days ago', async () => {
    const restored = await p.api('POST', `/spaces/${spaceId(S.deleted)}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ title: S.deleted, parent: C.engineering });
    expect(restored.body.deletedAt).toBeUndefined();
    expect(await collectionSpaces(C.engineering)).toContain(S.deleted);
    expect((await p.api('POST', `/spaces/${spaceId(S.expired)}/restore`)).status).toBe(404);
  });

  it('honours the 7-day edge and answers 409 for a space that is not deleted', async () => {
    const inside = await createSpace({ title: 'Almost 7 days' });
    setDeletedAt(inside.id, 7 * DAY - 60_000);
    expect((await p.api('POST', `/spaces/${inside.id}/restore`)).status).toBe(200);
    const outside = await createSpace({ title: 'Just over 7 days' });
    setDeletedAt(outside.id, 7 * DAY + 60_000);
    expect((await p.api('POST', `/spaces/${outside.id}/restore`)).status).toBe(404);
    expect((await p.api('GET', `/spaces/${outside.id}`)).status).toBe(404);
    expect((await p.api('DELETE', `/spaces/${outside.id}`)).status).toBe(204);

    const notDeleted = await p.api('POST', `/spaces/${spaceId(S.gitSynced)}/restore`);
    expect(notDeleted.status).toBe(409);
    expect(notDeleted.body.error.message).toBe('Space is not deleted');
    expect((await p.api('POST', '/spaces/nope/restore')).status).toBe(404);
  });

  it('needs admin', async () => {
    const created = await createSpace({ title: 'Guarded', parent: C.engineering });
    expect((await p.api('DELETE', `/spaces/${created.id}`, as(U.dee))).status).toBe(403);
    expect((await p.api('DELETE', `/spaces/${spaceId(S.gitSynced)}`, as(U.ben))).status).toBe(403);
    expect((await p.api('DELETE', `/spaces/${spaceId(S.gitSynced)}`, as(U.hana))).status).toBe(204);
    expect((await p.api('DELETE', `/spaces/${spaceId(S.public)}`, as(U.hana))).status).toBe(403);
    expect((await p.api('DELETE', '/spaces/nope')).status).toBe(204);
    expect((await p.api('GET', `/spaces/${spaceId(S.gitSynced)}`)).body.deletedAt).toBeUndefined();

    await p.api('DELETE', `/spaces/${created.id}`);
    expect((await p.api('POST', `/spaces/${created.id}/restore`, as(U.dee))).status).toBe(404);
    expect((await p.api('POST', `/spaces/${spaceId(S.public)}/restore`, as(U.finn))).status).toBe(403);
  });

  it('puts an in-collection space whose collection is gone back as private', async () => {
    const holder = await p.api('POST', '/orgs/northwind/collections', { body: { title: 'Holder' } });
    const space = await createSpace({ title: 'Orphan', parent: holder.body.id, visibility: 'in-collection' });
    expect((await p.api('DELETE', `/collections/${holder.body.id}`)).status).toBe(205);
    const restored = await p.api('POST', `/spaces/${space.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body.parent).toBeUndefined();
    expect(restored.body.visibility).toBe('private');
    expect(titles((await p.api('GET', '/orgs/northwind/spaces')).body.items).at(-1)).toBe('Orphan');
  });
});

describe('POST /spaces/{spaceId}/duplicate', () => {
  it('copies a space next to the original with new ids', async () => {
    const original = spaceRow(S.public);
    const answer = await p.api('POST', `/spaces/${original.id}/duplicate`);
    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({
      title: `${S.public} (copy)`,
      parent: C.product,
      visibility: 'public',
      emoji: '📣',
      language: 'en',
      editMode: 'live',
      organization: 'northwind',
    });
    expect(answer.body.id).not.toBe(original.id);
    expect(answer.body.revision).not.toBe(original.revision);
    const copy = p.db.prepare('SELECT share_key FROM spaces WHERE id = ?').get(answer.body.id) as { share_key: string };
    expect(copy.share_key).not.toBe(original.share_key);
    const order = await collectionSpaces(C.product);
    expect(order.indexOf(`${S.public} (copy)`)).toBe(order.indexOf(S.public) + 1);
    expect(order.indexOf('Roadmap')).toBe(order.indexOf(S.public) + 2);
  });

  it('copies the settings and the direct grants', async () => {
    const answer = await p.api('POST', `/spaces/${spaceId(S.teamGrant)}/duplicate`);
    expect(answer.status).toBe(201);
    expect(answer.body.mergeRules).toEqual({ type: 'none' });
    const grants = p.db
      .prepare(
        "SELECT principal_type, principal_id, role FROM content_permissions WHERE content_type = 'space' AND content_id = ?",
      )
      .all(answer.body.id);
    expect(grants).toEqual([{ principal_type: 'team', principal_id: T.platform, role: 'edit' }]);

    const runbooksCopy = await p.api('POST', `/spaces/${spaceId(S.userGrant)}/duplicate`);
    const finnSees = await p.api('GET', `/spaces/${runbooksCopy.body.id}`, as(U.finn));
    expect(finnSees.status).toBe(200);
    expect(finnSees.body.permissions.edit).toBe(true);

    const long = await createSpace({ title: 'y'.repeat(50) });
    const longCopy = await p.api('POST', `/spaces/${long.id}/duplicate`);
    expect(longCopy.status).toBe(201);
    expect(longCopy.body.title.length).toBeLessThanOrEqual(50);
    expect(longCopy.body.title.endsWith(' (copy)')).toBe(true);
  });

  it('needs read on the space and create where the copy goes', async () => {
    const ben = await p.api('POST', `/spaces/${spaceId(S.public)}/duplicate`, as(U.ben));
    expect(ben.status).toBe(201);
    expect(ben.body.permissions.admin).toBe(false);
    expect((await p.api('POST', `/spaces/${spaceId(S.public)}/duplicate`, as(U.finn))).status).toBe(403);
    expect((await p.api('POST', `/spaces/${spaceId(S.visitorAuth)}/duplicate`, as(U.ben))).status).toBe(403);
    expect((await p.api('POST', `/spaces/${spaceId(S.public)}/duplicate`, as(U.hana))).status).toBe(403);
    expect((await p.api('POST', `/spaces/${spaceId(S.gitSynced)}/duplicate`, as(U.hana))).status).toBe(404);
    expect((await p.api('POST', '/spaces/nope/duplicate')).status).toBe(404);
    expect((await p.api('POST', `/spaces/${spaceId(S.gitSynced)}/duplicate`, { body: { title: 'x' } })).status).toBe(
      400,
    );
  });

  it('names the missing create role and where it is missing (403)', async () => {
    const inOrg = "Duplicating a space needs the create role in the space's organization";
    for (const [title, email] of [
      [S.public, U.hana],
      [S.public, U.finn],
      [S.guestComment, U.gus],
    ] as const) {
      const answer = await p.api('POST', `/spaces/${spaceId(title)}/duplicate`, as(email));
      expect(answer.status, `${title} ${email}`).toBe(403);
      expect(answer.body.error.message, `${title} ${email}`).toBe(inOrg);
    }
    const shelf = (await p.api('POST', '/orgs/northwind/collections', { body: { title: 'Read-only shelf' } })).body
      .id as string;
    expect((await p.api('PATCH', `/collections/${shelf}`, { body: { defaultLevel: 'read' } })).status).toBe(200);
    const inShelf = await createSpace({ title: 'On the shelf', parent: shelf });
    const ben = await p.api('POST', `/spaces/${inShelf.id}/duplicate`, as(U.ben));
    expect(ben.status).toBe(403);
    expect(ben.body.error.message).toBe("Duplicating a space needs the create role in the space's collection");
    expect((await p.api('GET', `/collections/${shelf}/spaces`)).body.count).toBe(1);
  });
});

describe('space emoji', () => {
  const storedEmojis = () =>
    (p.db.prepare('SELECT DISTINCT emoji FROM spaces WHERE emoji IS NOT NULL').all() as Array<{ emoji: string }>).map(
      (row) => row.emoji,
    );
  const accepted = [
    '😀',
    '👍🏽',
    '👩‍💻',
    '👨‍👩‍👧‍👦',
    '🏳️‍🌈',
    '🇩🇪',
    '🏴󠁧󠁢󠁳󠁣󠁴󠁿',
    '#️⃣',
    '❤️',
    '✈️',
    '🚀🚀',
    '1f600',
    '1F680',
    '1f1e9-1f1ea',
    '1f469-200d-1f4bb',
  ];
  const refused = [
    'not an emoji at all',
    'x',
    'A',
    'a😀',
    '😀 ',
    ' ',
    '',
    '🇩',
    '1',
    '#',
    '41',
    '110000',
    'zz',
    '1f600-',
    '\u200D',
    '<img src=x>',
    '😀'.repeat(51),
  ];

  it('accepts the emojis of the stored spaces, emoji sequences and hex code points, on create and update', async () => {
    const emojis = storedEmojis();
    expect(emojis.length).toBeGreaterThan(15);
    const box = (await p.api('POST', '/orgs/northwind/collections', { body: { title: 'Emoji box' } })).body
      .id as string;
    const target = await createSpace({ title: 'Emoji target', parent: box });
    for (const emoji of [...emojis, ...accepted]) {
      const created = await p.api('POST', '/orgs/northwind/spaces', { body: { title: 'Emoji', emoji, parent: box } });
      expect(created.status, emoji).toBe(201);
      expect(created.body.emoji).toBe(emoji);
      const patched = await p.api('PATCH', `/spaces/${target.id}`, { body: { emoji } });
      expect(patched.status, emoji).toBe(200);
      expect(patched.body.emoji).toBe(emoji);
    }
    // Keeps the organization's space listing as the later tests expect it.
    expect((await p.api('DELETE', `/collections/${box}`)).status).toBe(205);
  });

  it('refuses anything else with a 400 naming emoji, on create and update', async () => {
    const target = await createSpace({ title: 'Emoji kept', emoji: '🧪' });
    const before = (await p.api('GET', '/orgs/northwind/spaces', { query: { limit: 1000 } })).body.count;
    for (const emoji of [...refused, 42]) {
      for (const [method, path] of [
        ['POST', '/orgs/northwind/spaces'],
        ['PATCH', `/spaces/${target.id}`],
      ] as const) {
        const answer = await p.api(method, path, { body: { emoji } });
        expect(answer.status, `${method} ${JSON.stringify(emoji)}`).toBe(400);
        expect(answer.body.error.message).toMatch(/^Invalid body field "emoji": /);
      }
    }
    expect(
      (await p.api('POST', '/orgs/northwind/spaces', { body: { emoji: 'not an emoji at all' } })).body.error.message,
    ).toBe('Invalid body field "emoji": must be an emoji such as 😀 or its code point in hex such as 1f600');
    expect((await p.api('GET', `/spaces/${target.id}`)).body.emoji).toBe('🧪');
    expect((await p.api('GET', '/orgs/northwind/spaces', { query: { limit: 1000 } })).body.count).toBe(before);
  });
});

describe('POST /spaces/{spaceId}/move', () => {
  it('reorders spaces inside a collection', async () => {
    const holder = await p.api('POST', '/orgs/northwind/collections', { body: { title: 'Shelf' } });
    const shelf = holder.body.id as string;
    const a = await createSpace({ title: 'Shelf A', parent: shelf });
    const b = await createSpace({ title: 'Shelf B', parent: shelf });
    const c = await createSpace({ title: 'Shelf C', parent: shelf });
    expect(await collectionSpaces(shelf)).toEqual(['Shelf A', 'Shelf B', 'Shelf C']);

    const first = await p.api('POST', `/spaces/${c.id}/move`, {
      body: { position: { before: { type: 'space', space: a.id } } },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: c.id, parent: shelf });
    expect(await collectionSpaces(shelf)).toEqual(['Shelf C', 'Shelf A', 'Shelf B']);

    const second = await p.api('POST', `/spaces/${c.id}/move`, {
      body: { position: { after: { type: 'space', space: a.id } } },
    });
    expect(second.status).toBe(200);
    expect(await collectionSpaces(shelf)).toEqual(['Shelf A', 'Shelf C', 'Shelf B']);

    const again = await p.api('POST', `/spaces/${c.id}/move`, {
      body: { position: { after: { type: 'space', space: a.id } } },
    });
    expect(again.status).toBe(409);
    expect((await p.api('POST', `/spaces/${b.id}/move`, { body: { parent: shelf } })).status).toBe(409);
    expect((await p.api('POST', `/spaces/${a.id}/move`, { body: { parent: shelf } })).status).toBe(200);
    expect(await collectionSpaces(shelf)).toEqual(['Shelf C', 'Shelf B', 'Shelf A']);
  });

  it('moves between collections and to the root', async () => {
    const created = await createSpace({ title: 'Wanderer', parent: C.product });
    const toInternal = await p.api('POST', `/spaces/${created.id}/move`, {
      body: { parent: C.internal, position: { before: { type: 'space', space: spaceId('Onboarding checklist') } } },
    });
    expect(toInternal.status).toBe(200);
    expect(toInternal.body.parent).toBe(C.internal);
    expect((await collectionSpaces(C.internal))[0]).toBe('Wanderer');
    expect(await collectionSpaces(C.product)).not.toContain('Wanderer');

    const toRoot = await p.api('POST', `/spaces/${created.id}/move`, { body: { parent: null } });
    expect(toRoot.status).toBe(200);
    expect(toRoot.body.parent).toBeUndefined();
    expect(titles((await p.api('GET', '/orgs/northwind/spaces')).body.items).at(-1)).toBe('Wanderer');

    const beforeCollection = await p.api('POST', `/spaces/${created.id}/move`, {
      body: { position: { before: { type: 'space', space: C.product } } },
    });
    expect(beforeCollection.status).toBe(200);
    expect(titles((await p.api('GET', '/orgs/northwind/spaces')).body.items)[0]).toBe('Wanderer');
  });

  it('rejects invalid positions and moves (400)', async () => {
    const roadmap = spaceId('Roadmap');
    const overview = spaceId('Product overview');
    const bodies: Array<[string, unknown]> = [
      [overview, { position: { before: { type: 'space', space: overview } } }],
      [overview, { position: { before: { type: 'space', space: spaceId(S.gitSynced) } } }],
      [overview, { parent: C.internal, position: { before: { type: 'space', space: roadmap } } }],
      [overview, { position: { after: { type: 'space', space: 'nope' } } }],
      [overview, { position: { before: { type: 'space', space: roadmap }, after: { type: 'space', space: roadmap } } }],
      [overview, {}],
      [overview, { parent: C.internal, title: 'x' }],
      [roadmap, { parent: null }],
    ];
    for (const [id, body] of bodies) {
      expect((await p.api('POST', `/spaces/${id}/move`, { body })).status, JSON.stringify(body)).toBe(400);
    }
    expect((await p.api('GET', `/spaces/${roadmap}`)).body.parent).toBe(C.product);
  });

  it('answers 404 for unknown or invisible spaces and parents, 403 below admin', async () => {
    const overview = spaceId('Product overview');
    expect((await p.api('POST', '/spaces/nope/move', { body: { parent: null } })).status).toBe(404);
    expect((await p.api('POST', `/spaces/${overview}/move`, { body: { parent: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', `/spaces/${overview}/move`, { body: { parent: C.southHandbook } })).status).toBe(404);
    expect(
      (await p.api('POST', `/spaces/${spaceId(S.gitSynced)}/move`, { ...as(U.hana), body: { parent: null } })).status,
    ).toBe(404);
    expect((await p.api('POST', `/spaces/${overview}/move`, { ...as(U.ben), body: { parent: null } })).status).toBe(
      403,
    );
    expect((await p.api('POST', `/spaces/${overview}/move`, { ...as(U.hana), body: { parent: null } })).status).toBe(
      403,
    );
  });
});

describe('POST /spaces/{spaceId}/transfer', () => {
  it('transfers to another organization and drops team grants', async () => {
    const created = await createSpace({ title: 'Emigrant', parent: C.product });
    p.db
      .prepare(
        "INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at) VALUES ('space', ?, 'team', ?, 'admin', ?), ('space', ?, 'user', ?, 'edit', ?)",
      )
      .run(created.id, T.writers, new Date().toISOString(), created.id, userId(U.hana), new Date().toISOString());
    const answer = await p.api('POST', `/spaces/${created.id}/transfer`, { body: { organization: 'southwind' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: created.id, organization: 'southwind', title: 'Emigrant' });
    expect(answer.body.parent).toBeUndefined();
    const grants = p.db
      .prepare("SELECT principal_type FROM content_permissions WHERE content_type = 'space' AND content_id = ?")
      .all(created.id);
    expect(grants).toEqual([{ principal_type: 'user' }]);
    expect(titles((await p.api('GET', '/orgs/southwind/spaces')).body.items).at(-1)).toBe('Emigrant');
    expect((await p.api('GET', `/spaces/${created.id}`, as(U.hana))).status).toBe(200);
    expect((await p.api('GET', `/spaces/${created.id}`, as(U.dee))).status).toBe(404);
    expect(
      (await p.api('POST', `/spaces/${created.id}/transfer`, { body: { organization: 'southwind' } })).status,
    ).toBe(409);
  });

  it('drops the user grants and reviewers who are not members of the target organization', async () => {
    const created = await createSpace({ title: 'Emigrant with guests' });
    const [eve, hana, dee] = [userId(U.eve), userId(U.hana), userId(U.dee)];
    const grant = p.db.prepare(
      "INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at) VALUES ('space', ?, 'user', ?, 'edit', ?)",
    );
    for (const user of [eve, hana, dee]) grant.run(created.id, user, new Date().toISOString());
    const reviewers = (...users: string[]) => ({ rule: 'require_specific_reviewers', users });
    const [cy, ada] = [userId(U.cy), userId(U.ada)];
    p.db
      .prepare('UPDATE spaces SET merge_rules = ? WHERE id = ?')
      .run(JSON.stringify({ type: 'rules', rules: [reviewers(cy), reviewers(ada, cy)] }), created.id);
    // dee is a Globex member too (a guest): her grant keeps its effect.
    p.db
      .prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('southwind', ?, NULL, ?)")
      .run(dee, new Date().toISOString());
    expect(
      (await p.api('POST', `/spaces/${created.id}/transfer`, { body: { organization: 'southwind' } })).status,
    ).toBe(200);
    const grantees = p.db
      .prepare(
        "SELECT principal_id FROM content_permissions WHERE content_type = 'space' AND content_id = ? AND principal_type = 'user'",
      )
      .all(created.id)
      .map((row: any) => row.principal_id)
      .sort();
    expect(grantees).toEqual([hana, dee].sort());
    // Merge rules keep only the reviewers who are members of Globex.
    expect((await p.api('GET', `/spaces/${created.id}`)).body.mergeRules).toEqual({
      type: 'rules',
      rules: [reviewers(ada)],
    });
    expect((await p.api('GET', `/spaces/${created.id}`, as(U.dee))).body.permissions.edit).toBe(true);
    // eve joining Globex later does not bring her old grant back.
    p.db
      .prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('southwind', ?, NULL, ?)")
      .run(eve, new Date().toISOString());
    expect((await p.api('GET', `/spaces/${created.id}`, as(U.eve))).status).toBe(404);
    p.db.prepare("DELETE FROM members WHERE org_id = 'southwind' AND user_id IN (?, ?)").run(eve, dee);
  });

  it('transfers into a collection of the target, or within the organization', async () => {
    const created = await createSpace({ title: 'Into handbook' });
    const answer = await p.api('POST', `/spaces/${created.id}/transfer`, {
      body: { organization: 'southwind', parent: C.southHandbook },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ organization: 'southwind', parent: C.southHandbook });
    expect((await collectionSpaces(C.southHandbook)).at(-1)).toBe('Into handbook');

    const local = await createSpace({ title: 'Local move' });
    const inOrg = await p.api('POST', `/spaces/${local.id}/transfer`, { body: { parent: C.internal } });
    expect(inOrg.status).toBe(200);
    expect(inOrg.body).toMatchObject({ organization: 'northwind', parent: C.internal });
    expect(
      (await p.api('POST', `/spaces/${local.id}/transfer`, { body: { organization: 'northwind', parent: C.internal } }))
        .status,
    ).toBe(409);
    expect((await p.api('POST', `/spaces/${local.id}/transfer`, { body: { parent: C.internal } })).status).toBe(409);
  });

  it('answers 400, 404 and 412 as documented', async () => {
    const created = await createSpace({ title: 'Picky' });
    const path = `/spaces/${created.id}/transfer`;
    expect((await p.api('POST', path, { body: {} })).status).toBe(400);
    expect((await p.api('POST', path, { body: { organization: 'southwind', extra: true } })).status).toBe(400);
    expect((await p.api('POST', path, { body: { organization: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', path, { body: { organization: 'southwind', parent: C.product } })).status).toBe(404);
    expect((await p.api('POST', path, { body: { organization: 'southwind', parent: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', '/spaces/nope/transfer', { body: { organization: 'southwind' } })).status).toBe(404);
    expect(
      (await p.api('POST', `/spaces/${spaceId('Roadmap')}/transfer`, { body: { organization: 'southwind' } })).status,
    ).toBe(400);

    p.db
      .prepare(
        "INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at) VALUES ('space', ?, 'user', ?, 'admin', ?)",
      )
      .run(created.id, userId(U.ben), new Date().toISOString());
    expect((await p.api('POST', path, { ...as(U.ben), body: { organization: 'southwind' } })).status).toBe(404);
    p.db
      .prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('southwind', ?, 'create', ?)")
      .run(userId(U.ben), new Date().toISOString());
    const notAdmin = await p.api('POST', path, { ...as(U.ben), body: { organization: 'southwind' } });
    expect(notAdmin.status).toBe(412);
    expect(notAdmin.body.error.message).toContain('cannot be moved');
    expect(
      (
        await p.api('POST', `/spaces/${spaceId(S.gitSynced)}/transfer`, {
          ...as(U.dee),
          body: { organization: 'southwind' },
        })
      ).status,
    ).toBe(403);

    const trashed = await createSpace({ title: 'Trashed' });
    await p.api('DELETE', `/spaces/${trashed.id}`);
    const deleted = await p.api('POST', `/spaces/${trashed.id}/transfer`, { body: { organization: 'southwind' } });
    expect(deleted.status).toBe(412);
    expect(deleted.body.error.message).toContain('cannot be moved');
    expect((await p.api('GET', `/spaces/${created.id}`)).body.organization).toBe('northwind');
  });
});

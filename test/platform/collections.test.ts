import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type ApiAnswer, type TestPlatform } from '../fixtures/platform.js';

const ORG = 'northwind';
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
 * Northwind's collections in tree order: Product > Guides (gus has `read`) > Advanced, Engineering (`defaultLevel:
 * read`; team Writers has `edit`), Internal (team Reviewers has `review`); and Southwind's Handbook.
 */
const C = {} as Record<'product' | 'guides' | 'advanced' | 'engineering' | 'internal' | 'southHandbook', string>;
/** Northwind's teams: Writers (owner ben; dee, eve), Reviewers (owner cy; finn), Platform (owner dee). */
const T = {} as Record<'writers' | 'reviewers' | 'platform', string>;

let p: TestPlatform;

/**
 * Northwind: ada admin, ben `create`, cy `review`, dee `edit`, eve `comment`, finn `read`, gus a guest; spaces in
 * its collections (a deleted one in each of Product and Engineering), and two at the root after the collections.
 * Southwind: ada admin, hana `edit`. ivy is in no organization.
 */
beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  for (const [key, name] of Object.entries(NAMES) as Array<[Key, string]>) {
    users[key] = addUser(p, key, { name });
    U[key] = users[key].email;
  }
  const org = addOrg(p, {
    id: ORG,
    members: { ada: 'admin', ben: 'create', cy: 'review', dee: 'edit', eve: 'comment', finn: 'read', gus: null },
    users,
  });
  const south = addOrg(p, { id: 'southwind', members: { ada: 'admin', hana: 'edit' }, users });
  C.southHandbook = await south.collection('Handbook');
  C.product = await org.collection('Product', { description: 'Everything customers read about the product' });
  C.guides = await org.collection('Guides', {
    parent: C.product,
    description: 'Step-by-step guides for new and returning users',
  });
  C.advanced = await org.collection('Advanced', { parent: C.guides });
  C.engineering = await org.collection('Engineering', { defaultLevel: 'read' });
  C.internal = await org.collection('Internal');
  T.writers = await org.team('Writers', ['dee', 'eve'], { owners: ['ben'] });
  T.reviewers = await org.team('Reviewers', ['finn'], { owners: ['cy'] });
  T.platform = await org.team('Platform', [], { owners: ['dee'] });
  await org.grant({ collection: C.engineering }, 'edit', { teams: [T.writers] });
  await org.grant({ collection: C.internal }, 'review', { teams: [T.reviewers] });
  await org.grant({ collection: C.guides }, 'read', { users: ['gus'] });
  const spaces: Array<[string, string | undefined, string?]> = [
    ['Product overview', C.product, 'public'],
    ['Release notes', C.product, 'public'],
    ['Old pricing', C.product],
    ['Roadmap', C.product, 'in-collection'],
    ['Pricing FAQ', C.product, 'share-link'],
    ['Getting started', C.guides, 'public'],
    ['Getting started (FR)', C.guides],
    ['Tutorials', C.guides, 'in-collection'],
    ['Guide de démarrage', C.guides, 'unlisted'],
    ['Erste Schritte', C.guides, 'share-link'],
    ['Performance tuning', C.advanced, 'in-collection'],
    ['API reference', C.engineering, 'visitor-auth'],
    ['Architecture decisions', C.engineering],
    ['Runbooks', C.engineering],
    ['SDK changelog', C.engineering],
    ['Onboarding checklist', C.internal, 'in-collection'],
    ['Company handbook', undefined],
    ['Status page', undefined, 'public'],
  ];
  for (const [title, parent, visibility] of spaces) {
    const id = await org.space(title, { ...(parent ? { parent } : {}), ...(visibility ? { visibility } : {}) });
    if (title === 'Old pricing' || title === 'SDK changelog') {
      expect((await p.api('DELETE', `/spaces/${id}`)).status).toBe(205);
    }
  }
});

afterAll(async () => {
  await p?.destroy();
});

const as = (email: string) => ({ token: Object.values(users).find((user) => user.email === email)!.token });
const userId = (email: string) => p.userId(email);
const spaceId = (title: string) =>
  (p.db.prepare('SELECT id FROM spaces WHERE title = ?').get(title) as { id: string }).id;
const ids = (answer: ApiAnswer) => (answer.body.items as Array<{ id: string }>).map((item) => item.id);

async function createCollection(body: Record<string, unknown> = {}, email: string = U.ada): Promise<any> {
  const answer = await p.api('POST', `/orgs/${ORG}/collections`, { ...as(email), body });
  expect(answer.status).toBe(201);
  return answer.body;
}

/** Walks every page of a list with `limit`, checking `count` and `next` on the way. */
async function walk(path: string, limit: number, options: { token?: string; query?: Record<string, string> } = {}) {
  const items: any[] = [];
  let page: string | undefined;
  let pages = 0;
  let count: number | undefined;
  do {
    const answer = await p.api('GET', path, {
      ...(options.token ? { token: options.token } : {}),
      query: { ...options.query, limit, ...(page ? { page } : {}) },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.items.length).toBeLessThanOrEqual(limit);
    count ??= answer.body.count;
    expect(answer.body.count).toBe(count);
    items.push(...answer.body.items);
    page = answer.body.next?.page;
    pages += 1;
  } while (page);
  return { items, pages, count: count! };
}

describe('GET /orgs/{organizationId}/collections', () => {
  it('lists the collections in tree order with their fields', async () => {
    const answer = await p.api('GET', `/orgs/${ORG}/collections`);
    expect(answer.status).toBe(200);
    expect(answer.body.count).toBe(5);
    expect(ids(answer)).toEqual([C.product, C.guides, C.advanced, C.engineering, C.internal]);
    const guides = answer.body.items[1];
    expect(guides).toMatchObject({
      object: 'collection',
      id: C.guides,
      title: 'Guides',
      description: 'Step-by-step guides for new and returning users',
      organization: ORG,
      parent: C.product,
      defaultLevel: 'inherit',
      permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
    });
    expect(guides.urls.location).toMatch(new RegExp(`/v1/collections/${C.guides}$`));
    expect(answer.body.items[0].parent).toBeUndefined();
  });

  it('lists only top-level collections with nested=false', async () => {
    const answer = await p.api('GET', `/orgs/${ORG}/collections`, { query: { nested: false } });
    expect(answer.status).toBe(200);
    expect(ids(answer)).toEqual([C.product, C.engineering, C.internal]);
    expect(answer.body.count).toBe(3);
  });

  it('walks the pages with limit=2', async () => {
    const full = await p.api('GET', `/orgs/${ORG}/collections`);
    const walked = await walk(`/orgs/${ORG}/collections`, 2);
    expect(walked.pages).toBe(3);
    expect(walked.count).toBe(5);
    expect(walked.items.map((item) => item.id)).toEqual(ids(full));
  });

  it('rejects invalid page, limit and nested values', async () => {
    const queries: Array<Record<string, string | number>> = [
      { limit: 0 },
      { limit: 1001 },
      { limit: 'many' },
      { page: 'not a token!' },
      { nested: 'maybe' },
    ];
    for (const query of queries) {
      const answer = await p.api('GET', `/orgs/${ORG}/collections`, { query });
      expect(answer.status, JSON.stringify(query)).toBe(400);
      expect(answer.body.error.code).toBe(400);
    }
    const garbage = await p.api('GET', `/orgs/${ORG}/collections`, { query: { page: 'bm90LWpzb24' } });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.message).toContain('page');
    expect((await p.api('GET', `/orgs/${ORG}/collections`, { query: { limit: 1000 } })).status).toBe(200);
  });

  it('shows a guest only the collections granted to them (and what they contain)', async () => {
    const answer = await p.api('GET', `/orgs/${ORG}/collections`, as(U.gus));
    expect(answer.status).toBe(200);
    expect(ids(answer)).toEqual([C.guides, C.advanced]);
    expect(answer.body.items[0].permissions).toEqual({
      view: true,
      admin: false,
      viewInviteLinks: false,
      create: false,
    });
  });

  it('is a 404 for a non-member and for an unknown organization', async () => {
    expect((await p.api('GET', `/orgs/${ORG}/collections`, as(U.hana))).status).toBe(404);
    expect((await p.api('GET', '/orgs/nope/collections')).status).toBe(404);
  });
});

describe('GET /collections/{collectionId}', () => {
  it('returns a visible collection', async () => {
    const answer = await p.api('GET', `/collections/${C.engineering}`, as(U.finn));
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: C.engineering, title: 'Engineering', defaultLevel: 'read' });
    expect(answer.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
  });

  it('follows the permission inheritance for a guest', async () => {
    expect((await p.api('GET', `/collections/${C.guides}`, as(U.gus))).status).toBe(200);
    expect((await p.api('GET', `/collections/${C.advanced}`, as(U.gus))).status).toBe(200);
    expect((await p.api('GET', `/collections/${C.engineering}`, as(U.gus))).status).toBe(404);
    expect((await p.api('GET', `/collections/${C.product}`, as(U.gus))).status).toBe(404);
  });

  it('is a 404 for non-members and unknown ids', async () => {
    expect((await p.api('GET', `/collections/${C.product}`, as(U.hana))).status).toBe(404);
    expect((await p.api('GET', `/collections/${C.southHandbook}`, as(U.hana))).status).toBe(200);
    const missing = await p.api('GET', '/collections/nope');
    expect(missing.status).toBe(404);
    // The answer names the path parameter that names nothing, as a refusal of the body names its field.
    expect(missing.body).toEqual({ error: { code: 404, message: 'Collection not found', parameter: 'collectionId' } });
  });
});

describe('POST /orgs/{organizationId}/collections', () => {
  it('creates a collection at the end of the root', async () => {
    const created = await createCollection({ title: 'Release process' });
    expect(created).toMatchObject({
      object: 'collection',
      title: 'Release process',
      organization: ORG,
      defaultLevel: 'inherit',
    });
    expect(created.parent).toBeUndefined();
    expect(created.id).toMatch(/^[A-Za-z0-9]{20}$/);
    const root = await p.api('GET', `/orgs/${ORG}/collections`, { query: { nested: false } });
    expect(ids(root).at(-1)).toBe(created.id);
    expect((await p.api('GET', `/collections/${created.id}`)).body.title).toBe('Release process');
  });

  it('defaults the title and accepts a parent', async () => {
    const untitled = await createCollection({});
    expect(untitled.title).toBe('Untitled');
    const nested = await createCollection({ title: 'x'.repeat(50), parent: C.guides });
    expect(nested.parent).toBe(C.guides);
    expect(nested.title).toHaveLength(50);
    const all = ids(await p.api('GET', `/orgs/${ORG}/collections`));
    expect(all.indexOf(nested.id)).toBe(all.indexOf(C.advanced) + 1);
  });

  it('enforces the body limits', async () => {
    const long = await p.api('POST', `/orgs/${ORG}/collections`, { body: { title: 'x'.repeat(51) } });
    expect(long.status).toBe(400);
    expect(long.body.error.message).toContain('"title"');
    const unknown = await p.api('POST', `/orgs/${ORG}/collections`, { body: { title: 'A', color: 'red' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toContain('color');
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { body: { title: 5 } })).status).toBe(400);
  });

  it('needs a title of 1 to 50 characters after trimming', async () => {
    for (const title of ['', ' ', '\t\n ', 'x'.repeat(51), ` ${'x'.repeat(51)} `]) {
      const answer = await p.api('POST', `/orgs/${ORG}/collections`, { body: { title } });
      expect(answer.status, JSON.stringify(title)).toBe(400);
      expect(answer.body.error.message).toBe('Invalid body field "title": must be 1 to 50 characters');
    }
    expect((await createCollection({ title: '  Padded  ' })).title).toBe('Padded');
    expect((await createCollection({ title: `  ${'y'.repeat(50)}  ` })).title).toBe('y'.repeat(50));
  });

  it('needs the create role in the organization and on the parent', async () => {
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { ...as(U.finn), body: { title: 'No' } })).status).toBe(
      403,
    );
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { ...as(U.dee), body: { title: 'No' } })).status).toBe(403);
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { ...as(U.gus), body: { title: 'No' } })).status).toBe(403);
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { ...as(U.hana), body: { title: 'No' } })).status).toBe(
      404,
    );
    const ben = await createCollection({ title: 'Ben at root' }, U.ben);
    expect(ben.permissions).toMatchObject({ view: true, admin: false, create: true });
    // Engineering's defaultLevel (read) replaces ben's create role there; his team only adds edit.
    const underEngineering = await p.api('POST', `/orgs/${ORG}/collections`, {
      ...as(U.ben),
      body: { title: 'No', parent: C.engineering },
    });
    expect(underEngineering.status).toBe(403);
  });

  it('is a 404 for a parent that is missing or belongs to another organization', async () => {
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { body: { parent: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', `/orgs/${ORG}/collections`, { body: { parent: C.southHandbook } })).status).toBe(404);
  });
});

describe('PATCH /collections/{collectionId}', () => {
  it('updates title, description and defaultLevel', async () => {
    const created = await createCollection({ title: 'Before' });
    const answer = await p.api('PATCH', `/collections/${created.id}`, {
      body: { title: 'After', description: 'd'.repeat(100), defaultLevel: 'comment' },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: created.id,
      title: 'After',
      description: 'd'.repeat(100),
      defaultLevel: 'comment',
    });
    const cleared = await p.api('PATCH', `/collections/${created.id}`, {
      body: { description: null, defaultLevel: 'inherit' },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.description).toBeUndefined();
    expect(cleared.body).toMatchObject({ title: 'After', defaultLevel: 'inherit' });
    expect((await p.api('GET', `/collections/${created.id}`)).body.title).toBe('After');
  });

  it('changes what members inherit', async () => {
    const created = await createCollection({ title: 'Level' });
    const before = await p.api('GET', `/collections/${created.id}`, as(U.finn));
    expect(before.body.permissions.create).toBe(false);
    await p.api('PATCH', `/collections/${created.id}`, { body: { defaultLevel: 'create' } });
    const after = await p.api('GET', `/collections/${created.id}`, as(U.finn));
    expect(after.body.permissions.create).toBe(true);
  });

  it('validates the body', async () => {
    const created = await createCollection({ title: 'Valid' });
    const path = `/collections/${created.id}`;
    expect((await p.api('PATCH', path, { body: {} })).status).toBe(400);
    expect((await p.api('PATCH', path, { body: { title: 'x'.repeat(51) } })).status).toBe(400);
    const description = await p.api('PATCH', path, { body: { description: 'x'.repeat(101) } });
    expect(description.status).toBe(400);
    expect(description.body.error.message).toContain('"description"');
    expect((await p.api('PATCH', path, { body: { defaultLevel: 'owner' } })).status).toBe(400);
    expect((await p.api('PATCH', path, { body: { parent: null } })).status).toBe(400);
  });

  it('refuses empty and blank titles', async () => {
    const created = await createCollection({ title: 'Keeps its title' });
    for (const title of ['', '   ', 'x'.repeat(51)]) {
      const answer = await p.api('PATCH', `/collections/${created.id}`, { body: { title } });
      expect(answer.status, JSON.stringify(title)).toBe(400);
      expect(answer.body.error.message).toBe('Invalid body field "title": must be 1 to 50 characters');
    }
    expect((await p.api('GET', `/collections/${created.id}`)).body.title).toBe('Keeps its title');
    expect((await p.api('PATCH', `/collections/${created.id}`, { body: { title: ' Trimmed ' } })).body.title).toBe(
      'Trimmed',
    );
  });

  it('answers the permissions of the role after the update', async () => {
    const created = await createCollection({ title: 'Self demotion' });
    await p.api('PATCH', `/collections/${created.id}`, { body: { defaultLevel: 'admin' } });
    expect((await p.api('GET', `/collections/${created.id}`, as(U.cy))).body.permissions.admin).toBe(true);
    const lowered = await p.api('PATCH', `/collections/${created.id}`, { ...as(U.cy), body: { defaultLevel: 'read' } });
    expect(lowered.status).toBe(200);
    expect(lowered.body.defaultLevel).toBe('read');
    expect(lowered.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
    expect(lowered.body.permissions).toEqual(
      (await p.api('GET', `/collections/${created.id}`, as(U.cy))).body.permissions,
    );
  });

  it('bumps updatedAt strictly, even for writes within one millisecond', async () => {
    const created = await createCollection({ title: 'Stamped' });
    const future = new Date(Date.now() + 60_000).toISOString();
    p.db.prepare('UPDATE collections SET updated_at = ? WHERE id = ?').run(future, created.id);
    const answer = await p.api('PATCH', `/collections/${created.id}`, { body: { title: 'Stamped again' } });
    expect(answer.status).toBe(200);
    const stored = p.db.prepare('SELECT updated_at FROM collections WHERE id = ?').get(created.id) as {
      updated_at: string;
    };
    expect(Date.parse(stored.updated_at)).toBeGreaterThan(Date.parse(future));
  });

  it('needs admin on the collection', async () => {
    expect((await p.api('PATCH', `/collections/${C.product}`, { ...as(U.ben), body: { title: 'No' } })).status).toBe(
      403,
    );
    expect((await p.api('PATCH', `/collections/${C.guides}`, { ...as(U.gus), body: { title: 'No' } })).status).toBe(
      403,
    );
    expect(
      (await p.api('PATCH', `/collections/${C.engineering}`, { ...as(U.gus), body: { title: 'No' } })).status,
    ).toBe(404);
    expect((await p.api('PATCH', '/collections/nope', { body: { title: 'No' } })).status).toBe(404);
  });
});

describe('DELETE /collections/{collectionId}', () => {
  it('deletes nested collections and soft-deletes the spaces inside (205, then 204)', async () => {
    const outer = await createCollection({ title: 'Outer' });
    const inner = await createCollection({ title: 'Inner', parent: outer.id });
    const space = await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Inside', parent: inner.id } });
    expect(space.status).toBe(201);
    await p.api('POST', `/collections/${outer.id}/permissions`, { body: { role: 'edit', users: [userId(U.finn)] } });

    const deleted = await p.api('DELETE', `/collections/${outer.id}`);
    expect(deleted.status).toBe(205);
    expect(deleted.body).toBeUndefined();
    expect((await p.api('GET', `/collections/${outer.id}`)).status).toBe(404);
    expect((await p.api('GET', `/collections/${inner.id}`)).status).toBe(404);
    const trashed = await p.api('GET', `/spaces/${space.body.id}`);
    expect(trashed.status).toBe(200);
    expect(trashed.body.deletedAt).toEqual(expect.any(String));
    const grants = p.db
      .prepare("SELECT COUNT(*) AS n FROM content_permissions WHERE content_type = 'collection' AND content_id = ?")
      .get(outer.id) as { n: number };
    expect(grants.n).toBe(0);

    const again = await p.api('DELETE', `/collections/${outer.id}`);
    expect(again.status).toBe(204);
    expect(again.body).toBeUndefined();
  });

  it('answers 204 for missing or invisible collections and 403 below admin', async () => {
    expect((await p.api('DELETE', '/collections/nope')).status).toBe(204);
    expect((await p.api('DELETE', `/collections/${C.engineering}`, as(U.gus))).status).toBe(204);
    expect((await p.api('DELETE', `/collections/${C.product}`, as(U.ben))).status).toBe(403);
    expect((await p.api('GET', `/collections/${C.product}`)).status).toBe(200);
  });
});

describe('GET /collections/{collectionId}/spaces', () => {
  it('lists the direct, non-deleted spaces by position', async () => {
    const product = await p.api('GET', `/collections/${C.product}/spaces`);
    expect(product.status).toBe(200);
    expect(product.body.items.map((s: any) => s.title)).toEqual([
      'Product overview',
      'Release notes',
      'Roadmap',
      'Pricing FAQ',
    ]);
    expect(product.body.items[0]).toMatchObject({ object: 'space', organization: ORG, parent: C.product });
    const engineering = await p.api('GET', `/collections/${C.engineering}/spaces`);
    expect(engineering.body.items.map((s: any) => s.title)).toEqual([
      'API reference',
      'Architecture decisions',
      'Runbooks',
    ]);
  });

  it('walks the pages with limit=2', async () => {
    const walked = await walk(`/collections/${C.product}/spaces`, 2);
    expect(walked.count).toBe(4);
    expect(walked.pages).toBe(2);
    expect(walked.items.map((s) => s.title)).toEqual(['Product overview', 'Release notes', 'Roadmap', 'Pricing FAQ']);
    expect((await p.api('GET', `/collections/${C.product}/spaces`, { query: { limit: 0 } })).status).toBe(400);
  });

  it('follows the caller visibility', async () => {
    const gus = await p.api('GET', `/collections/${C.guides}/spaces`, as(U.gus));
    expect(gus.status).toBe(200);
    expect(gus.body.items.map((s: any) => s.title)).toEqual([
      'Getting started',
      'Getting started (FR)',
      'Tutorials',
      'Guide de démarrage',
      'Erste Schritte',
    ]);
    expect((await p.api('GET', `/collections/${C.product}/spaces`, as(U.gus))).status).toBe(404);
    expect((await p.api('GET', `/collections/${C.product}/spaces`, as(U.hana))).status).toBe(404);
  });
});

describe('POST /collections/{collectionId}/move', () => {
  const rootOrder = async () => ids(await p.api('GET', `/orgs/${ORG}/collections`, { query: { nested: false } }));

  it('reorders siblings with before and after', async () => {
    const moving = await createCollection({ title: 'Mover' });
    expect((await rootOrder()).at(-1)).toBe(moving.id);

    const before = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { position: { before: { type: 'space', space: C.product } } },
    });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ id: moving.id, organization: ORG });
    expect((await rootOrder())[0]).toBe(moving.id);

    const after = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { position: { after: { type: 'collection', collection: C.engineering } } },
    });
    expect(after.status).toBe(200);
    const order = await rootOrder();
    expect(order.slice(0, 3)).toEqual([C.product, C.engineering, moving.id]);

    // Collections and spaces share one ordering: placing before a root space puts it after every root collection.
    const beforeSpace = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { position: { before: { type: 'space', space: spaceId('Company handbook') } } },
    });
    expect(beforeSpace.status).toBe(200);
    const order2 = await rootOrder();
    expect(order2.indexOf(moving.id)).toBe(order2.indexOf(C.internal) + 1);
    const positionOf = (table: string, id: string) =>
      (p.db.prepare(`SELECT position FROM ${table} WHERE id = ?`).get(id) as { position: number }).position;
    expect(positionOf('collections', C.internal)).toBeLessThan(positionOf('collections', moving.id));
    expect(positionOf('collections', moving.id)).toBeLessThan(positionOf('spaces', spaceId('Company handbook')));
    expect(positionOf('spaces', spaceId('Company handbook'))).toBeLessThan(
      positionOf('spaces', spaceId('Status page')),
    );
  });

  it('moves into another parent, at the end or at a position', async () => {
    const moving = await createCollection({ title: 'Nomad' });
    const into = await p.api('POST', `/collections/${moving.id}/move`, { body: { parent: C.guides } });
    expect(into.status).toBe(200);
    expect(into.body.parent).toBe(C.guides);
    // Inherits from its new ancestors: gus (read on Guides) now sees it.
    expect((await p.api('GET', `/collections/${moving.id}`, as(U.gus))).status).toBe(200);

    const placed = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { parent: C.product, position: { before: { type: 'space', space: C.guides } } },
    });
    expect(placed.status).toBe(200);
    expect(placed.body.parent).toBe(C.product);
    const all = ids(await p.api('GET', `/orgs/${ORG}/collections`));
    expect(all.indexOf(moving.id)).toBe(all.indexOf(C.product) + 1);
    expect((await p.api('GET', `/collections/${moving.id}`, as(U.gus))).status).toBe(404);

    const toRoot = await p.api('POST', `/collections/${moving.id}/move`, { body: { parent: null } });
    expect(toRoot.status).toBe(200);
    expect(toRoot.body.parent).toBeUndefined();
    expect((await rootOrder()).at(-1)).toBe(moving.id);
  });

  it('is a 409 when nothing would change', async () => {
    const moving = await createCollection({ title: 'Still' });
    const first = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { position: { before: { type: 'space', space: C.product } } },
    });
    expect(first.status).toBe(200);
    const same = await p.api('POST', `/collections/${moving.id}/move`, {
      body: { position: { before: { type: 'space', space: C.product } } },
    });
    expect(same.status).toBe(409);
    expect(same.body.error.code).toBe(409);
    const tail = await createCollection({ title: 'Tail', parent: C.internal });
    const sameParent = await p.api('POST', `/collections/${tail.id}/move`, { body: { parent: C.internal } });
    expect(sameParent.status).toBe(409);
  });

  it('rejects invalid positions and moves into itself or a descendant (400)', async () => {
    const cases: Array<[string, unknown]> = [
      [C.product, { parent: C.advanced }],
      [C.product, { parent: C.product }],
      [C.product, { position: { before: { type: 'space', space: C.product } } }],
      [C.product, { position: { after: { type: 'space', space: C.guides } } }],
      [C.product, { position: { after: { type: 'space', space: spaceId('Runbooks') } } }],
      [C.product, { position: { after: { type: 'space', space: 'nope' } } }],
      [C.product, { position: {} }],
      [
        C.product,
        { position: { before: { type: 'space', space: C.engineering }, after: { type: 'space', space: C.internal } } },
      ],
      [C.product, {}],
      [C.product, { parent: C.internal, extra: 1 }],
    ];
    for (const [id, body] of cases) {
      const answer = await p.api('POST', `/collections/${id}/move`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
    }
    expect((await p.api('GET', `/collections/${C.product}`)).body.parent).toBeUndefined();
    expect((await p.api('GET', `/collections/${C.advanced}`)).body.parent).toBe(C.guides);
  });

  it('is a 404 for unknown collections and parents, 403 below admin', async () => {
    expect((await p.api('POST', '/collections/nope/move', { body: { parent: null } })).status).toBe(404);
    expect((await p.api('POST', `/collections/${C.internal}/move`, { body: { parent: 'nope' } })).status).toBe(404);
    expect((await p.api('POST', `/collections/${C.internal}/move`, { body: { parent: C.southHandbook } })).status).toBe(
      404,
    );
    expect(
      (await p.api('POST', `/collections/${C.engineering}/move`, { ...as(U.gus), body: { parent: null } })).status,
    ).toBe(404);
    expect(
      (await p.api('POST', `/collections/${C.internal}/move`, { ...as(U.ben), body: { parent: C.product } })).status,
    ).toBe(403);
  });
});

describe('POST /collections/{collectionId}/transfer', () => {
  it('moves a collection with its content to the root of another organization', async () => {
    const outer = await createCollection({ title: 'Transferred' });
    const inner = await createCollection({ title: 'Transferred inner', parent: outer.id });
    const space = await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Travelling space', parent: inner.id } });
    expect(space.status).toBe(201);
    expect(
      (
        await p.api('POST', `/collections/${outer.id}/permissions`, {
          body: { role: 'edit', teams: [T.writers] },
        })
      ).status,
    ).toBe(204);
    p.db
      .prepare(
        "INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at) VALUES ('space', ?, 'team', ?, 'edit', ?)",
      )
      .run(space.body.id, T.platform, new Date().toISOString());

    const answer = await p.api('POST', `/collections/${outer.id}/transfer`, { body: { organization: 'southwind' } });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ id: outer.id, organization: 'southwind', title: 'Transferred' });
    expect(answer.body.parent).toBeUndefined();
    expect((await p.api('GET', `/collections/${inner.id}`)).body).toMatchObject({
      organization: 'southwind',
      parent: outer.id,
    });
    expect((await p.api('GET', `/spaces/${space.body.id}`)).body).toMatchObject({
      organization: 'southwind',
      parent: inner.id,
    });
    expect(ids(await p.api('GET', '/orgs/southwind/collections', { query: { nested: false } })).at(-1)).toBe(outer.id);
    expect(ids(await p.api('GET', `/orgs/${ORG}/collections`))).not.toContain(outer.id);
    const teamGrants = p.db
      .prepare("SELECT COUNT(*) AS n FROM content_permissions WHERE principal_type = 'team' AND content_id IN (?, ?)")
      .get(outer.id, space.body.id) as { n: number };
    expect(teamGrants.n).toBe(0);
    // hana edits in Southwind: she now reaches the transferred content.
    expect((await p.api('GET', `/collections/${inner.id}`, as(U.hana))).status).toBe(200);

    const again = await p.api('POST', `/collections/${outer.id}/transfer`, { body: { organization: 'southwind' } });
    expect(again.status).toBe(409);
  });

  it('drops the user grants of people who are not members of the target organization', async () => {
    const outer = await createCollection({ title: 'Emigrant with guests' });
    const inner = await createCollection({ title: 'Emigrant inner', parent: outer.id });
    const space = await p.api('POST', `/orgs/${ORG}/spaces`, { body: { title: 'Emigrant space', parent: inner.id } });
    const [eve, hana, finn] = [userId(U.eve), userId(U.hana), userId(U.finn)];
    // hana (Southwind) joins Northwind as a guest through her grant; eve and finn are only in Northwind.
    await p.api('POST', `/collections/${outer.id}/permissions`, { body: { role: 'edit', users: [eve, hana] } });
    await p.api('POST', `/collections/${inner.id}/permissions`, { body: { role: 'admin', users: [finn, hana] } });
    p.db
      .prepare(
        "INSERT INTO content_permissions (content_type, content_id, principal_type, principal_id, role, created_at) VALUES ('space', ?, 'user', ?, 'edit', ?), ('space', ?, 'user', ?, 'edit', ?)",
      )
      .run(space.body.id, eve, new Date().toISOString(), space.body.id, hana, new Date().toISOString());

    expect(
      (await p.api('POST', `/collections/${outer.id}/transfer`, { body: { organization: 'southwind' } })).status,
    ).toBe(200);
    const grants = p.db
      .prepare(
        "SELECT content_id, principal_id FROM content_permissions WHERE principal_type = 'user' AND content_id IN (?, ?, ?) ORDER BY content_id, principal_id",
      )
      .all(outer.id, inner.id, space.body.id);
    const expected = [
      { content_id: outer.id, principal_id: hana },
      { content_id: inner.id, principal_id: hana },
      { content_id: space.body.id, principal_id: hana },
    ].sort((a, b) => (a.content_id < b.content_id ? -1 : a.content_id > b.content_id ? 1 : 0));
    expect(grants).toEqual(expected);
    // Joining Southwind later does not bring the old grants back.
    p.db
      .prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('southwind', ?, NULL, ?)")
      .run(finn, new Date().toISOString());
    expect((await p.api('GET', `/collections/${inner.id}`, as(U.finn))).status).toBe(404);
    p.db.prepare("DELETE FROM members WHERE org_id = 'southwind' AND user_id = ?").run(finn);
  });

  it('answers 404, 409 and 412 as documented', async () => {
    const created = await createCollection({ title: 'Stays' });
    expect(
      (await p.api('POST', `/collections/${created.id}/transfer`, { body: { organization: 'nope' } })).status,
    ).toBe(404);
    expect((await p.api('POST', '/collections/nope/transfer', { body: { organization: 'southwind' } })).status).toBe(
      404,
    );
    expect((await p.api('POST', `/collections/${created.id}/transfer`, { body: { organization: ORG } })).status).toBe(
      409,
    );
    expect((await p.api('POST', `/collections/${created.id}/transfer`, { body: {} })).status).toBe(400);

    // ben administrates this collection through a grant; he is not in Southwind, then only edits there.
    await p.api('POST', `/collections/${created.id}/permissions`, { body: { role: 'admin', users: [userId(U.ben)] } });
    expect(
      (
        await p.api('POST', `/collections/${created.id}/transfer`, {
          ...as(U.ben),
          body: { organization: 'southwind' },
        })
      ).status,
    ).toBe(404);
    p.db
      .prepare("INSERT INTO members (org_id, user_id, role, joined_at) VALUES ('southwind', ?, 'edit', ?)")
      .run(userId(U.ben), new Date().toISOString());
    const refused = await p.api('POST', `/collections/${created.id}/transfer`, {
      ...as(U.ben),
      body: { organization: 'southwind' },
    });
    expect(refused.status).toBe(412);
    expect(refused.body.error.message).toContain('cannot be moved');
    expect((await p.api('GET', `/collections/${created.id}`)).body.organization).toBe(ORG);
    expect(
      (await p.api('POST', `/collections/${C.product}/transfer`, { ...as(U.ben), body: { organization: 'southwind' } }))
        .status,
    ).toBe(403);
  });
});

describe('collection permissions', () => {
  it('invites users and teams, lists, updates and removes grants', async () => {
    const target = await createCollection({ title: 'Shared' });
    const path = `/collections/${target.id}/permissions`;
    const finn = userId(U.finn);
    const eve = userId(U.eve);
    const cy = userId(U.cy);

    expect((await p.api('POST', path, { body: { role: 'edit', users: [finn, eve, cy] } })).status).toBe(204);
    const listed = await p.api('GET', `${path}/users`);
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(3);
    expect(listed.body.items.map((item: any) => [item.user.displayName, item.permission])).toEqual([
      ['Cy Tanaka', 'edit'],
      ['Eve Martin', 'edit'],
      ['Finn Larsen', 'edit'],
    ]);
    expect(listed.body.items[0].user).toMatchObject({ object: 'user', id: cy, email: U.cy });

    const walked = await walk(`${path}/users`, 2);
    expect(walked.pages).toBe(2);
    expect(walked.items.map((item) => item.user.id)).toEqual([cy, eve, finn]);

    expect((await p.api('PATCH', `${path}/users/${finn}`, { body: { role: 'comment' } })).status).toBe(204);
    const updated = await p.api('GET', `${path}/users`);
    expect(updated.body.items.find((item: any) => item.user.id === finn).permission).toBe('comment');

    expect((await p.api('PATCH', `${path}/users/${eve}`, { body: { role: null } })).status).toBe(204);
    expect((await p.api('POST', path, { body: { role: null, users: [cy] } })).status).toBe(204);
    const remaining = await p.api('GET', `${path}/users`);
    expect(remaining.body.items.map((item: any) => item.user.id)).toEqual([finn]);

    const removed = await p.api('DELETE', `${path}/users/${finn}`);
    expect(removed.status).toBe(205);
    expect((await p.api('DELETE', `${path}/users/${finn}`)).status).toBe(204);
    expect((await p.api('GET', `${path}/users`)).body).toEqual({ count: 0, items: [] });
  });

  it('gives effect to a team invite', async () => {
    const target = await createCollection({ title: 'Team shared' });
    const aggregate = async (email: string) =>
      (await p.api('GET', `/collections/${target.id}/permissions/aggregate`)).body.items.find(
        (item: any) => item.user.email === email,
      )?.permission;
    expect(await aggregate(U.dee)).toBe('edit');
    const invite = await p.api('POST', `/collections/${target.id}/permissions`, {
      body: { role: 'admin', teams: [T.platform] },
    });
    expect(invite.status).toBe(204);
    expect(await aggregate(U.dee)).toBe('admin');
    expect(
      (await p.api('PATCH', `/collections/${target.id}`, { ...as(U.dee), body: { title: 'Renamed by dee' } })).status,
    ).toBe(200);
    // Team grants are not user grants.
    expect((await p.api('GET', `/collections/${target.id}/permissions/users`)).body.count).toBe(0);
  });

  it('adds a user from outside the organization as a guest', async () => {
    const target = await createCollection({ title: 'For ivy' });
    const child = await createCollection({ title: 'For ivy, nested', parent: target.id });
    const ivy = userId(U.ivy);
    expect((await p.api('GET', `/orgs/${ORG}/collections`, as(U.ivy))).status).toBe(404);
    expect(
      (await p.api('POST', `/collections/${target.id}/permissions`, { body: { role: 'read', users: [ivy] } })).status,
    ).toBe(204);
    const member = p.db.prepare("SELECT role FROM members WHERE org_id = 'northwind' AND user_id = ?").get(ivy) as {
      role: string | null;
    };
    expect(member).toEqual({ role: null });
    const seen = await p.api('GET', `/orgs/${ORG}/collections`, as(U.ivy));
    expect(seen.status).toBe(200);
    expect(ids(seen)).toEqual([target.id, child.id]);
  });

  it('validates invitations', async () => {
    const path = `/collections/${C.internal}/permissions`;
    const finn = userId(U.finn);
    expect((await p.api('POST', path, { body: { role: 'read', users: ['nope'] } })).status).toBe(404);
    expect((await p.api('POST', path, { body: { role: 'read', teams: ['nope'] } })).status).toBe(404);
    expect((await p.api('POST', path, { body: { role: 'read' } })).status).toBe(400);
    expect((await p.api('POST', path, { body: { role: 'read', users: [], teams: [] } })).status).toBe(400);
    expect((await p.api('POST', path, { body: { users: [finn] } })).status).toBe(400);
    expect((await p.api('POST', path, { body: { role: 'owner', users: [finn] } })).status).toBe(400);
    expect((await p.api('POST', path, { body: { role: 'read', users: [finn], groups: [] } })).status).toBe(400);
    expect((await p.api('POST', path, { ...as(U.cy), body: { role: 'read', users: [finn] } })).status).toBe(403);
    expect(
      (await p.api('POST', '/collections/nope/permissions', { body: { role: 'read', users: [finn] } })).status,
    ).toBe(404);
    expect((await p.api('PATCH', `${path}/users/nope`, { body: { role: 'read' } })).status).toBe(404);
    expect((await p.api('PATCH', `${path}/users/${finn}`, { body: {} })).status).toBe(400);
    expect((await p.api('PATCH', `${path}/users/${finn}`, { ...as(U.finn), body: { role: 'admin' } })).status).toBe(
      403,
    );
    expect((await p.api('DELETE', `${path}/users/${finn}`, as(U.finn))).status).toBe(403);
    expect((await p.api('GET', '/collections/nope/permissions/users')).status).toBe(404);
    expect((await p.api('GET', `/collections/${C.engineering}/permissions/users`, as(U.gus))).status).toBe(404);
    expect((await p.api('GET', `${path}/users`, { query: { limit: 1001 } })).status).toBe(400);
  });

  it('lists the guest grant on Guides', async () => {
    const answer = await p.api('GET', `/collections/${C.guides}/permissions/users`);
    expect(answer.body.items).toEqual([{ permission: 'read', user: expect.objectContaining({ email: U.gus }) }]);
  });

  it('aggregates the effective role of every member who can access', async () => {
    const engineering = await p.api('GET', `/collections/${C.engineering}/permissions/aggregate`);
    expect(engineering.status).toBe(200);
    expect(engineering.body.items.map((item: any) => [item.user.displayName, item.permission])).toEqual([
      ['Ada Lovelace', 'admin'],
      ['Ben Okafor', 'edit'],
      ['Cy Tanaka', 'read'],
      ['Dee Alvarez', 'edit'],
      ['Eve Martin', 'edit'],
      ['Finn Larsen', 'read'],
    ]);
    const guides = await p.api('GET', `/collections/${C.guides}/permissions/aggregate`, { query: { role: 'read' } });
    expect(guides.body.items.map((item: any) => item.user.email)).toEqual([U.finn, U.gus]);
    const internal = await p.api('GET', `/collections/${C.internal}/permissions/aggregate`, {
      query: { role: 'review' },
    });
    expect(internal.body.items.map((item: any) => item.user.email)).toEqual([U.cy, U.finn]);

    const walked = await walk(`/collections/${C.engineering}/permissions/aggregate`, 2);
    expect(walked.count).toBe(6);
    expect(walked.pages).toBe(3);
    expect(walked.items.map((item) => item.user.displayName)).toEqual(
      engineering.body.items.map((item: any) => item.user.displayName),
    );
    expect(
      (await p.api('GET', `/collections/${C.guides}/permissions/aggregate`, { query: { role: 'owner' } })).status,
    ).toBe(400);
    expect((await p.api('GET', `/collections/${C.engineering}/permissions/aggregate`, as(U.gus))).status).toBe(404);
  });
});

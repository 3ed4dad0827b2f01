import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pseudoLocalize } from '../../src/platform/translations/translator.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
/** North: admin ada, dee (`edit`); South: ada alone. */
let north: TestOrg;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  north = addOrg(g.platform, { id: 'north', members: { ada: 'admin', dee: 'edit' } });
  addOrg(g.platform, { id: 'south', members: { ada: 'admin' }, users: { ada: north.user('ada') } });
});
afterAll(() => g.destroy());

const UPDATE = `mutation Glossary($org: ID!, $operations: [GlossaryOperationInput!]!) {
  updateGlossary(input: { organizationId: $org, operations: $operations }) {
    organization { glossary(first: 10, orderBy: EN) { totalCount nodes { id platformId terms { language term } fr: term(language: FR) } } }
    userErrors { code message field }
  }
}`;

const GLOSSARY = `query Glossary($org: ID!, $orderBy: TranslationLanguage) {
  organization(id: $org) { glossary(first: 10, orderBy: $orderBy) { totalCount nodes { platformId en: term(language: EN) de: term(language: DE) } } }
}`;

const insert = (terms: Record<string, string>) => ({
  action: 'INSERT',
  terms: Object.entries(terms).map(([language, term]) => ({
    language: language.toUpperCase().replace('-', '_'),
    term,
  })),
});

async function update(operations: unknown[], org = 'north', token?: string) {
  const result = await g.gql(UPDATE, { org, operations }, token ? { token } : {});
  expect(result.errors).toBeUndefined();
  return { payload: result.data.updateGlossary, upstream: result.upstreamRequests };
}

describe('the translation glossary (listGlossaryEntries, updateGlossaryEntries, getGlossaryEntry)', () => {
  it('adds, updates and removes entries in one update, and lists them by a language’s term', async () => {
    const added = await update([
      insert({ en: 'Workspace', fr: 'Espace de travail', de: 'Arbeitsbereich' }),
      insert({ en: 'API key', fr: 'Clé d’API' }),
      insert({ de: 'Abrechnung' }),
    ]);
    expect(added.payload.userErrors).toEqual([]);
    // The write, then the organization and its glossary, which the payload reads.
    expect(added.upstream).toEqual([
      'PUT /v1/orgs/north/translations-glossary',
      'GET /v1/orgs/north',
      'GET /v1/orgs/north/translations-glossary?limit=10&orderBy=en',
    ]);
    const entries = added.payload.organization.glossary;
    expect(entries.totalCount).toBe(3);
    expect(entries.nodes.map((node: any) => node.fr)).toEqual(['Clé d’API', 'Espace de travail', null]);
    const [apiKey, workspace] = entries.nodes;

    const changed = await update([
      {
        action: 'UPDATE',
        entryId: workspace.id,
        terms: [
          { language: 'EN', term: 'Workspace' },
          { language: 'FR', term: 'Espace' },
        ],
      },
      { action: 'DELETE', entryId: apiKey.platformId },
    ]);
    expect(changed.payload.userErrors).toEqual([]);
    expect(changed.payload.organization.glossary.nodes.map((node: any) => node.terms)).toEqual([
      [
        { language: 'EN', term: 'Workspace' },
        { language: 'FR', term: 'Espace' },
      ],
      [{ language: 'DE', term: 'Abrechnung' }],
    ]);

    const byGerman = await g.gql(GLOSSARY, { org: 'north', orderBy: 'DE' });
    expect(byGerman.data.organization.glossary.nodes.map((node: any) => node.de)).toEqual(['Abrechnung', null]);
    const one = await g.gql(
      `query($id: ID!) { node(id: $id) { ... on GlossaryEntry { en: term(language: EN) organization { id } } } }`,
      {
        id: workspace.id,
      },
    );
    expect(one.data.node.en).toBe('Workspace');
    expect(one.upstreamRequests).toEqual([`GET /v1/orgs/north/translations-glossary/${workspace.platformId}`]);
  });

  it('refuses a whole update at its first bad operation, naming it, and checks input before any request', async () => {
    const before = (await g.gql(GLOSSARY, { org: 'north' })).data.organization.glossary.totalCount;
    const unknown = await update([insert({ en: 'Dashboard' }), { action: 'DELETE', entryId: 'no-such-entry' }]);
    expect(unknown.payload.organization).toBeNull();
    expect(unknown.payload.userErrors).toEqual([
      expect.objectContaining({ code: 'BAD_USER_INPUT', field: ['operations', '1', 'entryId'] }),
    ]);
    expect((await g.gql(GLOSSARY, { org: 'north' })).data.organization.glossary.totalCount).toBe(before);

    for (const [operation, field] of [
      [{ action: 'INSERT' }, 'terms'],
      [{ action: 'UPDATE', terms: [{ language: 'EN', term: 'x' }] }, 'entryId'],
      [{ action: 'INSERT', terms: [{ language: 'EN', term: 'a\nb' }] }, 'terms'],
      [{ action: 'INSERT', terms: [{ language: 'EN', term: 'x'.repeat(256) }] }, 'terms'],
    ] as const) {
      const refused = await update([operation]);
      expect(refused.payload.userErrors[0], JSON.stringify(operation)).toMatchObject({ code: 'BAD_USER_INPUT' });
      expect(refused.payload.userErrors[0].field.slice(0, 3)).toEqual(['operations', '0', field]);
    }
    const many = await g.platform.api('PUT', '/orgs/north/translations-glossary', {
      body: { operations: Array.from({ length: 501 }, () => ({ type: 'insert', translations: { en: 'x' } })) },
    });
    expect(many.status).toBe(400);
    expect(many.body.error).toMatchObject({ limit: 'operations', value: 501, max: 500 });
  });

  it('is for admins: others get FORBIDDEN, outsiders NOT_FOUND', async () => {
    const dee = await g.gql(GLOSSARY, { org: 'north' }, { token: north.token('dee') });
    expect(dee.errors?.[0]?.extensions?.code).toBe('FORBIDDEN');
    const write = await g.gql(
      UPDATE,
      { org: 'north', operations: [insert({ en: 'x' })] },
      { token: north.token('dee') },
    );
    expect(write.data.updateGlossary.userErrors[0]).toMatchObject({ code: 'FORBIDDEN' });
    expect((await g.platform.api('GET', '/orgs/south/translations-glossary/nope')).status).toBe(404);
  });

  it('is kept by translation runs: the target term where the source term is, and a change translates again', async () => {
    const ada = north.token('ada');
    const space = await north.space('Handbook', { language: 'en' });
    await g.platform.api('PATCH', `/spaces/${space}`, { body: { mergeRules: { type: 'none' } } });
    const cr = (await g.platform.api('POST', `/spaces/${space}/change-requests`, { body: { subject: 'Seed' } })).body
      .id;
    await g.platform.api('POST', `/spaces/${space}/change-requests/${cr}/content`, {
      query: { compat: false },
      body: {
        changes: [
          {
            operation: 'insert_page',
            ref: 'p',
            document: { markdown: '# Your workspace\n\nOpen the Workspace settings, then copy the Access Token.\n' },
          },
        ],
      },
    });
    await g.platform.api('POST', `/spaces/${space}/change-requests/${cr}/merge`);
    await update([insert({ en: 'access token', fr: 'jeton d’accès' })]);

    const created = await g.platform.api('POST', '/orgs/north/translations', {
      token: ada,
      body: { language: 'fr', source: { space, language: 'en' } },
    });
    const translated = async () => {
      await g.platform.api('POST', `/orgs/north/translations/${created.body.id}/run`, { token: ada });
      await g.platform.app.jobs.drain();
      const done = (await g.platform.api('GET', `/orgs/north/translations/${created.body.id}`, { token: ada })).body;
      const pages = (await g.platform.api('GET', `/spaces/${done.result.space}/content/pages`)).body.pages;
      const page = await g.platform.api('GET', `/spaces/${done.result.space}/content/page/${pages[0].id}`, {
        query: { format: 'document' },
      });
      // The document's texts, as one string.
      return { title: pages[0].title as string, markdown: JSON.stringify(page.body.document), stats: done.stats };
    };

    const first = await translated();
    // "Workspace" (en, fr) is in the glossary, matched in any case; "access token" too; the rest is translated.
    expect(first.title.startsWith(pseudoLocalize('Your').slice(0, 5))).toBe(true);
    expect(first.title).toContain('Espace');
    expect(first.markdown).toContain('Espace');
    expect(first.markdown).toContain('jeton d’accès');
    expect(first.markdown).not.toContain('Access Token');
    expect(first.markdown).not.toMatch(/⟪\d+⟫/);

    // Another term: every page is translated again on the next run.
    await update([insert({ en: 'settings', fr: 'paramètres' })]);
    const second = await translated();
    expect(second.markdown).toContain('paramètres');
    expect(second.stats.latestPages).toBe(1);
  });
});

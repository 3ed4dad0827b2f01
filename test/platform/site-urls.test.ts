import { generateKeyPairSync } from 'node:crypto';
import { decodeJwt, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrg, addUser, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { buildSite, writePages } from '../fixtures/sites.js';

const acme = 'northwind';
/** Spaces the cases name by role. */
const S = {
  public: 'Release notes',
  userGrant: 'Runbooks',
  gitSynced: 'Company handbook',
  teamGrant: 'Architecture decisions',
  visitorAuth: 'API reference',
};
/** Titles of the sites the platform has before the cases run. */
const SITES = {
  /** Public, published, Northwind's default content, basename `docs`: sections Getting started (variants `en`,
   * `fr`), Product, and Release notes and Status in a group Resources. */
  docs: 'Northwind Docs',
  /** Visitor-auth, published on `api.northwind.test`: API reference (`reference`) and Runbooks (`beta`, for
   * visitors with `betaAccess`). */
  api: 'Northwind API',
  /** Unpublished: Roadmap. */
  draft: 'Northwind Labs',
};
const spaceIds: Record<string, string> = {};
const idOf = (title: string) => spaceIds[title]!;
/** Northwind: ada admin, ben `create`, dee `edit`; ivy belongs to no organization. */
const users = {} as Record<'ada' | 'ben' | 'dee' | 'ivy', TestUser>;
/** Northwind's collection Product. */
let product: string;
/** The basename of the unpublished site. */
let labsBasename: string;

let p: TestPlatform;
/** The platform's published address: `<pub>/<organization hostname>/<basename>/…`. */
let pub: string;
const ids = {} as Record<
  'portal' | 'apiSection' | 'v1' | 'v2' | 'guidesSection' | 'shareLink' | 'key' | 'docs' | 'api' | 'labs',
  string
>;

async function ok(method: string, path: string, options: Parameters<TestPlatform['api']>[2] = {}, status = 200) {
  const answer = await p.api(method, path, options);
  expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
  return answer.body;
}

/** Resolves a published URL as `token`'s user (the admin by default). */
async function resolve(
  url: string,
  visitor?: Record<string, unknown>,
  options: { redirectOnError?: boolean; token?: string } = {},
) {
  return p.api('POST', '/urls/published', {
    token: options.token,
    body: { url, ...(visitor ? { visitor } : {}), ...(options.redirectOnError ? { redirectOnError: true } : {}) },
  });
}

async function resolved(url: string, visitor?: Record<string, unknown>) {
  const answer = await resolve(url, visitor);
  expect(answer.status, `${url}: ${JSON.stringify(answer.body)}`).toBe(200);
  return answer.body;
}

/** A visitor token for the site, signed with its key (HS256) unless another key is given. */
async function visitorToken(
  siteId: string,
  claims: Record<string, unknown>,
  options: { expiresIn?: string; key?: string } = {},
) {
  const key = options.key ?? (await ok('GET', `/orgs/${acme}/sites/${siteId}/publishing/auth`)).privateKey;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuedAt()
    .setExpirationTime(options.expiresIn ?? '1h')
    .sign(new TextEncoder().encode(key));
}

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  pub = `${p.url.replace(/\/v1$/, '')}/published`;
  for (const key of ['ada', 'ben', 'dee', 'ivy'] as const) users[key] = addUser(p, key);
  const org = addOrg(p, { id: acme, members: { ada: 'admin', ben: 'create', dee: 'edit' }, users });
  // An organization without a default site: its address answers nothing.
  addOrg(p, { id: 'southwind', members: { ada: 'admin' }, users });
  product = await org.collection('Product');
  for (const [title, settings] of [
    ['Getting started', { parent: product, visibility: 'public', emoji: '🚀' }],
    ['Guide de démarrage', { language: 'fr' }],
    ['Product overview', {}],
    ['Status page', {}],
    ['Roadmap', {}],
    ...Object.values(S).map((title) => [title, {}] as const),
  ] as const) {
    spaceIds[title] = await org.space(title, settings);
  }
  await writePages(org, idOf('Getting started'), [{ title: 'Welcome' }, { title: 'Install', slug: 'install' }]);
  await writePages(org, idOf('Getting started'), [{ title: 'Upgrade' }], { open: true });
  const docs = await buildSite(org, {
    title: SITES.docs,
    basename: 'docs',
    defaultContent: true,
    sections: [
      {
        title: 'Getting started',
        space: idOf('Getting started'),
        variantPath: 'en',
        variants: [{ space: idOf('Guide de démarrage'), path: 'fr' }],
      },
      { title: 'Product', space: idOf('Product overview') },
      { title: 'Release notes', space: idOf(S.public) },
      { title: 'Status', space: idOf('Status page') },
    ],
    groups: [{ title: 'Resources', sections: ['Release notes', 'Status'] }],
  });
  const apiSite = await buildSite(org, {
    title: SITES.api,
    visibility: 'visitor-auth',
    hostname: 'api.northwind.test',
    siteSpaces: [
      { space: idOf(S.visitorAuth), path: 'reference' },
      { space: idOf(S.userGrant), path: 'beta', condition: 'visitor.claims.betaAccess == true' },
    ],
  });
  const labs = await buildSite(org, { title: SITES.draft, siteSpaces: [{ space: idOf('Roadmap') }], publish: false });
  ids.docs = docs.id;
  ids.api = apiSite.id;
  ids.labs = labs.id;
  labsBasename = labs.basename;
  // The worked example: a share-link site with a default section and an `api` section whose
  // non-default variant `v2` shows a space.
  const portal = await ok(
    'POST',
    `/orgs/${acme}/sites`,
    { body: { title: 'Portal', visibility: 'share-link', spaces: [idOf(S.public)] } },
    201,
  );
  ids.portal = portal.id;
  await ok('PATCH', `/orgs/${acme}/sites/${portal.id}`, { body: { basename: 'portal' } });
  const api = await ok(
    'POST',
    `/orgs/${acme}/sites/${portal.id}/sections`,
    { body: { spaceId: idOf(S.userGrant), title: 'API' } },
    201,
  );
  ids.apiSection = api.id;
  ids.v1 = api.siteSpaces[0].id;
  await ok('PATCH', `/orgs/${acme}/sites/${portal.id}/site-spaces/${ids.v1}`, { body: { path: 'v1' } });
  const v2 = await ok(
    'POST',
    `/orgs/${acme}/sites/${portal.id}/site-spaces`,
    { body: { spaceId: idOf(S.gitSynced), sectionId: api.id, path: 'v2' } },
    201,
  );
  ids.v2 = v2.id;
  const sections = (await ok('GET', `/orgs/${acme}/sites/${portal.id}/sections`)).items;
  ids.guidesSection = sections[0].id;
  await ok('PATCH', `/orgs/${acme}/sites/${portal.id}/sections/${ids.guidesSection}`, { body: { path: 'guides' } });
  await ok('POST', `/orgs/${acme}/sites/${portal.id}/publish`);
  const link = await ok('POST', `/orgs/${acme}/sites/${portal.id}/share-links`, { body: { name: 'Partners' } }, 201);
  ids.shareLink = link.id;
  ids.key = new URL(link.urls.published).pathname.split('/').filter(Boolean).pop()!;
});

afterAll(async () => {
  await p?.destroy();
});

describe('published URLs', () => {
  it('resolves the worked example: share key, section, variant, page path', async () => {
    const url = `${pub}/northwind/portal/${ids.key}/api/v2/guides/intro`;
    const body = await resolved(url);
    expect(body).toMatchObject({
      site: ids.portal,
      siteSection: ids.apiSection,
      siteSpace: ids.v2,
      space: idOf(S.gitSynced),
      organization: acme,
      shareKey: ids.key,
      siteBasePath: `/published/northwind/portal/${ids.key}/`,
      basePath: `/published/northwind/portal/${ids.key}/api/v2/`,
      pathname: 'guides/intro',
      complete: true,
      canonicalUrl: url,
    });
    expect(body.preview).toBeUndefined();
    const token = decodeJwt(body.apiToken);
    expect(token).toMatchObject({
      kind: 'site',
      site: ids.portal,
      siteSection: ids.apiSection,
      siteSpace: ids.v2,
      space: idOf(S.gitSynced),
      spaces: [idOf(S.gitSynced)],
      organization: acme,
      claims: {},
    });
    expect(token.exp! - token.iat!).toBe(3600);
  });

  it('falls back to the default section and variant, and says when more site segments could follow', async () => {
    const intro = await resolved(`${pub}/northwind/portal/${ids.key}/guides-page/intro`);
    expect(intro).toMatchObject({
      siteSection: ids.guidesSection,
      space: idOf(S.public),
      pathname: 'guides-page/intro',
      complete: true,
      basePath: `/published/northwind/portal/${ids.key}/`,
    });
    const root = await resolved(`${pub}/northwind/portal/${ids.key}`);
    expect(root).toMatchObject({ siteSection: ids.guidesSection, pathname: '', complete: false });
    const section = await resolved(`${pub}/northwind/portal/${ids.key}/api`);
    expect(section).toMatchObject({
      siteSection: ids.apiSection,
      siteSpace: ids.v1,
      pathname: '',
      complete: false,
      canonicalUrl: `${pub}/northwind/portal/${ids.key}/api`,
    });
    const variant = await resolved(`${pub}/northwind/portal/${ids.key}/api/v2`);
    expect(variant).toMatchObject({ siteSpace: ids.v2, pathname: '', complete: true });
  });

  it('redirects a URL that names a default the canonical URL leaves out, keeping its query', async () => {
    const defaults = await resolve(`${pub}/northwind/portal/${ids.key}/guides/intro?tab=2`);
    expect(defaults.body).toEqual({ target: 'content', redirect: `${pub}/northwind/portal/${ids.key}/intro?tab=2` });
    const defaultVariant = await resolve(`${pub}/northwind/portal/${ids.key}/api/v1/reference`);
    expect(defaultVariant.body).toEqual({
      target: 'content',
      redirect: `${pub}/northwind/portal/${ids.key}/api/reference`,
    });
  });

  it('normalizes: repeated and trailing slashes, case, percent-encoding; refuses malformed and overlong URLs', async () => {
    const body = await resolved(`${pub}//northwind/PORTAL/${ids.key}//API/v2/guides%2Fmore//`);
    expect(body).toMatchObject({ siteSpace: ids.v2, pathname: 'guides/more' });
    const encoded = await resolved(`${pub}/northwind/portal/${ids.key}/%61pi/v2`);
    expect(encoded.siteSpace).toBe(ids.v2);
    for (const url of [
      `${pub}/northwind/portal/%E0%A4%A`,
      `${pub}/northwind/portal/${'a'.repeat(2050)}`,
      'not a url',
      'ftp://example.com/docs',
    ]) {
      const answer = await resolve(url);
      expect(answer.status, url).toBe(400);
    }
  });

  it('resolves the organization’s default site under its hostname, sections by path, and language variants', async () => {
    const landing = await resolved(`${pub}/northwind`);
    expect(landing).toMatchObject({ site: ids.docs, siteBasePath: '/published/northwind/', pathname: '' });
    const product = await resolved(`${pub}/northwind/product/overview`);
    expect(product).toMatchObject({ site: ids.docs, space: idOf('Product overview'), pathname: 'overview' });
    const french = await resolved(`${pub}/northwind/docs/getting-started/fr/installation`);
    expect(french).toMatchObject({
      site: ids.docs,
      space: idOf('Guide de démarrage'),
      pathname: 'installation',
      canonicalUrl: `${pub}/northwind/docs/getting-started/fr/installation`,
    });
    // The French variant without its section's path still resolves, to its canonical URL.
    const short = await resolved(`${pub}/northwind/docs/fr`);
    expect(short).toMatchObject({
      space: idOf('Guide de démarrage'),
      canonicalUrl: `${pub}/northwind/docs/getting-started/fr`,
    });
    // Sections inside groups resolve like the others.
    const grouped = await resolved(`${pub}/northwind/docs/status`);
    expect(grouped.space).toBe(idOf('Status page'));
  });

  it('previews change requests and revisions of the resolved space', async () => {
    const space = idOf('Getting started');
    const request = (await ok('GET', `/spaces/${space}/change-requests`, { query: { status: 'open' } })).items[0];
    const byNumber = await resolved(`${pub}/northwind/docs/~/changes/${request.number}/install`);
    expect(byNumber).toMatchObject({
      space,
      changeRequest: request.id,
      basePath: `/published/northwind/docs/~/changes/${request.number}/`,
      pathname: 'install',
    });
    expect((await resolved(`${pub}/northwind/docs/~/changes/${request.id}`)).changeRequest).toBe(request.id);
    const revision = (await ok('GET', `/spaces/${space}`)).revision;
    expect((await resolved(`${pub}/northwind/docs/~/revisions/${revision}/install`)).revision).toBe(revision);
    expect((await resolve(`${pub}/northwind/docs/~/changes/99999`)).status).toBe(404);
    expect((await resolve(`${pub}/northwind/docs/~/revisions/nope`)).status).toBe(404);
  });

  it('answers 404 for unknown hosts and organizations, and for unpublished sites to people outside the organization', async () => {
    expect((await resolve('https://unknown.example.com/docs')).status).toBe(404);
    expect((await resolve(`${pub}/no-such-org/docs`)).status).toBe(404);
    expect((await resolve(`${pub}/southwind/nothing-here`)).status).toBe(404);
    const labs = `${pub}/northwind/${labsBasename}/some-page`;
    const preview = await resolved(labs);
    expect(preview).toMatchObject({ site: ids.labs, preview: true });
    // The API token of a member's preview reads the unpublished site, as any resolved URL's does.
    const profile = await p.api('GET', `/orgs/${acme}/sites/${ids.labs}/published`, { token: preview.apiToken });
    expect(profile.status, JSON.stringify(profile.body)).toBe(200);
    expect(profile.body.site.id).toBe(ids.labs);
    // Outside the organization, an unpublished site's basename is only a path of the default site.
    expect((await resolve(labs, undefined, { token: users.ivy.token })).body).toMatchObject({
      site: ids.docs,
      pathname: `${labsBasename}/some-page`,
    });
    await ok('POST', `/orgs/${acme}/sites/${ids.api}/unpublish`);
    try {
      expect(
        (await resolve('https://api.northwind.test/reference', undefined, { token: users.ivy.token })).status,
      ).toBe(404);
    } finally {
      await ok('POST', `/orgs/${acme}/sites/${ids.api}/publish`);
    }
    // Published, it resolves for anyone with the key.
    expect((await resolve(`${pub}/northwind/portal/${ids.key}`, undefined, { token: users.ivy.token })).status).toBe(
      200,
    );
  });

  it('needs an active share key for a share-link site', async () => {
    const missing = await resolve(`${pub}/northwind/portal/api/v2`);
    expect(missing.status).toBe(403);
    expect(missing.body.error.message).toBe('Authentication missing to access this content');
    await ok('PATCH', `/orgs/${acme}/sites/${ids.portal}/share-links/${ids.shareLink}`, { body: { active: false } });
    expect((await resolve(`${pub}/northwind/portal/${ids.key}/api/v2`)).status).toBe(403);
    await ok('PATCH', `/orgs/${acme}/sites/${ids.portal}/share-links/${ids.shareLink}`, { body: { active: true } });
    expect((await resolve(`${pub}/northwind/portal/${ids.key}/api/v2`)).status).toBe(200);
  });

  it('resolves the GET form like the POST one', async () => {
    const url = `${pub}/northwind/portal/${ids.key}/api/v2/x`;
    const answer = await ok('GET', '/urls/published', { query: { url } });
    expect(answer).toMatchObject({ siteSpace: ids.v2, pathname: 'x' });
  });
});

describe('visitor authentication', () => {
  const apiUrl = 'https://api.northwind.test/getting-started/authentication';

  it('resolves a custom hostname with a token signed with the site’s key', async () => {
    const body = await resolved(apiUrl, { jwtToken: await visitorToken(ids.api, { email: 'reader@partner.test' }) });
    expect(body).toMatchObject({
      site: ids.api,
      space: idOf(S.visitorAuth),
      siteBasePath: '/',
      basePath: '/',
      pathname: 'getting-started/authentication',
      canonicalUrl: apiUrl,
    });
    expect(body.contextId).toEqual(expect.any(String));
    expect(decodeJwt(body.apiToken).claims).toEqual({ email: 'reader@partner.test' });
  });

  it('refuses a missing, expired or wrongly signed token: 401, or a redirect with redirectOnError', async () => {
    const none = await resolve(apiUrl);
    expect(none.status).toBe(401);
    const expired = await resolve(apiUrl, { jwtToken: await visitorToken(ids.api, {}, { expiresIn: '-2m' }) });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe('Error while validating the JWT token. Reason: The token has expired.');
    const forged = await resolve(apiUrl, { jwtToken: await visitorToken(ids.api, {}, { key: 'not-the-site-key' }) });
    expect(forged.status).toBe(401);
    expect(forged.body.error.message).toBe(
      'Error while validating the JWT token. Reason: The token signature is invalid.',
    );
    expect((await resolve(apiUrl, { jwtToken: 'garbage' })).status).toBe(401);

    const toLogin = await resolve(apiUrl, { jwtToken: 'garbage' }, { redirectOnError: true });
    expect(toLogin.status).toBe(200);
    expect(toLogin.body).toEqual({
      target: 'external',
      site: ids.api,
      redirect: 'https://api.northwind.test/~gitbook/auth/login?location=%2Fgetting-started%2Fauthentication',
    });
    await ok('PATCH', `/orgs/${acme}/sites/${ids.api}/publishing/auth`, {
      body: { backend: 'custom', fallbackURL: 'https://login.partner.test/oauth2' },
    });
    const external = await resolve(apiUrl, undefined, { redirectOnError: true });
    expect(external.body).toEqual({
      target: 'external',
      site: ids.api,
      redirect: 'https://login.partner.test/oauth2?location=%2Fgetting-started%2Fauthentication',
    });
  });

  it('verifies RS256 tokens with the public key the settings hold, and stops trusting a regenerated key', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rs256 = await new SignJWT({ plan: 'pro' })
      .setProtectedHeader({ alg: 'RS256' })
      .setExpirationTime('5m')
      .sign(privateKey);
    expect((await resolve(apiUrl, { jwtToken: rs256 })).status).toBe(401);
    const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const bad = await p.api('PATCH', `/orgs/${acme}/sites/${ids.api}/publishing/auth`, {
      body: { backend: 'custom', publicKey: 'nope' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('publicKey');
    await ok('PATCH', `/orgs/${acme}/sites/${ids.api}/publishing/auth`, {
      body: { backend: 'custom', publicKey: pem },
    });
    expect(decodeJwt((await resolved(apiUrl, { jwtToken: rs256 })).apiToken).claims).toEqual({ plan: 'pro' });

    const old = await visitorToken(ids.api, {});
    await ok('POST', `/orgs/${acme}/sites/${ids.api}/publishing/auth/regenerate`);
    expect((await resolve(apiUrl, { jwtToken: old })).status).toBe(401);
    expect((await resolve(apiUrl, { jwtToken: await visitorToken(ids.api, {}) })).status).toBe(200);
  });

  it('keeps the signing key from everyone but admins', async () => {
    expect(
      (await p.api('GET', `/orgs/${acme}/sites/${ids.api}/publishing/auth`, { token: users.ben.token })).status,
    ).toBe(403);
    const settings = await ok('GET', `/orgs/${acme}/sites/${ids.api}/publishing/auth`);
    expect(settings).toMatchObject({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String) });
    const resolvedBody = await resolved(apiUrl, { jwtToken: await visitorToken(ids.api, {}) });
    expect(JSON.stringify(resolvedBody)).not.toContain(settings.privateKey);
  });
});

describe('adaptive content', () => {
  const schema = {
    type: 'object',
    properties: {
      betaAccess: { type: 'boolean', description: 'Can see beta features' },
      plan: { type: 'string', enum: ['free', 'pro'], description: 'Subscription plan' },
      unsigned: {
        type: 'object',
        description: 'Unsigned claims of the site visitor.',
        properties: { newsletter: { type: 'boolean', description: 'Reads the newsletter' } },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  };

  it('stores a valid schema, refuses others naming the problem, and derives template conditions', async () => {
    expect((await p.api('GET', `/orgs/${acme}/sites/${ids.portal}/adaptive-schema`)).status).toBe(404);
    for (const [jsonSchema, message] of [
      [{ type: 'object', properties: { beta: { type: 'boolean' } }, additionalProperties: false }, 'jsonSchema'],
      [{ type: 'object', properties: {}, additionalProperties: true }, 'additionalProperties'],
      [
        {
          type: 'object',
          properties: { 'bad-name': { type: 'boolean', description: 'x' } },
          additionalProperties: false,
        },
        'property name',
      ],
      [
        {
          type: 'object',
          properties: {
            unsigned: { type: 'object', description: 'Other', properties: {}, additionalProperties: false },
          },
          additionalProperties: false,
        },
        'unsigned',
      ],
    ] as const) {
      const answer = await p.api('PUT', `/orgs/${acme}/sites/${ids.api}/adaptive-schema`, { body: { jsonSchema } });
      expect(answer.status, JSON.stringify(jsonSchema)).toBe(400);
      expect(answer.body.error.message).toContain(message);
    }
    const stored = await ok('PUT', `/orgs/${acme}/sites/${ids.api}/adaptive-schema`, { body: { jsonSchema: schema } });
    expect(stored).toMatchObject({ object: 'site-adaptive-schema', jsonSchema: schema });
    expect(
      (await ok('GET', `/orgs/${acme}/sites/${ids.api}/adaptive-schema`, { token: users.dee.token })).jsonSchema,
    ).toEqual(schema);
    expect(
      (
        await p.api('PUT', `/orgs/${acme}/sites/${ids.api}/adaptive-schema`, {
          token: users.dee.token,
          body: { jsonSchema: schema },
        })
      ).status,
    ).toBe(403);
    const templates = await ok('GET', `/orgs/${acme}/sites/${ids.api}/adaptive-schema/template-conditions`);
    expect(templates.items).toEqual([
      { description: 'Can see beta features', condition: 'visitor.claims.betaAccess == true' },
      { description: 'Subscription plan: free', condition: 'visitor.claims.plan == "free"' },
      { description: 'Subscription plan: pro', condition: 'visitor.claims.plan == "pro"' },
      { description: 'Reads the newsletter', condition: 'visitor.claims.unsigned.newsletter == true' },
    ]);
  });

  it('resolves the same URL to different site spaces for two visitors’ claims', async () => {
    const url = 'https://api.northwind.test/beta/overview';
    const beta = await resolved(url, { jwtToken: await visitorToken(ids.api, { betaAccess: true }) });
    const regular = await resolved(url, { jwtToken: await visitorToken(ids.api, { betaAccess: false }) });
    expect(beta).toMatchObject({ space: idOf(S.userGrant), pathname: 'overview' });
    expect(regular).toMatchObject({ space: idOf(S.visitorAuth), pathname: 'beta/overview' });
    expect(beta.siteSpace).not.toBe(regular.siteSpace);
  });

  it('does not resolve a section whose condition is false for the visitor', async () => {
    const section = `/orgs/${acme}/sites/${ids.portal}/sections/${ids.apiSection}`;
    await ok('PATCH', section, { body: { condition: 'visitor.claims.partner == true' } });
    try {
      const url = `${pub}/northwind/portal/${ids.key}/api/v2`;
      const anonymous = await resolved(url);
      expect(anonymous).toMatchObject({ siteSection: ids.guidesSection, pathname: 'api/v2' });
      const partner = await resolved(url, { jwtToken: await visitorToken(ids.portal, { partner: true }) });
      expect(partner).toMatchObject({ siteSection: ids.apiSection, siteSpace: ids.v2, pathname: '' });
    } finally {
      await ok('PATCH', section, { body: { condition: null } });
    }
  });

  it('uses unsigned claims that fit the schema and refuses those that do not', async () => {
    const sites = `/orgs/${acme}/sites/${ids.api}/site-spaces`;
    const beta = (await ok('GET', sites)).items.find((item: any) => item.path === 'beta');
    await ok('PATCH', `${sites}/${beta.id}`, {
      body: { condition: 'visitor.claims.betaAccess == true || visitor.claims.unsigned.newsletter' },
    });
    const jwtToken = await visitorToken(ids.api, {});
    const url = 'https://api.northwind.test/beta';
    expect((await resolved(url, { jwtToken, unsignedClaims: { newsletter: true } })).siteSpace).toBe(beta.id);
    expect((await resolved(url, { jwtToken, unsignedClaims: { newsletter: false } })).siteSpace).not.toBe(beta.id);
    for (const unsignedClaims of [{ newsletter: 'yes' }, { other: true }]) {
      const answer = await resolve(url, { jwtToken, unsignedClaims });
      expect(answer.status).toBe(400);
      expect(answer.body.error.message).toContain('visitor.unsignedClaims');
    }
  });
});

describe('share links', () => {
  it('creates, lists, finds, updates and deletes share links; admins only', async () => {
    const base = `/orgs/${acme}/sites/${ids.portal}/share-links`;
    const created = await ok('POST', base, { body: { name: 'Press' } }, 201);
    expect(created).toMatchObject({ object: 'share-link', name: 'Press', active: true });
    const key = new URL(created.urls.published).pathname.split('/').filter(Boolean).pop();
    expect((await ok('GET', base, { query: { search: 'pre' } })).items.map((item: any) => item.id)).toEqual([
      created.id,
    ]);
    expect((await ok('GET', base, { query: { search: key! } })).items.map((item: any) => item.id)).toEqual([
      created.id,
    ]);
    expect((await ok('PATCH', `${base}/${created.id}`, { body: { name: 'Press kit' } })).name).toBe('Press kit');
    expect((await p.api('PATCH', `${base}/${created.id}`, { body: {} })).status).toBe(400);
    expect((await p.api('POST', base, { token: users.ben.token, body: { name: 'x' } })).status).toBe(403);
    expect((await p.api('DELETE', `${base}/${created.id}`)).status).toBe(205);
    expect((await p.api('DELETE', `${base}/${created.id}`)).status).toBe(204);
    expect((await resolve(`${pub}/northwind/portal/${key}`)).status).toBe(403);
  });

  it('lets anyone with a key read the structure and profile of a share-link site', async () => {
    const outsider = users.ivy.token;
    const structure = `/orgs/${acme}/sites/${ids.portal}/structure`;
    expect((await p.api('GET', structure, { token: outsider })).status).toBe(404);
    expect((await p.api('GET', structure, { token: outsider, query: { shareKey: ids.key } })).status).toBe(200);
    expect(
      (
        await p.api('GET', `/orgs/${acme}/sites/${ids.portal}/site-spaces`, {
          token: outsider,
          query: { shareKey: ids.key },
        })
      ).body.count,
    ).toBe(3);
    expect(
      (
        await p.api('GET', `/orgs/${acme}/sites/${ids.portal}/published`, {
          token: outsider,
          query: { shareKey: ids.key },
        })
      ).status,
    ).toBe(200);
    expect((await p.api('GET', `/orgs/${acme}/sites/${ids.api}/published`, { token: outsider })).status).toBe(404);
  });
});

describe('published profile', () => {
  it('answers the site, its published structure, default customizations for the site and each site space, and scripts', async () => {
    const draft = await ok(
      'POST',
      `/orgs/${acme}/sites/${ids.docs}/site-spaces`,
      { body: { spaceId: idOf(S.teamGrant), draft: true } },
      201,
    );
    const profile = await ok('GET', `/orgs/${acme}/sites/${ids.docs}/published`, { token: users.ivy.token });
    expect(profile.object).toBe('published-content-site');
    expect(profile.site).toMatchObject({ id: ids.docs, published: true });
    expect(profile.structure.type).toBe('sections');
    expect(profile.customizations.site).toMatchObject({
      title: SITES.docs,
      themes: { default: 'light', toggeable: true },
    });
    const variants = (await ok('GET', `/orgs/${acme}/sites/${ids.docs}/site-spaces`)).items.filter(
      (item: any) => !item.draft,
    );
    expect(Object.keys(profile.customizations.siteSpaces).sort()).toEqual(variants.map((item: any) => item.id).sort());
    expect(profile.customizations.siteSpaces[draft.id]).toBeUndefined();
    const french = variants.find((item: any) => item.path === 'fr');
    expect(profile.customizations.siteSpaces[french.id].internationalization).toEqual({ locale: 'fr' });
    expect(profile.scripts).toEqual([]);
  });
});

describe('content and embed URLs', () => {
  it('resolves app URLs of collections, spaces, change requests and pages', async () => {
    const space = await ok('GET', `/spaces/${idOf('Getting started')}`);
    const collection = await ok('GET', `/collections/${product}`);
    expect(await ok('GET', '/urls/content', { query: { url: collection.urls.app } })).toEqual({ collection });
    const bySpace = await ok('GET', '/urls/content', { query: { url: space.urls.app } });
    expect(bySpace.space.id).toBe(space.id);
    expect(bySpace.page.path).toBe((await ok('GET', `/spaces/${space.id}/content/path`)).path);
    const page = (await ok('GET', `/spaces/${space.id}/content`)).pages.find(
      (item: any) => item.type === 'document' && item.path !== '',
    );
    const byPage = await ok('GET', '/urls/content', { query: { url: page.urls.app } });
    expect(byPage.page.id).toBe(page.id);
    const request = (await ok('GET', `/spaces/${space.id}/change-requests`)).items[0];
    const byRequest = await ok('GET', '/urls/content', { query: { url: request.urls.app } });
    expect(byRequest.changeRequest.id).toBe(request.id);
    expect(
      (await p.api('GET', '/urls/content', { query: { url: `${space.urls.app.replace(space.id, 'nope')}` } })).status,
    ).toBe(404);
    expect(
      (await p.api('GET', '/urls/content', { token: users.ivy.token, query: { url: collection.urls.app } })).status,
    ).toBe(404);
  });

  it('resolves a published URL to its space and page, and embeds a published page', async () => {
    const url = `${pub}/northwind/docs/getting-started/fr`;
    const content = await ok('GET', '/urls/content', { query: { url } });
    expect(content.space.id).toBe(idOf('Guide de démarrage'));
    const gettingStarted = `${pub}/northwind`;
    const landing = await ok('GET', `/spaces/${idOf('Getting started')}/content/path`);
    const embed = await ok('GET', '/urls/embed', { query: { url: gettingStarted } });
    expect(embed).toEqual({
      type: 'link',
      title: landing.title,
      site: SITES.docs,
      ...(landing.emoji ? { icon: landing.emoji } : { icon: expect.any(String) }),
    });
    expect((await p.api('GET', '/urls/embed', { query: { url: `${gettingStarted}/no-such-page` } })).status).toBe(404);
  });
});

describe('the API token of a resolved URL', () => {
  it('reads the resolved space’s content as the visitor, claims included, and nothing else', async () => {
    const { markdownToDocument } = await import('../../src/document/markdown.js');
    const { putDocument } = await import('../../src/platform/content/revisions.js');
    const { commitContent } = await import('../fixtures/content.js');
    const spaceId = idOf(S.userGrant);
    const markdown = [
      'Everyone sees this.',
      '',
      '{% if visitor.claims.betaAccess %}',
      'Beta testers see this.',
      '{% endif %}',
      '',
    ].join('\n');
    const documentId = putDocument(p.db, spaceId, markdownToDocument(markdown).document);
    commitContent(p.db, spaceId, {
      pages: [{ id: 'pg-beta', type: 'document', title: 'Overview', slug: 'overview', documentId, pages: [] }],
      files: [],
      reusableContents: [],
      variables: {},
    });
    const { apiToken, space, pathname } = await resolved('https://api.northwind.test/beta/overview', {
      jwtToken: await visitorToken(ids.api, { betaAccess: true }),
    });
    const token = apiToken as string;
    const page = await p.api('GET', `/spaces/${space}/content/path/${pathname}`, {
      token,
      query: { format: 'markdown', evaluated: 'true' },
    });
    expect(page.status).toBe(200);
    expect(page.body.markdown).toContain('Beta testers see this.');
    // An API reader is a visitor without claims.
    const asAdmin = await ok('GET', `/spaces/${space}/content/path/${pathname}`, {
      query: { format: 'markdown', evaluated: 'true' },
    });
    expect(asAdmin.markdown).toContain('Everyone sees this.');
    expect(asAdmin.markdown).not.toContain('Beta testers see this.');
    // The visitor reads the profile of the site, not another space, not the organization, and writes nothing.
    expect((await p.api('GET', `/orgs/${acme}/sites/${ids.api}/published`, { token })).status).toBe(200);
    expect((await p.api('GET', `/orgs/${acme}/sites/${ids.docs}/published`, { token })).status).toBe(200);
    expect((await p.api('GET', `/spaces/${idOf(S.teamGrant)}`, { token })).status).toBe(404);
    expect((await p.api('GET', `/spaces/${space}`, { token })).status).toBe(200);
    // The site's structure, sections and site spaces, as their claims show them.
    for (const part of ['structure', 'sections', 'site-spaces']) {
      expect([part, (await p.api('GET', `/orgs/${acme}/sites/${ids.api}/${part}`, { token })).status]).toEqual([
        part,
        200,
      ]);
    }
    // Routes that do not read through the visitor's view are closed to them.
    expect((await p.api('GET', `/orgs/${acme}`, { token })).status).toBe(403);
    expect((await p.api('PATCH', `/spaces/${space}`, { token, body: { title: 'Nope' } })).status).toBe(403);
    // A token the platform did not sign is no token.
    const forged = `${token.split('.').slice(0, 2).join('.')}.${'A'.repeat(43)}`;
    expect((await p.api('GET', `/spaces/${space}`, { token: forged })).status).toBe(401);
  });
});

describe('review cases', () => {
  it('resolves a proxied site by its origin and by the proxy target, compares hosts exactly, and keeps origins unique', async () => {
    const site = await ok('POST', `/orgs/${acme}/sites`, { body: { title: 'Proxied', spaces: [idOf(S.public)] } }, 201);
    await ok('PATCH', `/orgs/${acme}/sites/${site.id}`, { body: { proxy: 'example.com/docs' } });
    await ok('POST', `/orgs/${acme}/sites/${site.id}/publish`);
    const viaOrigin = await resolved('https://EXAMPLE.com/Docs/intro');
    expect(viaOrigin).toMatchObject({
      site: site.id,
      siteBasePath: '/Docs/',
      pathname: 'intro',
      canonicalUrl: 'https://example.com/docs/intro',
    });
    const viaTarget = await resolved(`${pub}/proxy/${site.id}/intro`);
    expect(viaTarget).toMatchObject({ site: site.id, pathname: 'intro' });
    expect((await resolve('https://exampl_.com/docs/intro')).status).toBe(404);
    expect((await resolve('https://example.com/other')).status).toBe(404);
    const other = await ok('POST', `/orgs/${acme}/sites`, { body: { title: 'Proxied twice' } }, 201);
    expect(
      (await p.api('PATCH', `/orgs/${acme}/sites/${other.id}`, { body: { proxy: 'Example.com/Docs' } })).status,
    ).toBe(409);
    expect(
      (await p.api('PATCH', `/orgs/${acme}/sites/${other.id}`, { body: { proxy: 'api.northwind.test/docs' } })).status,
    ).toBe(409);
    await ok('DELETE', `/orgs/${acme}/sites/${other.id}`, {}, 205);
    await ok('DELETE', `/orgs/${acme}/sites/${site.id}`, {}, 205);
  });

  it('refuses a basename that would hide a path of the default site', async () => {
    const site = await ok('POST', `/orgs/${acme}/sites`, { body: { title: 'Shadow' } }, 201);
    const answer = await p.api('PATCH', `/orgs/${acme}/sites/${site.id}`, { body: { basename: 'Product' } });
    expect(answer.status).toBe(409);
    expect(answer.body.error.message).toContain(SITES.docs);
    await ok('DELETE', `/orgs/${acme}/sites/${site.id}`, {}, 205);
  });

  it('shows previews of change requests to members only', async () => {
    const space = idOf('Getting started');
    const request = (await ok('GET', `/spaces/${space}/change-requests`, { query: { status: 'open' } })).items[0];
    const url = `${pub}/northwind/docs/~/changes/${request.number}/install`;
    expect((await resolve(url, undefined, { token: users.ivy.token })).status).toBe(404);
    const redirect = await resolve(url, undefined, { token: users.ivy.token, redirectOnError: true });
    expect(redirect.body.target).toBe('application');
    expect((await resolved(url)).changeRequest).toBe(request.id);
  });

  it('ends an API token when what it was given for no longer holds', async () => {
    const space = idOf(S.userGrant);
    const first = await resolved(`${pub}/northwind/portal/${ids.key}/api/v2`);
    expect((await p.api('GET', `/spaces/${first.space}`, { token: first.apiToken })).status).toBe(200);
    await ok('PATCH', `/orgs/${acme}/sites/${ids.portal}/share-links/${ids.shareLink}`, { body: { active: false } });
    try {
      expect((await p.api('GET', `/spaces/${first.space}`, { token: first.apiToken })).status).toBe(401);
    } finally {
      await ok('PATCH', `/orgs/${acme}/sites/${ids.portal}/share-links/${ids.shareLink}`, { body: { active: true } });
    }
    await ok('POST', `/orgs/${acme}/sites/${ids.portal}/unpublish`);
    try {
      expect((await p.api('GET', `/spaces/${first.space}`, { token: first.apiToken })).status).toBe(401);
    } finally {
      await ok('POST', `/orgs/${acme}/sites/${ids.portal}/publish`);
    }
    expect((await p.api('GET', `/spaces/${first.space}`, { token: first.apiToken })).status).toBe(200);

    const short = await visitorToken(ids.api, { betaAccess: true }, { expiresIn: '2m' });
    const visitor = await resolved('https://api.northwind.test/beta', { jwtToken: short });
    const token = decodeJwt(visitor.apiToken);
    expect(token.exp).toBe(decodeJwt(short).exp);
    expect(visitor.space).toBe(space);
    await ok('POST', `/orgs/${acme}/sites/${ids.api}/publishing/auth/regenerate`);
    expect((await p.api('GET', `/spaces/${space}`, { token: visitor.apiToken })).status).toBe(401);
  });

  it('hides pages whose condition is false from a visitor, and filters the profile by their claims', async () => {
    const { putDocument } = await import('../../src/platform/content/revisions.js');
    const { commitContent } = await import('../fixtures/content.js');
    const { markdownToDocument } = await import('../../src/document/markdown.js');
    const space = idOf(S.visitorAuth);
    const documentId = putDocument(p.db, space, markdownToDocument('Text.\n').document);
    commitContent(p.db, space, {
      pages: [
        { id: 'pg-open', type: 'document', title: 'Open', slug: 'open', documentId, pages: [] },
        {
          id: 'pg-pro',
          type: 'document',
          title: 'Pro',
          slug: 'pro',
          documentId,
          condition: 'visitor.claims.plan == "pro"',
          pages: [],
        },
      ],
      files: [],
      reusableContents: [],
      variables: {},
    });
    const free = await resolved('https://api.northwind.test/pro', {
      jwtToken: await visitorToken(ids.api, { plan: 'free' }),
    });
    const pro = await resolved('https://api.northwind.test/pro', {
      jwtToken: await visitorToken(ids.api, { plan: 'pro' }),
    });
    expect((await p.api('GET', `/spaces/${space}/content/path/pro`, { token: free.apiToken })).status).toBe(404);
    expect((await p.api('GET', `/spaces/${space}/content/path/pro`, { token: pro.apiToken })).status).toBe(200);
    const tree = await p.api('GET', `/spaces/${space}/content`, { token: free.apiToken });
    expect(tree.body.pages.map((page: any) => page.title)).toEqual(['Open']);
    expect(
      (await p.api('GET', '/urls/content', { token: free.apiToken, query: { url: 'https://api.northwind.test/pro' } }))
        .body.page,
    ).toBeUndefined();
    // The profile, read with the API token, shows the beta variant only to beta visitors.
    const profile = await p.api('GET', `/orgs/${acme}/sites/${ids.api}/published`, { token: free.apiToken });
    expect(profile.body.structure.structure.map((item: any) => item.path)).toEqual(['reference']);
    const beta = await resolved('https://api.northwind.test/', {
      jwtToken: await visitorToken(ids.api, { betaAccess: true }),
    });
    const betaProfile = await p.api('GET', `/orgs/${acme}/sites/${ids.api}/published`, { token: beta.apiToken });
    expect(betaProfile.body.structure.structure.map((item: any) => item.path)).toEqual(['reference', 'beta']);
  });

  it('reads the content of a public space at its app URL for someone outside the organization', async () => {
    const space = await ok('GET', `/spaces/${idOf('Getting started')}`);
    const answer = await p.api('GET', '/urls/content', { token: users.ivy.token, query: { url: space.urls.app } });
    expect(answer.status).toBe(200);
    expect(answer.body.space.id).toBe(space.id);
  });

  it('falls back to the next section with something to show when the default section’s space is deleted', async () => {
    const created = await ok(
      'POST',
      `/spaces`.replace('/spaces', `/orgs/${acme}/spaces`),
      { body: { title: 'Soon deleted' } },
      201,
    );
    const site = await ok('POST', `/orgs/${acme}/sites`, { body: { title: 'Fallback', spaces: [created.id] } }, 201);
    await ok(
      'POST',
      `/orgs/${acme}/sites/${site.id}/sections`,
      { body: { spaceId: idOf(S.public), title: 'Notes' } },
      201,
    );
    await ok('POST', `/orgs/${acme}/sites/${site.id}/publish`);
    await ok('DELETE', `/spaces/${created.id}`, {}, 205);
    const root = await resolved(`${pub}/northwind/fallback`);
    expect(root.space).toBe(idOf(S.public));
    const structure = await p.api('GET', `/orgs/${acme}/sites/${site.id}/structure`, { token: users.ivy.token });
    expect(structure.body.structure.map((item: any) => item.path)).toEqual(['notes']);
  });

  it('gives visitor-auth sites their sign-in and sign-out addresses', async () => {
    const site = await ok('GET', `/orgs/${acme}/sites/${ids.api}`);
    expect(site.urls).toMatchObject({
      login: 'https://api.northwind.test/~gitbook/auth/login',
      logout: expect.any(String),
    });
  });
});

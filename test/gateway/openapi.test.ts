import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { apiReferencePages, petStore, uploadSpec } from '../fixtures/openapi-specs.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';
import { PRIVATE_URLS, privateMachineName } from '../fixtures/private-urls.js';

const ORG = 'northwind';
/** Northwind's public specification of two versions (the second adds Remove a pet). */
const SPEC = 'petstore';
/** The title of SPEC's documents. */
const SPEC_TITLE = 'Test Petstore';

let g: TestGateway;
let org: TestOrg;
/** The space computing SPEC's reference: an Overview page, then the computed API reference. */
let petstoreSpace: string;

/** Northwind: ada admin, dee `edit`; SPEC, public, of two versions. */
async function northwind(gateway: TestGateway): Promise<TestOrg> {
  const built = addOrg(gateway.platform, { id: ORG, members: { ada: 'admin', dee: 'edit' } });
  const versions = [petStore({ title: SPEC_TITLE, removePet: false }), petStore({ title: SPEC_TITLE })];
  await uploadSpec(built, SPEC, versions, { visibility: 'public' });
  return built;
}

/** What a tiny HTTP server answers, by path; the tests change it as they go. */
const served: Record<string, { body: string; hang?: boolean }> = {};
const hanging: ServerResponse[] = [];
let server: Server;
let origin: string;

beforeAll(async () => {
  // A fetch timeout of its own: the hanging route never answers, and the others answer well within
  // it however busy the machine.
  g = await startTestGateway({ seed: false, openapiFetchTimeoutMs: 2_000 });
  org = await northwind(g);
  petstoreSpace = await org.space('Petstore API');
  apiReferencePages(org, petstoreSpace, SPEC, `# Overview\n\nThe reference below is generated from \`${SPEC}\`.\n`);
  server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const entry = served[(request.url ?? '').split('?')[0]!];
    if (!entry) return response.writeHead(404).end();
    if (entry.hang) return void hanging.push(response);
    response.writeHead(200, { 'content-type': 'application/yaml' }).end(entry.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const response of hanging) response.destroy();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await g?.destroy();
});

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

/** An OpenAPI 3.1 document in YAML with one tagged operation per entry of `paths`. */
function spec(title: string, paths: Array<[path: string, tag: string]>): string {
  const lines = ['openapi: 3.1.0', 'info:', `  title: ${title}`, "  version: '1.0'", 'paths:'];
  for (const [path, tag] of paths) {
    lines.push(
      `  ${path}:`,
      '    get:',
      `      summary: Read ${path}`,
      `      tags: [${tag}]`,
      '      responses:',
      "        '200':",
      '          description: OK',
    );
  }
  lines.push(
    'components:',
    '  schemas:',
    '    Item:',
    '      type: object',
    '      properties:',
    '        id:',
    '          type: string',
  );
  return `${lines.join('\n')}\n`;
}

const SPEC_FIELDS = `id slug sourceUrl processingState visibility lastProcessErrorCode lastProcessedErrorCount lastProcessedErrors { message }
  lastVersion { platformId } versions { totalCount nodes { platformId } }`;

async function readSpec(slug: string) {
  return (
    await ok(`query ($slug: String!) { organization(id: "${ORG}") { openApiSpec(slug: $slug) { ${SPEC_FIELDS} } } }`, {
      slug,
    })
  ).organization.openApiSpec;
}

describe('OpenAPI specifications', () => {
  it('lists a specification with its versions and the text of each', async () => {
    const result = await g.gql<any>(`{ organization(id: "${ORG}") { openApiSpecs { totalCount nodes {
      slug visibility processingState lastProcessErrorCode permissions { edit } organization { platformId }
      lastVersion { platformId createdAt }
      document format publicDocumentUrl
      versions { totalCount nodes { id platformId format document content spec { slug } } }
    } } } }`);
    expect(result.errors).toBeUndefined();
    const [petstore] = result.data.organization.openApiSpecs.nodes;
    expect(petstore).toMatchObject({
      slug: SPEC,
      visibility: 'PUBLIC',
      processingState: 'COMPLETE',
      lastProcessErrorCode: null,
      permissions: { edit: true },
      organization: { platformId: ORG },
    });
    const [newest, oldest] = petstore.versions.nodes;
    expect(petstore.versions.totalCount).toBe(2);
    expect(petstore.lastVersion.platformId).toBe(newest.platformId);
    expect(newest).toMatchObject({ format: 'YAML', spec: { slug: SPEC } });
    // The specification's own text is its latest version's, and public.
    expect(petstore).toMatchObject({
      document: newest.document,
      format: 'YAML',
      publicDocumentUrl: expect.stringMatching(/^http/),
    });
    // The second version adds deleting a pet; the text is the one stored, the content parsed.
    expect(newest.document).toMatch(/delete:/);
    expect(oldest.document).not.toMatch(/delete:/);
    expect(newest.document).toMatch(/^openapi: 3\.1/);
    expect(JSON.stringify(newest.content)).toContain(SPEC_TITLE);
    const again = await ok(
      `query ($id: ID!) { node(id: $id) { ... on OpenApiSpecVersion { platformId spec { slug } } } }`,
      { id: newest.id },
    );
    expect(again.node).toEqual({ platformId: newest.platformId, spec: { slug: SPEC } });
    // One request per version text (signed URLs, no token), the content read once per version.
    expect(result.upstreamRequests.filter((request) => request.startsWith('GET /openapi/'))).toHaveLength(2);
  });

  it('creates a specification from text: pending, then complete with a version; a parse failure keeps the last good one', async () => {
    const created = await ok(
      `mutation ($text: String!) {
      createOpenApiSpec(input: { organizationId: "${ORG}", slug: "inventory", source: { text: $text } }) { spec { slug processingState lastVersion { platformId } } userErrors { code } }
    }`,
      { text: spec('Inventory', [['/items', 'items']]) },
    );
    expect(created.createOpenApiSpec.spec).toEqual({
      slug: 'inventory',
      processingState: 'PENDING',
      lastVersion: null,
    });
    await g.platform.app.jobs.drain();
    const first = await readSpec('inventory');
    expect(first).toMatchObject({
      processingState: 'COMPLETE',
      lastProcessErrorCode: null,
      versions: { totalCount: 1 },
      sourceUrl: null,
    });

    const broken = await ok(
      `mutation { updateOpenApiSpec(input: { organizationId: "${ORG}", slug: "inventory", source: { text: "openapi: 3.1.0\\ninfo: {}\\npaths: 12\\n" } }) { created spec { processingState } userErrors { code } } }`,
    );
    expect(broken.updateOpenApiSpec.created).toBe(false);
    await g.platform.app.jobs.drain();
    const failed = await readSpec('inventory');
    expect(failed).toMatchObject({
      processingState: 'COMPLETE',
      lastProcessErrorCode: 'PARSE_ERROR',
      versions: { totalCount: 1 },
    });
    expect(failed.lastProcessedErrorCount).toBeGreaterThan(0);
    expect(failed.lastProcessedErrors[0].message).toEqual(expect.any(String));
    expect(failed.lastVersion.platformId).toBe(first.lastVersion.platformId);

    // Checked before any request: the slug and the one source.
    const bad = await g.gql<any>(
      `mutation { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "not a slug", source: { url: "ftp://example.com/x" } }) { userErrors { field } } }`,
    );
    expect(bad.upstream).toBe(0);
    expect(bad.data.createOpenApiSpec.userErrors.map((error: any) => error.field.join('.'))).toEqual([
      'slug',
      'source.url',
    ]);
    const taken = await g.gql<any>(
      `mutation ($text: String!) { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "inventory", source: { text: $text } }) { userErrors { code } } }`,
      { text: spec('Again', [['/x', 'x']]) },
    );
    expect(taken.data.createOpenApiSpec.userErrors).toEqual([{ code: 'CONFLICT' }]);
  });

  it('fetches a loopback URL: a version, none when unchanged, a new one on change, FETCH_TIMEOUT when it hangs', async () => {
    served['/api.yaml'] = { body: spec('Remote', [['/a', 'alpha']]) };
    const url = `${origin}/api.yaml`;
    const created = await ok(
      `mutation ($url: String!) { updateOpenApiSpec(input: { organizationId: "${ORG}", slug: "remote", source: { url: $url } }) { created spec { id sourceUrl } userErrors { code } } }`,
      { url },
    );
    expect(created.updateOpenApiSpec).toMatchObject({ created: true, spec: { sourceUrl: url } });
    const id = created.updateOpenApiSpec.spec.id;
    await g.platform.app.jobs.drain();
    expect(await readSpec('remote')).toMatchObject({
      processingState: 'COMPLETE',
      lastProcessErrorCode: null,
      versions: { totalCount: 1 },
    });

    // Checked again with the same document: no new version.
    await ok(
      `mutation ($id: ID!, $url: String!) { updateOpenApiSpec(input: { specId: $id, source: { url: $url } }) { created userErrors { code } } }`,
      { id, url },
    );
    await g.platform.app.jobs.drain();
    expect((await readSpec('remote')).versions.totalCount).toBe(1);

    // The document changes: the scheduled check finds it and makes a version.
    served['/api.yaml'] = {
      body: spec('Remote', [
        ['/a', 'alpha'],
        ['/b', 'beta'],
      ]),
    };
    expect(g.platform.app.openapiRefresher.checkDue(Date.now() + 7 * 3600_000)).toBeGreaterThanOrEqual(1);
    await g.platform.app.jobs.drain();
    const changed = await readSpec('remote');
    expect(changed.versions.totalCount).toBe(2);
    const text = await ok(`query ($id: ID!) { node(id: $id) { ... on OpenApiSpec { lastVersion { document } } } }`, {
      id,
    });
    expect(text.node.lastVersion.document).toContain('/b:');

    // A source that never answers fails with FETCH_TIMEOUT; the last version stays.
    served['/slow.yaml'] = { body: '', hang: true };
    await ok(
      `mutation ($id: ID!, $url: String!) { updateOpenApiSpec(input: { specId: $id, source: { url: $url } }) { created userErrors { code } } }`,
      { id, url: `${origin}/slow.yaml` },
    );
    await g.platform.app.jobs.drain();
    expect(await readSpec('remote')).toMatchObject({
      lastProcessErrorCode: 'FETCH_TIMEOUT',
      versions: { totalCount: 2 },
      lastVersion: { platformId: changed.lastVersion.platformId },
    });
  });

  it('never shows credentials of a URL source', async () => {
    served['/private.yaml'] = { body: spec('Private', [['/p', 'p']]) };
    const url = `http://reader:s3cret-pass@127.0.0.1:${new URL(origin).port}/private.yaml`;
    const result = await g.gql<any>(
      `mutation ($url: String!) { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "with-credentials", source: { url: $url } }) { spec { sourceUrl } userErrors { message } } }`,
      { url },
    );
    await g.platform.app.jobs.drain();
    const read = await g.gql<any>(
      `{ organization(id: "${ORG}") { openApiSpec(slug: "with-credentials") { sourceUrl lastProcessedErrors { message } } } }`,
    );
    expect(JSON.stringify([result, read])).not.toContain('s3cret-pass');
    expect(read.data.organization.openApiSpec.sourceUrl).toBe(`${origin}/private.yaml`);
  });

  it('changes visibility and deletes, for the create role only', async () => {
    const member = await g.gql<any>(
      `mutation { setOpenApiSpecVisibility(input: { organizationId: "${ORG}", slug: "inventory", visibility: PUBLIC }) { userErrors { code } } }`,
      {},
      { token: org.token('dee') },
    );
    expect(member.data.setOpenApiSpecVisibility.userErrors).toEqual([{ code: 'FORBIDDEN' }]);
    const made = await ok(
      `mutation { setOpenApiSpecVisibility(input: { organizationId: "${ORG}", slug: "inventory", visibility: PUBLIC }) { spec { visibility versions { nodes { publicUrl } } } userErrors { code } } }`,
    );
    expect(made.setOpenApiSpecVisibility.spec.visibility).toBe('PUBLIC');
    expect(made.setOpenApiSpecVisibility.spec.versions.nodes[0].publicUrl).toEqual(expect.stringMatching(/^http/));
    const deleted = await ok(
      `mutation { deleteOpenApiSpec(input: { organizationId: "${ORG}", slug: "inventory" }) { deleted userErrors { code } } }`,
    );
    expect(deleted.deleteOpenApiSpec.deleted).toBe(true);
    const again = await ok(
      `mutation { deleteOpenApiSpec(input: { organizationId: "${ORG}", slug: "inventory" }) { deleted userErrors { code } } }`,
    );
    expect(again.deleteOpenApiSpec.deleted).toBe(false);
    const gone = await g.gql<any>(`{ organization(id: "${ORG}") { openApiSpec(slug: "inventory") { id } } }`);
    expect(gone.data.organization.openApiSpec).toBeNull();
    expect(gone.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
  });
});

describe('URL sources outside demo and test runs (PLATFORM_ALLOW_PRIVATE_URLS off)', () => {
  let guarded: TestGateway;
  beforeAll(async () => {
    guarded = await startTestGateway({ seed: false, allowPrivateUrls: false });
    await northwind(guarded);
  });
  afterAll(async () => {
    await guarded?.destroy();
  });

  it('answers a userError on source.url for every private form, whether the gateway or the platform refuses it', async () => {
    const machine = await privateMachineName();
    const corpus = [
      ...PRIVATE_URLS,
      ...(machine ? [[`https://${machine}:8443/spec.yaml`, "the machine's own name", 'name'] as const] : []),
    ];
    const create = `mutation ($url: String!) { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "private-source", source: { url: $url } }) { spec { id } userErrors { code field message } } }`;
    const update = `mutation ($url: String!, $slug: String!) { updateOpenApiSpec(input: { organizationId: "${ORG}", slug: $slug, source: { url: $url } }) { spec { id } userErrors { code field message } } }`;
    for (const [url, form, guard] of corpus) {
      // Other schemes stop at the gateway's own check; the rest reach the platform once, which refuses them.
      const upstream = guard === 'scheme' ? 0 : 1;
      const message =
        guard === 'scheme'
          ? expect.any(String)
          : expect.stringMatching(/^Invalid input field "source\.url": must be on a public address \(/);
      const refused = { spec: null, userErrors: [{ code: 'BAD_USER_INPUT', field: ['source', 'url'], message }] };
      const created = await guarded.gql<any>(create, { url });
      expect([form, created.upstream, created.data?.createOpenApiSpec]).toEqual([form, upstream, refused]);
      for (const slug of ['private-source', SPEC]) {
        const updated = await guarded.gql<any>(update, { url, slug });
        expect([form, slug, updated.upstream, updated.data?.updateOpenApiSpec]).toEqual([
          form,
          slug,
          upstream,
          refused,
        ]);
      }
    }
    const listed = await guarded.gql<any>(
      `{ organization(id: "${ORG}") { openApiSpecs { nodes { slug sourceUrl } } } }`,
    );
    expect(listed.data.organization.openApiSpecs.nodes).toEqual([{ slug: SPEC, sourceUrl: null }]);
  });
});

describe('lookups', () => {
  it('reads a specification by slug, its real ids even when only they are asked', async () => {
    const keys = await ok(
      `{ organization(id: "${ORG}") { openApiSpec(slug: "${SPEC}") { id platformId lastVersion { id platformId } } } }`,
    );
    const full = await ok(`{ organization(id: "${ORG}") { openApiSpecs { nodes { id platformId slug } } } }`);
    const listed = full.organization.openApiSpecs.nodes.find((node: any) => node.slug === SPEC);
    expect(keys.organization.openApiSpec).toMatchObject({ id: listed.id, platformId: listed.platformId });
    const version = await ok(
      `query ($id: ID!) { node(id: $id) { ... on OpenApiSpecVersion { platformId spec { platformId } } } }`,
      { id: keys.organization.openApiSpec.lastVersion.id },
    );
    expect(version.node).toEqual({
      platformId: keys.organization.openApiSpec.lastVersion.platformId,
      spec: { platformId: listed.platformId },
    });
  });
});

describe('computed API references', () => {
  it('generates pages and documents from a specification, and they follow its new versions', async () => {
    await ok(
      `mutation ($text: String!) { createOpenApiSpec(input: { organizationId: "${ORG}", slug: "shop", source: { text: $text } }) { userErrors { code } } }`,
      {
        text: spec('Shop', [['/orders', 'orders']]),
      },
    );
    await g.platform.app.jobs.drain();
    const space = petstoreSpace;
    const query = `query ($space: ID!) { space(id: $space) {
      computedRevision(source: { openApi: { spec: "shop" } }, seed: "ref") { title children { title } document { json } }
      computedDocument(source: { openApi: { spec: "shop", doc: MODELS } }, seed: "models") { json }
    } }`;
    const before = (await ok(query, { space })).space;
    expect(before.computedRevision.map((page: any) => page.title)).toEqual(['orders', 'Models']);
    // One operation, by its path and method.
    const operation = await ok(
      `query ($space: ID!) { space(id: $space) { computedDocument(source: { openApi: { spec: "shop", doc: OPERATION, page: "/orders", method: GET } }, seed: "op") { json } } }`,
      { space },
    );
    expect(JSON.stringify(operation.space.computedDocument.json)).toMatch(
      /"path":"\/orders".*"method":"get"|"method":"get".*"path":"\/orders"/,
    );
    // Its operations as openapi-operation blocks naming the specification.
    expect(JSON.stringify(before.computedRevision[0].document.json)).toMatch(
      /openapi-operation.*\/orders|\/orders.*openapi-operation/,
    );

    await ok(
      `mutation ($text: String!) { updateOpenApiSpec(input: { organizationId: "${ORG}", slug: "shop", source: { text: $text } }) { userErrors { code } } }`,
      {
        text: spec('Shop', [
          ['/orders', 'orders'],
          ['/customers', 'customers'],
        ]),
      },
    );
    await g.platform.app.jobs.drain();
    const after = (await ok(query, { space })).space;
    expect(after.computedRevision.map((page: any) => page.title)).toEqual(['orders', 'customers', 'Models']);

    // A specification that does not exist fails the field alone, not the space.
    const missing = await g.gql<any>(
      `query ($space: ID!) { space(id: $space) { title computedRevision(source: { openApi: { spec: "no-such-spec" } }, seed: "s") { title } } }`,
      { space },
    );
    expect(missing.data.space).toEqual({ title: 'Petstore API', computedRevision: null });
    expect(missing.errors![0]!.extensions).toMatchObject({ code: 'NOT_FOUND' });
    const unknown = await g.gql<any>(
      `query ($space: ID!) { space(id: $space) { computedDocument(source: { openApi: { spec: "nope", doc: TAG } }, seed: "s") { json } } }`,
      { space },
    );
    // The space is read; the source, missing its page, is refused before the platform computes anything.
    expect(unknown.upstreamRequests).toEqual([`GET /v1/spaces/${space}`]);
    expect(unknown.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      field: ['source', 'openApi', 'page'],
    });
  });

  it('builds the api-reference template of a new space from a specification', async () => {
    const { createSpace } = await ok(
      `mutation { createSpace(input: { organizationId: "${ORG}", title: "Pet API docs" }) { space { id } userErrors { code } } }`,
    );
    const space = createSpace.space.id;
    await ok(
      `mutation ($space: ID!) { applySpaceTemplate(input: { spaceId: $space, templateId: "api-reference", openApiSpec: "${SPEC}" }) { space { id } userErrors { code } } }`,
      { space },
    );
    const content = await ok(
      `query ($space: ID!) { space(id: $space) { content { pages { title ... on DocumentPage { openApiSpec { slug } } } } } }`,
      { space },
    );
    const generated = content.space.content.pages.filter((page: any) => page.openApiSpec);
    expect(generated.map((page: any) => page.title)).toEqual(expect.arrayContaining(['Pets', 'Models']));
    const unknown = await g.gql<any>(
      `mutation ($space: ID!) { applySpaceTemplate(input: { spaceId: $space, templateId: "api-reference", openApiSpec: "no-such-spec" }) { userErrors { code field } } }`,
      { space },
    );
    expect(unknown.data.applySpaceTemplate.userErrors).toEqual([{ code: 'NOT_FOUND', field: ['openApiSpec'] }]);
    const unknownOnCreate = await g.gql<any>(
      `mutation ($space: ID!) { createChangeRequest(input: { spaceId: $space, templateId: "api-reference", openApiSpec: "no-such-spec" }) { userErrors { code field } } }`,
      { space },
    );
    expect(unknownOnCreate.data.createChangeRequest.userErrors).toEqual([
      { code: 'NOT_FOUND', field: ['openApiSpec'] },
    ]);
    const alone = await g.gql<any>(
      `mutation ($space: ID!) { createChangeRequest(input: { spaceId: $space, openApiSpec: "${SPEC}" }) { userErrors { code field } } }`,
      { space },
    );
    expect(alone.data.createChangeRequest.userErrors).toEqual([{ code: 'BAD_USER_INPUT', field: ['openApiSpec'] }]);
  });

  it('expands the computed page of a space into the reference of its specification', async () => {
    const space = petstoreSpace;
    const result = await ok(
      `query ($space: ID!) { space(id: $space) { content { pages { __typename title ... on DocumentPage { markdown computedSource openApiSpec { slug } } } } } }`,
      { space },
    );
    const titles = result.space.content.pages.map((page: any) => page.title);
    expect(titles).toEqual(expect.arrayContaining(['Overview', 'Pets', 'Models']));
    const pets = result.space.content.pages.find((page: any) => page.title === 'Pets');
    expect(pets.__typename).toBe('DocumentPage');
    expect(pets.openApiSpec).toEqual({ slug: SPEC });
    expect(pets.computedSource).toMatchObject({ type: 'builtin:openapi' });
    const overview = result.space.content.pages.find((page: any) => page.title === 'Overview');
    expect(overview).toMatchObject({ computedSource: null, openApiSpec: null });
    // The newest version's operation (deleting a pet) is in the generated reference.
    expect(pets.markdown.toLowerCase()).toContain('delete');
  });
});

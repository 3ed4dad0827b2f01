import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFontFile, minimalWoff2 } from '../../src/platform/fonts/woff.js';
import { createGateway } from '../../src/gateway/http/server.js';
import { expectOk, startTestGateway, type TestGateway } from '../fixtures/gateway.js';
import { addOrg, type TestOrg } from '../fixtures/org.js';

let g: TestGateway;
/** North: admin alice, bob (`create`), dana (`edit`); two fonts of two weights each. South: alice, no font. */
let north: TestOrg;

beforeAll(async () => {
  g = await startTestGateway({ seed: false });
  north = addOrg(g.platform, { id: 'north', members: { alice: 'admin', bob: 'create', dana: 'edit' } });
  addOrg(g.platform, { id: 'south', members: { alice: 'admin' }, users: { alice: north.user('alice') } });
  for (const family of ['North Sans', 'North Serif']) {
    const fontFaces = [];
    for (const weight of [400, 700]) {
      const bytes = minimalWoff2(family, weight);
      const file = { name: `${weight}.woff2`, type: 'font/woff2', size: bytes.length };
      const reserved = await g.platform.api('POST', '/orgs/north/storage/upload', {
        body: { file, kind: 'customization_font' },
      });
      const put = await fetch(reserved.body.url, {
        method: 'PUT',
        headers: { 'content-type': 'font/woff2' },
        body: new Uint8Array(bytes),
      });
      expect(put.status).toBe(200);
      fontFaces.push({ weight, storageKey: reserved.body.key });
    }
    const created = await g.platform.api('PUT', '/orgs/north/fonts', { body: { fontFamily: family, fontFaces } });
    expect(created.status).toBe(201);
  }
});
afterAll(() => g.destroy());

const ok = <T = any>(query: string, variables: Record<string, unknown> = {}, options: { token?: string } = {}) =>
  expectOk<T>(g, query, variables, options);

const UPLOAD = `mutation Upload($org: ID!, $kind: StorageUploadKind!, $file: Upload!) {
  uploadFile(input: { organizationId: $org, kind: $kind, file: $file }) { file { key name contentType size } userErrors { code message field } }
}`;

/** Sends `UPLOAD` as a GraphQL multipart request (operations, map, then the file part). */
async function multipart(
  bytes: Uint8Array,
  options: {
    name?: string;
    type?: string;
    org?: string;
    kind?: string;
    token?: string;
    fetch?: typeof g.gateway.fetch;
  } = {},
) {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      query: UPLOAD,
      variables: { org: options.org ?? 'south', kind: options.kind ?? 'CUSTOMIZATION_FONT', file: null },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append(
    '0',
    new Blob([new Uint8Array(bytes)], { type: options.type ?? 'font/woff2' }),
    options.name ?? 'font.woff2',
  );
  g.platform.app.stats.reset();
  const response = await (options.fetch ?? g.gateway.fetch)('http://gateway.test/graphql', {
    method: 'POST',
    headers: { authorization: `Bearer ${options.token ?? g.platform.adminToken}`, 'apollo-require-preflight': 'true' },
    body: form,
  });
  return {
    status: response.status,
    body: (await response.json()) as any,
    upstream: [...g.platform.app.stats.requests],
  };
}

async function uploadKey(bytes: Uint8Array, options: Parameters<typeof multipart>[1] = {}): Promise<string> {
  const { body } = await multipart(bytes, options);
  expect(body.errors).toBeUndefined();
  expect(body.data.uploadFile.userErrors).toEqual([]);
  return body.data.uploadFile.file.key;
}

describe('custom fonts', () => {
  it('lists the fonts of an organization with their files, in one request', async () => {
    const result = await g.gql<any>(
      `{ organization(id: "north") { fonts { totalCount nodes { id fontFamily weights canEdit fontFaces { weight sources { url format } } organization { platformId } } } } }`,
    );
    expect(result.errors).toBeUndefined();
    const { fonts } = result.data.organization;
    expect(fonts.totalCount).toBe(2);
    expect(fonts.nodes.map((font: any) => [font.fontFamily, font.weights, font.canEdit])).toEqual([
      ['North Sans', [400, 700], true],
      ['North Serif', [400, 700], true],
    ]);
    expect(result.upstreamRequests.sort()).toEqual(['GET /v1/orgs/north', 'GET /v1/orgs/north/fonts?limit=50'].sort());
    const regular = fonts.nodes[0].fontFaces[0].sources[0];
    expect(regular.format).toBe('WOFF2');
    const file = await fetch(regular.url);
    expect(file.headers.get('content-type')).toBe('font/woff2');
    expect(checkFontFile(new Uint8Array(await file.arrayBuffer()))).toBe('woff2');
    // Members read them, but only admins may change them.
    const member = await ok(
      `{ node(id: "${fonts.nodes[1].id}") { ... on CustomFont { fontFamily canEdit } } }`,
      {},
      { token: north.token('bob') },
    );
    expect(member.node).toEqual({ fontFamily: 'North Serif', canEdit: false });
  });

  it('uploads WOFF2 files as multipart requests, then creates, changes and deletes a font', async () => {
    const upload = await multipart(minimalWoff2('Studio', 400), { name: 'studio-400.woff2' });
    expect(upload.status).toBe(200);
    expect(upload.body.data.uploadFile.file).toMatchObject({
      name: 'studio-400.woff2',
      contentType: 'font/woff2',
      size: minimalWoff2('Studio', 400).length,
    });
    // One request for the upload URL, one for the bytes (outside the API, with no token).
    expect(upload.upstream).toEqual([
      'POST /v1/orgs/south/storage/upload',
      expect.stringMatching(/^PUT \/storage\/upload\?key=/),
    ]);
    const regular = upload.body.data.uploadFile.file.key;
    const bold = await uploadKey(minimalWoff2('Studio', 700), { name: 'studio-700.woff2' });

    const created = await ok(
      `mutation($regular: String!, $bold: String!) {
      createCustomFont(input: { organizationId: "south", fontFamily: "Studio", fontFaces: [{ weight: 400, storageKey: $regular }, { weight: 700, storageKey: $bold }] }) {
        font { id platformId fontFamily weights fontFaces { sources { url } } } userErrors { code }
      }
    }`,
      { regular, bold },
    );
    const font = created.createCustomFont.font;
    expect(font).toMatchObject({ fontFamily: 'Studio', weights: [400, 700] });
    const served = await fetch(font.fontFaces[1].sources[0].url);
    expect(Buffer.from(await served.arrayBuffer()).equals(minimalWoff2('Studio', 700))).toBe(true);

    // Without the regular weight: PRECONDITION_FAILED, and the font stays as it was.
    const removeRegular = await g.gql<any>(
      `mutation($id: ID!) { updateCustomFont(input: { fontId: $id, fontFamily: "Renamed", fontFaces: [{ weight: 400, storageKey: null }] }) { font { id } userErrors { code message upstreamStatus } } }`,
      { id: font.id },
    );
    expect(removeRegular.data.updateCustomFont).toEqual({
      font: null,
      userErrors: [{ code: 'PRECONDITION_FAILED', message: expect.stringMatching(/400/), upstreamStatus: 412 }],
    });
    const removeBold = await ok(
      `mutation($org: ID!, $id: ID!) { updateCustomFont(input: { organizationId: $org, fontId: $id, fontFaces: [{ weight: 700, storageKey: null }] }) { font { fontFamily weights } userErrors { code } } }`,
      { org: 'south', id: font.platformId },
    );
    expect(removeBold.updateCustomFont.font).toEqual({ fontFamily: 'Studio', weights: [400] });

    const deleted = await ok(
      `mutation($id: ID!) { deleteCustomFont(input: { fontId: $id }) { deleted userErrors { code } } }`,
      { id: font.id },
    );
    expect(deleted.deleteCustomFont.deleted).toBe(true);
    const again = await ok(
      `mutation($id: ID!) { deleteCustomFont(input: { fontId: $id }) { deleted userErrors { code } } }`,
      { id: font.id },
    );
    expect(again.deleteCustomFont.deleted).toBe(false);
  });

  it('answers what is wrong as user errors naming the field', async () => {
    const bold = await uploadKey(minimalWoff2('Bold', 700));
    const noRegular = await g.gql<any>(
      `mutation($key: String!) { createCustomFont(input: { organizationId: "south", fontFamily: "Bold only", fontFaces: [{ weight: 700, storageKey: $key }] }) { font { id } userErrors { code field } } }`,
      { key: bold },
    );
    expect(noRegular.data.createCustomFont.userErrors).toEqual([{ code: 'PRECONDITION_FAILED', field: null }]);

    const page = await uploadKey(new TextEncoder().encode('<html>this is a web page, not a font file at all</html>'), {
      name: 'page.woff2',
    });
    const notFont = await g.gql<any>(
      `mutation($key: String!) { createCustomFont(input: { organizationId: "south", fontFamily: "Page", fontFaces: [{ weight: 400, storageKey: $key }] }) { font { id } userErrors { code field message } } }`,
      { key: page },
    );
    expect(notFont.data.createCustomFont.userErrors).toEqual([
      {
        code: 'BAD_USER_INPUT',
        field: ['fontFaces', '0', 'storageKey'],
        message: expect.stringMatching(/not a WOFF or WOFF2 font/),
      },
    ]);

    // Checked before any request: weights, duplicates, the family.
    const checked = await g.gql<any>(
      `mutation { createCustomFont(input: { organizationId: "south", fontFamily: "", fontFaces: [{ weight: 0, storageKey: "k" }, { weight: 0, storageKey: "k" }] }) { userErrors { field } } }`,
    );
    expect(checked.upstream).toBe(0);
    expect(checked.data.createCustomFont.userErrors.map((error: any) => error.field.join('.'))).toEqual([
      'fontFamily',
      'fontFaces.0.weight',
      'fontFaces.1.weight',
      'fontFaces',
    ]);
    const nothing = await g.gql<any>(
      `mutation { updateCustomFont(input: { organizationId: "south", fontId: "x" }) { userErrors { field message } } }`,
    );
    expect(nothing.data.updateCustomFont.userErrors).toEqual([
      { field: ['fontFamily'], message: 'Give fontFamily or fontFaces to change' },
    ]);
  });

  it('refuses uploads that are not multipart files, and font uploads by non-admins', async () => {
    const asJson = await g.gql<any>(UPLOAD, { org: 'south', kind: 'CUSTOMIZATION_FONT', file: 'not a file' });
    expect(asJson.upstream).toBe(0);
    expect(asJson.data.uploadFile.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['file'], message: expect.stringMatching(/multipart upload/) },
    ]);
    const member = await multipart(minimalWoff2('No', 400), { org: 'north', token: north.token('bob') });
    expect(member.body.data.uploadFile).toEqual({
      file: null,
      userErrors: [{ code: 'FORBIDDEN', field: null, message: expect.any(String) }],
    });
    // An empty file is refused before any request.
    const empty = await multipart(new Uint8Array(0), { name: 'empty.woff2' });
    expect(empty.upstream).toEqual([]);
    expect(empty.body.data.uploadFile.userErrors).toEqual([
      { code: 'BAD_USER_INPUT', field: ['file'], message: expect.stringMatching(/1 to/) },
    ]);
    // An editor may store other files.
    const other = await multipart(new TextEncoder().encode('notes'), {
      org: 'north',
      kind: 'ORGANIZATION_FILE',
      name: 'notes.txt',
      type: 'text/plain',
      token: north.token('dana'),
    });
    expect(other.body.data.uploadFile.file).toMatchObject({ name: 'notes.txt', contentType: 'text/plain', size: 5 });
  });

  it('answers 413 to a multipart request over MAX_UPLOAD_BYTES', async () => {
    const small = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      limits: { maxUploadBytes: 4096 },
    });
    try {
      const fine = await multipart(minimalWoff2('Fits', 400), { fetch: small.fetch });
      expect(fine.body.data.uploadFile.userErrors).toEqual([]);
      const tooBig = await multipart(new Uint8Array(8192), { fetch: small.fetch });
      expect(tooBig.status).toBe(413);
      expect(tooBig.body.errors[0].extensions).toMatchObject({
        code: 'BAD_USER_INPUT',
        reason: 'PAYLOAD_TOO_LARGE',
        limit: 4096,
      });
    } finally {
      await small.close();
    }
  });

  it('bounds the operation of a multipart request by MAX_REQUEST_BYTES, files aside', async () => {
    const small = createGateway({
      upstreamUrl: g.platform.url,
      graphiql: { enabled: false },
      limits: { maxRequestBytes: 2048 },
    });
    try {
      const form = new FormData();
      const variables = { org: 'south', kind: 'CUSTOMIZATION_FONT', file: null, padding: 'x'.repeat(4000) };
      form.append('operations', JSON.stringify({ query: UPLOAD, variables }));
      form.append('map', JSON.stringify({ 0: ['variables.file'] }));
      form.append('0', new Blob([new Uint8Array(minimalWoff2('Big', 400))], { type: 'font/woff2' }), 'big.woff2');
      const response = await small.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${g.platform.adminToken}`, 'apollo-require-preflight': 'true' },
        body: form,
      });
      expect(response.status).toBe(413);
      expect(((await response.json()) as any).errors[0].message).toMatch(/everything but its files/);
      // The same file with a small operation passes: the file does not count.
      const fine = await multipart(new Uint8Array(minimalWoff2('Big', 400)), { fetch: small.fetch });
      expect(fine.body.data.uploadFile.userErrors).toEqual([]);
    } finally {
      await small.close();
    }
  });
});

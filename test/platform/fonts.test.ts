import { deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkFontFile,
  FontFileError,
  MAX_FONT_EXPANSION,
  MAX_FONT_TABLE_BYTES,
  minimalWoff2,
} from '../../src/platform/fonts/woff.js';
import { BOMB_BYTES, woff1Bomb, woff2Bomb } from '../fixtures/hostile-corpus.js';
import { addOrg, addUser, type TestOrg, type TestUser } from '../fixtures/org.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';

const NORTH = 'north';
const SOUTH = 'south';

let p: TestPlatform;
/** North: admin alice, bob (`create`), with two fonts of two weights each. South: alice, no font. */
let north: TestOrg;
/** A member of no organization. */
let ivy: TestUser;

beforeAll(async () => {
  p = await startTestPlatform({ seed: false });
  north = addOrg(p, { id: NORTH, members: { alice: 'admin', bob: 'create' } });
  addOrg(p, { id: SOUTH, members: { alice: 'admin' }, users: { alice: north.user('alice') } });
  ivy = addUser(p, 'ivy');
  for (const family of ['North Sans', 'North Serif']) {
    const fontFaces = [];
    for (const weight of [400, 700]) {
      fontFaces.push({ weight, storageKey: await upload(minimalWoff2(family, weight), { org: NORTH }) });
    }
    expect((await p.api('PUT', `/orgs/${NORTH}/fonts`, { body: { fontFamily: family, fontFaces } })).status).toBe(201);
  }
});

afterAll(async () => {
  await p?.destroy();
});

/** A WOFF 1.0 file with one deflated table, written by hand from the format's layout. */
function woff1(): Buffer {
  const table = Buffer.alloc(64, 7);
  const compressed = deflateSync(table);
  const header = Buffer.alloc(44 + 20);
  const length = header.length + compressed.length;
  header.write('wOFF', 0, 'latin1');
  header.writeUInt32BE(0x00010000, 4);
  header.writeUInt32BE(length, 8);
  header.writeUInt16BE(1, 12);
  header.writeUInt32BE(12 + 16 + 64, 16);
  header.write('name', 44, 'latin1');
  header.writeUInt32BE(64, 48);
  header.writeUInt32BE(compressed.length, 52);
  header.writeUInt32BE(64, 56);
  return Buffer.concat([header, compressed]);
}

/** Asks for an upload URL and sends `bytes` to it; answers the storage key. */
async function upload(
  bytes: Buffer,
  options: { org?: string; name?: string; type?: string; token?: string } = {},
): Promise<string> {
  const reserved = await p.api('POST', `/orgs/${options.org ?? SOUTH}/storage/upload`, {
    token: options.token,
    body: {
      file: { name: options.name ?? 'font.woff2', type: options.type ?? 'font/woff2', size: bytes.length },
      kind: 'customization_font',
    },
  });
  expect(reserved.status, JSON.stringify(reserved.body)).toBe(201);
  const put = await fetch(reserved.body.url, {
    method: 'PUT',
    headers: { 'content-type': options.type ?? 'font/woff2' },
    body: new Uint8Array(bytes),
  });
  expect(put.status, await put.clone().text()).toBe(200);
  return reserved.body.key;
}

describe('font files', () => {
  it('accepts the generated WOFF2 and a WOFF file, and names what is wrong with anything else', () => {
    expect(checkFontFile(minimalWoff2('Test', 400))).toBe('woff2');
    expect(checkFontFile(woff1())).toBe('woff');
    const fail = (bytes: Buffer) => {
      try {
        checkFontFile(bytes);
      } catch (error) {
        expect(error).toBeInstanceOf(FontFileError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(fail(Buffer.from('%PDF-1.7 this is not a font at all, not even close to one'))).toMatch(/signature/);
    const truncated = minimalWoff2('Test', 400).subarray(0, 80);
    expect(fail(truncated)).toMatch(/bytes long/);
    // The right header and length, but the Brotli stream garbled.
    const garbled = Buffer.from(minimalWoff2('Test', 400));
    garbled.fill(0x55, garbled.length - 40, garbled.length - 8);
    expect(fail(garbled)).toMatch(/decompress|tables of/);
    const badTable = woff1();
    badTable.fill(0, 64, 70);
    expect(fail(badTable)).toMatch(/inflate/);
  });
});

describe('decompression bombs', () => {
  it('refuses fonts that inflate past their budgets before decompressing more than they declare', async () => {
    const refusal = async (bytes: Buffer, name: string) => {
      const key = await upload(bytes, { name, type: name.endsWith('.woff') ? 'font/woff' : 'font/woff2' });
      const answer = await p.api('PUT', `/orgs/${SOUTH}/fonts`, {
        body: { fontFamily: 'Bomb', fontFaces: [{ weight: 400, storageKey: key }] },
      });
      expect(answer.status).toBe(400);
      return answer.body.error.message as string;
    };
    // Declaring the whole 64 MiB: over the bytes a font may have, refused before inflating.
    for (const [bytes, name] of [
      [woff2Bomb(BOMB_BYTES), 'true.woff2'],
      [woff1Bomb(BOMB_BYTES), 'true.woff'],
    ] as const) {
      expect(await refusal(bytes, name)).toBe(
        `Invalid body field "fontFaces.0.storageKey": the file declares ${BOMB_BYTES} bytes of tables, more than a font may have (limit "font table bytes": ${BOMB_BYTES}, at most ${MAX_FONT_TABLE_BYTES})`,
      );
    }
    // Declaring 16 MiB, under that budget, for a few kilobytes: over the expansion a font may have.
    const woff2 = woff2Bomb(16 * 1024 * 1024);
    const compressed = woff2.length - 48 - 5;
    expect(await refusal(woff2, 'ratio.woff2')).toBe(
      `Invalid body field "fontFaces.0.storageKey": the file declares ${16 * 1024 * 1024} bytes of tables for ${compressed} compressed, more than ${MAX_FONT_EXPANSION} times as many (limit "font expansion": ${16 * 1024 * 1024}, at most ${1024 * 1024})`,
    );
    // Declaring little (WOFF 1.0: no less than the compressed table): decompression stops past it.
    expect(await refusal(woff2Bomb(100), 'lie.woff2')).toBe(
      'Invalid body field "fontFaces.0.storageKey": the file has compressed tables larger than the 100 bytes declared once decompressed',
    );
    expect(await refusal(woff1Bomb(200_000), 'lie.woff')).toBe(
      'Invalid body field "fontFaces.0.storageKey": the file has a table "name" larger than the 200000 bytes declared once decompressed',
    );
    expect(
      (await p.api('GET', `/orgs/${SOUTH}/fonts`)).body.items.map((font: { fontFamily: string }) => font.fontFamily),
    ).not.toContain('Bomb');
  });
});

describe('storage uploads', () => {
  it('takes the announced bytes once, with the signed URL only', async () => {
    const bytes = minimalWoff2('Once', 400);
    const reserved = await p.api('POST', `/orgs/${SOUTH}/storage/upload`, {
      body: { file: { name: 'once.woff2', type: 'font/woff2', size: bytes.length }, kind: 'customization_font' },
    });
    expect(reserved.body).toMatchObject({ object: 'storage-signed-url', key: expect.stringContaining('once.woff2') });
    const url = new URL(reserved.body.url);
    // No API token is needed, but the signature must hold.
    url.searchParams.set('key', `${reserved.body.key}x`);
    expect((await fetch(url, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(403);
    // More bytes than announced: refused by their length, before they are read.
    const tooMany = await fetch(reserved.body.url, {
      method: 'PUT',
      body: new Uint8Array(Buffer.concat([bytes, bytes])),
    });
    expect(tooMany.status).toBe(413);
    expect((await tooMany.json()).error).toMatchObject({
      limit: 'uploadBytes',
      value: 2 * bytes.length,
      max: bytes.length,
    });
    expect((await fetch(reserved.body.url, { method: 'PUT', body: new Uint8Array(bytes) })).status).toBe(200);
    const again = await fetch(reserved.body.url, { method: 'PUT', body: new Uint8Array(bytes) });
    expect(again.status).toBe(409);
    expect(await again.json()).toEqual({ error: { code: 409, message: 'This file was already uploaded' } });
  });

  it('is for members with the right role, and checks what it is told', async () => {
    const file = { name: 'a.woff2', type: 'font/woff2', size: 100 };
    expect(
      (
        await p.api('POST', `/orgs/${NORTH}/storage/upload`, {
          token: north.token('bob'),
          body: { file, kind: 'customization_font' },
        })
      ).status,
    ).toBe(403);
    const tooBig = await p.api('POST', `/orgs/${NORTH}/storage/upload`, {
      body: { file: { ...file, size: 11 * 1024 * 1024 }, kind: 'customization_font' },
    });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.message).toMatch(/file\.size/);
    const kind = await p.api('POST', `/orgs/${NORTH}/storage/upload`, { body: { file, kind: 'video' } });
    expect(kind.body.error.message).toMatch(/kind/);
  });
});

describe('custom fonts', () => {
  it('serves the fonts as real WOFF2 files, with CORS, to every member', async () => {
    const list = await p.api('GET', `/orgs/${NORTH}/fonts`, { token: north.token('bob') });
    expect(list.status).toBe(200);
    expect(list.body.items.map((font: { fontFamily: string }) => font.fontFamily)).toEqual([
      'North Sans',
      'North Serif',
    ]);
    const [sans] = list.body.items;
    expect(sans.permissions).toEqual({ edit: false });
    expect(sans.fontFaces.map((face: { weight: number }) => face.weight)).toEqual([400, 700]);
    const source = sans.fontFaces[1].sources[0];
    expect(source.format).toBe('woff2');
    const file = await fetch(source.url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('font/woff2');
    expect(file.headers.get('access-control-allow-origin')).toBe('*');
    const bytes = Buffer.from(await file.arrayBuffer());
    expect(checkFontFile(bytes)).toBe('woff2');
    // The bold face says it is bold (OS/2 usWeightClass), the file is the one uploaded.
    expect(bytes.equals(minimalWoff2('North Sans', 700))).toBe(true);
  });

  it('creates a font from uploaded WOFF and WOFF2 files, changes and removes weights, and keeps the regular one', async () => {
    const regular = await upload(minimalWoff2('Brand', 400));
    const bold = await upload(woff1(), { name: 'brand-700.woff', type: 'font/woff' });
    const created = await p.api('PUT', `/orgs/${SOUTH}/fonts`, {
      body: {
        fontFamily: 'Brand',
        fontFaces: [
          { weight: 400, storageKey: regular },
          { weight: 700, storageKey: bold },
        ],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ custom: true, fontFamily: 'Brand', permissions: { edit: true } });
    expect(
      created.body.fontFaces.map((face: { sources: Array<{ format: string }> }) => face.sources[0]!.format),
    ).toEqual(['woff2', 'woff']);
    const woff = await fetch(created.body.fontFaces[1].sources[0].url);
    expect(woff.headers.get('content-type')).toBe('font/woff');

    const id = created.body.id;
    // Removing the regular weight would leave a font without it: 412, and nothing changes.
    const without = await p.api('POST', `/orgs/${SOUTH}/fonts/${id}`, {
      body: { fontFamily: 'Renamed', fontFaces: [{ weight: 400, storageKey: null }] },
    });
    expect(without.status).toBe(412);
    expect(without.body.error.message).toMatch(/400/);
    const unchanged = await p.api('GET', `/orgs/${SOUTH}/fonts/${id}`);
    expect(unchanged.body.fontFamily).toBe('Brand');
    expect(unchanged.body.fontFaces).toHaveLength(2);

    const removed = await p.api('POST', `/orgs/${SOUTH}/fonts/${id}`, {
      body: { fontFaces: [{ weight: 700, storageKey: null }] },
    });
    expect(removed.status).toBe(201);
    expect(removed.body.fontFaces.map((face: { weight: number }) => face.weight)).toEqual([400]);
  });

  it('refuses files that are not fonts, keys of another organization, and bad families and weights', async () => {
    const notFont = await upload(Buffer.from('<html>not a font but announced as one, long enough</html>'), {
      name: 'evil.woff2',
    });
    const refused = await p.api('PUT', `/orgs/${SOUTH}/fonts`, {
      body: { fontFamily: 'Evil', fontFaces: [{ weight: 400, storageKey: notFont }] },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/fontFaces\.0\.storageKey.*not a WOFF or WOFF2 font/);

    const northKey = await upload(minimalWoff2('Acme', 400), { org: NORTH });
    const foreign = await p.api('PUT', `/orgs/${SOUTH}/fonts`, {
      body: { fontFamily: 'Foreign', fontFaces: [{ weight: 400, storageKey: northKey }] },
    });
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.message).toMatch(/no file/);

    const key = await upload(minimalWoff2('Ok', 400));
    const cases: Array<[unknown, RegExp]> = [
      [{ fontFamily: '', fontFaces: [{ weight: 400, storageKey: key }] }, /fontFamily/],
      [{ fontFamily: 'x'.repeat(51), fontFaces: [{ weight: 400, storageKey: key }] }, /fontFamily/],
      [{ fontFamily: 'Ok', fontFaces: [{ weight: 1001, storageKey: key }] }, /weight/],
      [{ fontFamily: 'Ok', fontFaces: [] }, /fontFaces/],
      [
        {
          fontFamily: 'Ok',
          fontFaces: [
            { weight: 400, storageKey: key },
            { weight: 400, storageKey: key },
          ],
        },
        /each weight once/,
      ],
    ];
    for (const [body, message] of cases) {
      const answer = await p.api('PUT', `/orgs/${SOUTH}/fonts`, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toMatch(message);
    }
  });

  it('is written by admins only, and deleted once', async () => {
    const key = await upload(minimalWoff2('Temp', 400), { org: NORTH });
    expect(
      (
        await p.api('PUT', `/orgs/${NORTH}/fonts`, {
          token: north.token('bob'),
          body: { fontFamily: 'Temp', fontFaces: [{ weight: 400, storageKey: key }] },
        })
      ).status,
    ).toBe(403);
    const created = await p.api('PUT', `/orgs/${NORTH}/fonts`, {
      body: { fontFamily: 'Temp', fontFaces: [{ weight: 400, storageKey: key }] },
    });
    expect(
      (await p.api('DELETE', `/orgs/${NORTH}/fonts/${created.body.id}`, { token: north.token('bob') })).status,
    ).toBe(403);
    expect((await p.api('DELETE', `/orgs/${NORTH}/fonts/${created.body.id}`)).status).toBe(205);
    expect((await p.api('GET', `/orgs/${NORTH}/fonts/${created.body.id}`)).status).toBe(404);
    expect((await p.api('GET', `/orgs/${NORTH}/fonts/${created.body.id}`, { token: ivy.token })).status).toBe(404);
  });
});

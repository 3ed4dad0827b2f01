import { ApiError, badRequest, newId, notFound, now, overLimit, preconditionFailed } from '../http.js';
import { getBlob, putBlob } from '../content/blobs.js';
import { sign, verify } from '../content/signing.js';
import type { Db } from '../store/db.js';
import { checkFontFile, FontFileError, minimalWoff2, type FontFormat } from './woff.js';
import { STORAGE_KINDS } from '../contract/enums.js';

/**
 * Storage uploads and custom fonts. A client asks for an upload URL (a signed, short-lived URL
 * of the platform), sends the bytes to it, and names the file by its key afterwards; a custom
 * font's faces name such files, which must be real WOFF or WOFF2 fonts.
 */

export { STORAGE_KINDS };
/** Largest file an upload URL takes. */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** How long an upload URL works. */
const UPLOAD_SECONDS = 60 * 60;

export interface StorageFileRow {
  key: string;
  org_id: string;
  kind: string;
  name: string;
  content_type: string;
  size: number;
  hash: string | null;
  created_at: string;
  uploaded_at: string | null;
}

/** Reserves a key for a file to upload; answers the key and the URL to `PUT` the bytes to. */
export function reserveUpload(
  db: Db,
  orgId: string,
  origin: string,
  file: { name: string; type: string; size: number; kind: string },
) {
  const key = `${orgId}/${file.kind}/${newId()}/${file.name.replace(/[^\w.-]+/g, '_').slice(0, 200)}`;
  db.prepare(
    'INSERT INTO storage_files (key, org_id, kind, name, content_type, size, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
  ).run(key, orgId, file.kind, file.name, file.type, file.size, now());
  const expires = String(Math.floor(Date.now() / 1000) + UPLOAD_SECONDS);
  const query = new URLSearchParams({ key, expires, sig: sign(db, ['upload', key, expires]) });
  return { object: 'storage-signed-url' as const, url: `${origin}/storage/upload?${query.toString()}`, key };
}

/** Stores the bytes sent to an upload URL; a message for what is wrong, or undefined when stored. */
type UploadQuery = { key?: string; expires?: string; sig?: string };

/** The announced file a signed upload URL names, still waiting for its bytes; an `ApiError` otherwise. */
function uploadTarget(db: Db, query: UploadQuery): StorageFileRow {
  if (!query.key || !query.expires || !verify(db, ['upload', query.key, query.expires], query.sig)) {
    throw new ApiError(403, 'This upload URL is not valid: ask the API for another one');
  }
  if (Number(query.expires) * 1000 < Date.now())
    throw new ApiError(403, 'This upload URL has expired: ask the API for another one');
  const row = db.prepare('SELECT * FROM storage_files WHERE key = ?').get(query.key) as StorageFileRow | undefined;
  if (!row) throw notFound('Upload');
  if (row.hash) throw new ApiError(409, 'This file was already uploaded');
  return row;
}

/** Refuses an upload of `bytes` bytes to `row`: 400 when empty, 413 (`uploadBytes`) past its announced size. */
function checkUploadSize(row: StorageFileRow, bytes: number): void {
  const max = Math.min(row.size, MAX_UPLOAD_BYTES);
  if (bytes === 0) throw badRequest(`The upload must be 1 to ${max} bytes, as announced; it is empty`);
  if (bytes > max)
    throw overLimit(`The upload must be 1 to ${max} bytes, as announced; it has ${bytes}`, {
      limit: 'uploadBytes',
      value: bytes,
      max,
    });
}

/**
 * Checks an upload before its body is read, by its `content-length`: a body larger than the
 * file announced is refused without being received.
 */
export function checkUploadAnnounced(db: Db, query: UploadQuery, contentLength: number | undefined): void {
  const row = uploadTarget(db, query);
  if (contentLength !== undefined && contentLength > 0) checkUploadSize(row, contentLength);
}

/** Stores the bytes of an announced upload, once. */
export function receiveUpload(db: Db, query: UploadQuery, bytes: Buffer): void {
  const row = uploadTarget(db, query);
  checkUploadSize(row, bytes.length);
  db.prepare('UPDATE storage_files SET hash = ?, size = ?, uploaded_at = ? WHERE key = ?').run(
    putBlob(db, bytes),
    bytes.length,
    now(),
    row.key,
  );
}

/** Stores bytes as an uploaded file directly (demo data). */
export function storeUploaded(
  db: Db,
  orgId: string,
  kind: string,
  name: string,
  contentType: string,
  bytes: Buffer,
): string {
  const key = `${orgId}/${kind}/${newId()}/${name}`;
  db.prepare(
    'INSERT INTO storage_files (key, org_id, kind, name, content_type, size, hash, created_at, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  ).run(key, orgId, kind, name, contentType, bytes.length, putBlob(db, bytes), now(), now());
  return key;
}

// --- Custom fonts -------------------------------------------------------------------------------

export interface FontRow {
  id: string;
  org_id: string;
  font_family: string;
  created_at: string;
  updated_at: string;
}

export interface FaceRow {
  font_id: string;
  weight: number;
  storage_key: string;
  format: FontFormat;
}

export function requireFont(db: Db, orgId: string, id: string): FontRow {
  const row = db.prepare('SELECT * FROM custom_fonts WHERE id = ? AND org_id = ?').get(id, orgId) as
    | FontRow
    | undefined;
  if (!row) throw notFound('Font');
  return row;
}

export function fontsOf(db: Db, orgId: string): FontRow[] {
  return db.prepare('SELECT * FROM custom_fonts WHERE org_id = ? ORDER BY created_at, id').all(orgId) as FontRow[];
}

/** The format of an uploaded font file of the organization, or a 400 naming `field`. */
function requireFontFile(db: Db, orgId: string, key: string, field: string): FontFormat {
  const row = db.prepare('SELECT * FROM storage_files WHERE key = ? AND org_id = ?').get(key, orgId) as
    | StorageFileRow
    | undefined;
  if (!row) throw badRequest(`Invalid body field "${field}": no file ${key} in the organization's storage`);
  const bytes = row.hash ? getBlob(db, row.hash) : undefined;
  if (!bytes) throw badRequest(`Invalid body field "${field}": the file ${key} was never uploaded`);
  try {
    return checkFontFile(bytes);
  } catch (error) {
    if (error instanceof FontFileError) throw badRequest(`Invalid body field "${field}": the file ${error.message}`);
    throw error;
  }
}

/**
 * Writes a font's faces: each weight names an uploaded WOFF or WOFF2 file, or `null` to remove
 * that weight; the result must keep the regular weight (400), or nothing is written (412).
 */
function writeFaces(
  db: Db,
  orgId: string,
  fontId: string,
  faces: ReadonlyArray<{ weight: number; storageKey: string | null }>,
): void {
  const formats = faces.map((face, index) =>
    face.storageKey === null ? null : requireFontFile(db, orgId, face.storageKey, `fontFaces.${index}.storageKey`),
  );
  faces.forEach((face, index) => {
    if (face.storageKey === null)
      db.prepare('DELETE FROM font_faces WHERE font_id = ? AND weight = ?').run(fontId, face.weight);
    else {
      db.prepare(
        'INSERT INTO font_faces (font_id, weight, storage_key, format) VALUES (?, ?, ?, ?) ON CONFLICT (font_id, weight) DO UPDATE SET storage_key = excluded.storage_key, format = excluded.format',
      ).run(fontId, face.weight, face.storageKey, formats[index]);
    }
  });
  if (!db.prepare('SELECT 1 FROM font_faces WHERE font_id = ? AND weight = 400').get(fontId)) {
    throw preconditionFailed('A font needs its regular weight (400): give a font face of weight 400');
  }
}

export function createFont(
  db: Db,
  orgId: string,
  fontFamily: string,
  faces: ReadonlyArray<{ weight: number; storageKey: string }>,
): FontRow {
  return db.transaction(() => {
    const id = newId();
    const at = now();
    db.prepare('INSERT INTO custom_fonts (id, org_id, font_family, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      orgId,
      fontFamily,
      at,
      at,
    );
    writeFaces(db, orgId, id, faces);
    return requireFont(db, orgId, id);
  })();
}

export function updateFont(
  db: Db,
  font: FontRow,
  changes: { fontFamily?: string; fontFaces?: ReadonlyArray<{ weight: number; storageKey: string | null }> },
): FontRow {
  return db.transaction(() => {
    if (changes.fontFamily !== undefined)
      db.prepare('UPDATE custom_fonts SET font_family = ? WHERE id = ?').run(changes.fontFamily, font.id);
    if (changes.fontFaces) writeFaces(db, font.org_id, font.id, changes.fontFaces);
    db.prepare('UPDATE custom_fonts SET updated_at = ? WHERE id = ?').run(now(), font.id);
    return requireFont(db, font.org_id, font.id);
  })();
}

export function deleteFont(db: Db, orgId: string, id: string): boolean {
  return db.prepare('DELETE FROM custom_fonts WHERE id = ? AND org_id = ?').run(id, orgId).changes > 0;
}

/**
 * Stores the demo's fonts of an organization (`demo-content/fonts.json`), each family a minute after the one
 * before, with a generated WOFF2 file per weight.
 */
export function seedDemoFonts(
  db: Db,
  orgId: string,
  families: ReadonlyArray<{ family: string; weights: readonly number[] }>,
  createdAt: string,
): void {
  families.forEach(({ family, weights }, index) => {
    const id = newId();
    const at = new Date(Date.parse(createdAt) + index * 60_000).toISOString();
    db.prepare('INSERT INTO custom_fonts (id, org_id, font_family, created_at, updated_at) VALUES (?, ?, ?, ?, ?)').run(
      id,
      orgId,
      family,
      at,
      at,
    );
    for (const weight of weights) {
      const key = storeUploaded(
        db,
        orgId,
        'customization_font',
        `${family.replace(/ /g, '')}-${weight}.woff2`,
        'font/woff2',
        minimalWoff2(family, weight),
      );
      db.prepare('INSERT INTO font_faces (font_id, weight, storage_key, format) VALUES (?, ?, ?, ?)').run(
        id,
        weight,
        key,
        'woff2',
      );
    }
  });
}

/** The faces of a font by weight, each with the stored file it is served from. */
export function facesOf(db: Db, fontId: string): Array<{ face: FaceRow; file: StorageFileRow }> {
  const faces = db.prepare('SELECT * FROM font_faces WHERE font_id = ? ORDER BY weight').all(fontId) as FaceRow[];
  const findFile = db.prepare('SELECT * FROM storage_files WHERE key = ?');
  return faces.map((face) => ({ face, file: findFile.get(face.storage_key) as StorageFileRow }));
}

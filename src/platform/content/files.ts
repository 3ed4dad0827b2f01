import { imageSize } from 'image-size';
import type { Links } from '../links.js';
import type { Db } from '../store/db.js';
import { getBlob, putBlob } from './blobs.js';
import type { ContentFile } from './revisions.js';
import { sign, verify } from './signing.js';

/**
 * Files of a revision: bytes stored once by hash, described by name, type and size (and the
 * dimensions of an image), downloaded from the platform by a signed URL that needs no token.
 */

/** Stores a file's bytes and returns its description (an image's dimensions read from its header). */
export function storeFile(
  db: Db,
  file: { id: string; name: string; contentType: string; bytes: Uint8Array },
): ContentFile {
  const hash = putBlob(db, file.bytes);
  const dimensions = file.contentType.startsWith('image/') ? imageDimensions(file.bytes) : undefined;
  return {
    id: file.id,
    name: file.name,
    contentType: file.contentType,
    size: file.bytes.length,
    hash,
    ...(dimensions ? { dimensions } : {}),
  };
}

/** Width and height of an image (PNG, JPEG, GIF, WebP, SVG, …), or undefined when they cannot be read. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const { width, height } = imageSize(bytes);
    return width && height ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

/** The signed download URL of a file: valid as long as the bytes exist, for this name and type. */
export function downloadUrl(
  db: Db,
  links: Pick<Links, 'files'>,
  file: Pick<ContentFile, 'hash' | 'name' | 'contentType'>,
): string {
  const signature = sign(db, ['file', file.hash, file.name, file.contentType]);
  const query = new URLSearchParams({ type: file.contentType, sig: signature });
  return `${links.files}/${file.hash}/${encodeURIComponent(file.name)}?${query.toString()}`;
}

/** The bytes a download URL names, or undefined when its signature does not match. */
export function signedDownload(
  db: Db,
  request: { hash: string; name: string; type: string | undefined; sig: string | undefined },
): Buffer | undefined {
  if (request.type === undefined || !verify(db, ['file', request.hash, request.name, request.type], request.sig))
    return undefined;
  return getBlob(db, request.hash);
}

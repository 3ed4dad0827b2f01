import { encodeGlobalID } from '@pothos/plugin-relay';
import { BadUserInputError } from './errors.js';

/**
 * Reads an id given by a client, which may be the global ID of a `typename` node (or of one of
 * several typenames) or the platform's own id. Returns the platform id (for nodes with parents,
 * the encoded key).
 */
export function platformKey(value: string, typename: string | readonly string[]): string {
  const typenames = typeof typename === 'string' ? [typename] : typename;
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new BadUserInputError(`An id of a ${typenames.join(' or ')} cannot be empty`);
  // Decoded by hand and checked by re-encoding: most inputs are platform ids, and letting the
  // relay decoder throw on each of them costs more than the rest of a simple query.
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8');
  for (const name of typenames) {
    if (!decoded.startsWith(`${name}:`)) continue;
    const id = decoded.slice(name.length + 1);
    if (id.length > 0 && encodeGlobalID(name, id) === trimmed) return id;
  }
  return trimmed;
}

/** Joins the parts of a composite key (`organizationId` + `teamId`); parts are URI-encoded. */
export function compositeKey(...parts: string[]): string {
  return parts.map(encodeURIComponent).join('/');
}

/** Splits a composite key made by `compositeKey`; throws BAD_USER_INPUT when malformed. */
export function splitKey(key: string, size: number, typename: string): string[] {
  const parts = key.split('/').map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return '';
    }
  });
  if (parts.length !== size || parts.some((part) => part.length === 0)) {
    throw new BadUserInputError(`Not an id of a ${typename}`);
  }
  return parts;
}

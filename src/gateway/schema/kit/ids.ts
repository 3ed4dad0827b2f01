import { encodeGlobalID } from '@pothos/plugin-relay';
import { z } from 'zod';
import { BadUserInputError } from '../../errors.js';
import { encodePart, LONE_SURROGATE } from '../../upstream/encode.js';

/** Longest id accepted from a client; platform ids are far shorter. */
export const MAX_ID_LENGTH = 512;

const nodeTypes = new Set<string>();

/** Records a node type, so that its global IDs are recognized where another type is expected. */
export function registerNodeType(typename: string): void {
  nodeTypes.add(typename);
}

/** Decodes `value` as a global ID of a known node type, or returns undefined. */
export function decodeKnownGlobalId(value: string): { typename: string; id: string } | undefined {
  // Decoded by hand and checked by re-encoding: most inputs are platform ids, and letting the
  // relay decoder throw on each of them costs more than the rest of a simple query.
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const typename = decoded.slice(0, colon);
  const id = decoded.slice(colon + 1);
  if (!nodeTypes.has(typename) || id.length === 0 || encodeGlobalID(typename, id) !== value) return undefined;
  return { typename, id };
}

const article = (typename: string) => (/^[AEIOU]/.test(typename) ? 'an' : 'a');

/**
 * Reads an id given by a client, which may be the global ID of a `typename` node (or of one of
 * several typenames) or the platform's own id. Returns the platform id (for nodes with parents,
 * the encoded key). The global ID of another node type is refused with BAD_USER_INPUT, except a
 * Member's where a User is expected (a member is a user in an organization).
 */
export function platformKey(value: string, typename: string | readonly string[]): string {
  const typenames = typeof typename === 'string' ? [typename] : typename;
  const wanted = typenames.map((name) => `${article(name)} ${name}`).join(' or ');
  const trimmed = value.trim();
  if (trimmed.length === 0) throw new BadUserInputError(`An id of ${wanted} cannot be empty`);
  if (trimmed.length > MAX_ID_LENGTH) {
    throw new BadUserInputError(`An id of ${wanted} has at most ${MAX_ID_LENGTH} characters`);
  }
  if (LONE_SURROGATE.test(trimmed)) {
    throw new BadUserInputError(
      `An id of ${wanted} must be well-formed text: it holds half of a UTF-16 surrogate pair`,
    );
  }
  const global = decodeKnownGlobalId(trimmed);
  if (!global) return trimmed;
  if (typenames.includes(global.typename)) return global.id;
  if (global.typename === 'Member' && typenames.includes('User')) return splitKey(global.id, 2, 'Member')[1]!;
  throw new BadUserInputError(
    `Expected the id of ${wanted}, got the global ID of ${article(global.typename)} ${global.typename}`,
  );
}

/** Joins the parts of a composite key (`organizationId` + `teamId`); parts are URI-encoded. */
export function compositeKey(...parts: string[]): string {
  return parts.map(encodePart).join('/');
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

/**
 * A zod transform that reads an id a client gave with `read`: what `read` throws (a malformed
 * global ID, one of another type) becomes the field's issue, with its message.
 */
export function readingId<T>(read: (value: string) => T) {
  return (value: string, ctx: z.core.$RefinementCtx<string>): T => {
    try {
      return read(value);
    } catch (error) {
      ctx.addIssue({ code: 'custom', message: (error as Error).message });
      return z.NEVER;
    }
  };
}

/**
 * A zod field for an id given as a global ID of `typename` (or of one of several typenames) or as
 * a platform id; `message` when it is missing or empty.
 */
export function idInput(
  typename: string | readonly string[],
  message = `must be the id of a ${typeof typename === 'string' ? typename : typename.join(' or ')}`,
) {
  return z
    .string({ message })
    .trim()
    .min(1, message)
    .transform(readingId((value) => platformKey(value, typename)));
}

/**
 * Reads the id of a node that lives inside an organization (a team, a cluster, a site), given by
 * a client: its global ID holds `organizationId/id`; anything else is its platform id, whose
 * organization must come from elsewhere. Null when such a global ID holds no valid key; the
 * global ID of another type is BAD_USER_INPUT (thrown by `platformKey`).
 */
export function readOwnedId(value: string, typename: string): { id: string; organizationId?: string } | null {
  const trimmed = value.trim();
  const key = platformKey(trimmed, typename);
  if (key === trimmed) return { id: trimmed };
  try {
    const [organizationId, id] = splitKey(key, 2, typename) as [string, string];
    return { organizationId, id };
  } catch {
    return null;
  }
}

/**
 * A zod field for the id of a node inside an organization (`readOwnedId`): its own platform id,
 * from a global ID or given as is (at most `maxLength` characters then).
 */
export function ownedIdInput(typename: string, maxLength = MAX_ID_LENGTH) {
  const message = `must be the id of ${/^[AEIOU]/.test(typename) ? 'an' : 'a'} ${typename}`;
  return z
    .string({ message })
    .trim()
    .min(1, message)
    .transform(
      readingId((value) => {
        const read = readOwnedId(value, typename);
        if (!read) throw new Error(message);
        if (read.organizationId === undefined && read.id.length > maxLength)
          throw new Error(`must be at most ${maxLength} characters`);
        return read.id;
      }),
    );
}

/** `readOwnedId` for a Team. */
export function readTeamId(value: string): { teamId: string; organizationId?: string } | null {
  const read = readOwnedId(value, 'Team');
  return (
    read && { teamId: read.id, ...(read.organizationId !== undefined ? { organizationId: read.organizationId } : {}) }
  );
}

/**
 * A team input: a Team global ID or a platform id, parsed to the team's id, which the REST paths and bodies want
 * whatever organization a global ID names.
 */
export const teamIdInput = z
  .string({ message: 'must be the id of a team' })
  .trim()
  .min(1, 'must be the id of a team')
  .transform((value, ctx) => {
    const team = readTeamId(value);
    if (team) return team.teamId;
    ctx.addIssue({ code: 'custom', message: 'is not the id of a team' });
    return z.NEVER;
  });

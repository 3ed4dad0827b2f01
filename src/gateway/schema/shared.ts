import type { FieldMap, ObjectParam, OutputShape, SchemaTypes } from '@pothos/core';
import { GraphQLError, Kind } from 'graphql';
import { z } from 'zod';
import { BadUserInputError } from '../errors.js';
import { MAX_ID_LENGTH, platformKey, splitKey } from '../ids.js';
import { upstream } from '../policy/cost.js';
import { builder } from './builder.js';
import { documentFromLines, documentLines } from '../../document/lines.js';

builder.queryType({ description: 'Everything you can read through the gateway.' });
builder.mutationType({ description: 'Every change you can make through the gateway, one per platform operation.' });

builder.scalarType('DateTime', {
  description: 'A date and time in ISO 8601 (for example `2026-01-31T09:30:00.000Z`).',
  serialize: (value) => String(value),
  parseValue: (value) => {
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) {
      throw new GraphQLError('DateTime must be an ISO 8601 date-time string');
    }
    return value;
  },
});

builder.scalarType('JSON', {
  description: 'Any JSON value (used for rich-text documents and free-form configuration).',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: function parse(ast): unknown {
    switch (ast.kind) {
      case Kind.STRING:
      case Kind.BOOLEAN:
        return ast.value;
      case Kind.INT:
      case Kind.FLOAT:
        return Number(ast.value);
      case Kind.NULL:
        return null;
      case Kind.LIST:
        return ast.values.map((value) => parse(value));
      case Kind.OBJECT:
        return Object.fromEntries(ast.fields.map((field) => [field.name.value, parse(field.value)]));
      default:
        throw new GraphQLError('Variables inside JSON literals are not supported; pass the whole value as a variable');
    }
  },
});

/** Declares a GraphQL enum over REST values: `share-link` becomes `SHARE_LINK`. */
export function restEnum<const V extends string>(name: string, description: string, values: Record<V, string>) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(
      Object.entries<string>(values).map(([value, valueDescription]) => [
        value.toUpperCase().replace(/[^A-Z0-9]+/g, '_'),
        { value, description: valueDescription },
      ]),
    ) as Record<string, { value: V; description: string }>,
  });
}

export const ROLE_DESCRIPTIONS = {
  admin: 'Administrates content: creates and deletes spaces, manages permissions.',
  create: 'Creates content.',
  review: 'Reviews content and merges change requests.',
  edit: 'Edits live content or change requests.',
  comment: 'Accesses content and takes part in discussions.',
  read: 'Reads only.',
} as const;

export const RoleEnum = restEnum(
  'Role',
  'Level of access of a member or of a permission, from most to least privileged. Where a role is nullable, null means a guest.',
  ROLE_DESCRIPTIONS,
);

export const DefaultLevelEnum = restEnum(
  'DefaultLevel',
  'Level of access every member of the organization gets on a piece of content.',
  {
    inherit: 'Inherits the level of the parent collection, or the organization role at the top.',
    ...ROLE_DESCRIPTIONS,
  },
);

export const TeamRoleEnum = restEnum('TeamRole', 'Role of a member inside a team.', {
  owner: 'Can manage the members of the team.',
  member: 'Belongs to the team.',
});

export const OrderEnum = restEnum('SortOrder', 'Direction of an ordering.', {
  asc: 'Ascending: oldest or smallest first.',
  desc: 'Descending: newest or largest first.',
});

// ---------------------------------------------------------------------------------------------
// Mutations: payloads carry `userErrors` for every expected failure.

export const USER_ERROR_CODES = [
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'FORBIDDEN',
  'CONFLICT',
  'PRECONDITION_FAILED',
] as const;
export type UserErrorCode = (typeof USER_ERROR_CODES)[number];

export const UserErrorCodeEnum = builder.enumType('UserErrorCode', {
  description: 'Why a mutation could not be carried out.',
  values: {
    BAD_USER_INPUT: { description: 'The input is invalid: `field` names the culprit when known.' },
    NOT_FOUND: { description: 'A resource named by the input does not exist or is not visible to you.' },
    FORBIDDEN: { description: 'Your role does not allow this change.' },
    CONFLICT: { description: 'The change conflicts with the current state (for example: nothing to update).' },
    PRECONDITION_FAILED: { description: 'The resource is not in a state that allows this change.' },
  },
});

export interface UserErrorShape {
  message: string;
  code: UserErrorCode;
  field: string[] | null;
  upstreamStatus: number | null;
}

export const UserError = builder.objectRef<UserErrorShape>('UserError').implement({
  description: 'An expected failure of a mutation: nothing was changed by the failing step.',
  fields: (t) => ({
    message: t.exposeString('message', { description: 'What went wrong, for people.' }),
    code: t.field({ type: UserErrorCodeEnum, description: 'What went wrong, for programs.', resolve: (e) => e.code }),
    field: t.exposeStringList('field', {
      nullable: true,
      description: 'Path of the input field at fault, from the root of `input` (for example `["title"]`).',
    }),
    upstreamStatus: t.exposeInt('upstreamStatus', {
      nullable: true,
      description: 'HTTP status of the platform when the platform refused the change.',
    }),
  }),
});

/** The SchemaTypes of the builder, for helpers typed over field builders. */
export type SchemaTypesOf =
  typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never;

/** The fields every payload has; `T` adds the affected objects. */
export type Payload<T> = Partial<T> & { userErrors: UserErrorShape[] };

/** The name of the input or payload type of `mutation`: `createSpace` → `CreateSpaceInput`. */
export const mutationTypeName = (mutation: string, suffix: 'Input' | 'Payload') =>
  `${mutation.charAt(0).toUpperCase()}${mutation.slice(1)}${suffix}`;

/**
 * Declares the payload of the mutation named `mutation`: the type `<Mutation>Payload`, with
 * `fields` for the affected objects plus `userErrors`. The affected-object fields must be
 * nullable: they are null when the mutation failed.
 */
export function payloadType<T extends object>(
  mutation: string,
  fields: (t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, Payload<T>>) => FieldMap,
) {
  const ref = builder.objectRef<Payload<T>>(mutationTypeName(mutation, 'Payload'));
  ref.implement({
    description: `Result of ${mutation}.`,
    fields: (t) => ({
      ...fields(t),
      userErrors: t.field({
        type: [UserError],
        description: 'Expected failures; empty when the mutation succeeded.',
        resolve: (payload) => payload.userErrors,
      }),
    }),
  });
  return ref;
}

/** Payload of `mutation` with one affected object: the nullable field `field` of type `type`. */
export function objectPayload<F extends string, Type extends ObjectParam<SchemaTypesOf>>(
  mutation: string,
  field: F,
  type: Type,
  description: string,
) {
  return payloadType<Record<F, OutputShape<SchemaTypesOf, Type>>>(mutation, (t) => ({
    [field]: t.field({
      type,
      nullable: true,
      description,
      // The object is usually at hand (primed from the write's answer), else loaded by its key.
      extensions: upstream.link,
      // Pothos cannot follow a generic field type; the payload holds exactly its shape.
      resolve: (payload) => (payload[field] ?? null) as never,
    }),
  }));
}

/**
 * Payload of a delete: `deleted: Boolean!` (as `sendDelete` of `upstream/operation.ts` answers it), whose meaning
 * `description` spells out, plus any `fields` of `T`.
 */
export function deletedPayload<T extends object = object>(
  mutation: string,
  description: string,
  fields?: (t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, Payload<T & { deleted: boolean }>>) => FieldMap,
) {
  return payloadType<T & { deleted: boolean }>(mutation, (t) => ({
    deleted: t.boolean({ description, resolve: (payload) => payload.deleted ?? false }),
    ...fields?.(t),
  }));
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
    .transform((value, ctx) => {
      try {
        return platformKey(value, typename);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
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
    .transform((value, ctx) => {
      try {
        const read = readOwnedId(value, typename);
        if (!read) throw new Error(message);
        if (read.organizationId === undefined && read.id.length > maxLength)
          throw new Error(`must be at most ${maxLength} characters`);
        return read.id;
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
}

/** `readOwnedId` for a Team. */
export function readTeamId(value: string): { teamId: string; organizationId?: string } | null {
  const read = readOwnedId(value, 'Team');
  return (
    read && { teamId: read.id, ...(read.organizationId !== undefined ? { organizationId: read.organizationId } : {}) }
  );
}

/** Zod refinement: each of `keys` may be left out but not given as null (nothing to clear). */
export const noNull = (keys: readonly string[]) => (value: Record<string, unknown>, ctx: z.RefinementCtx) => {
  for (const key of keys) {
    if (value[key] === null) ctx.addIssue({ code: 'custom', path: [key], message: 'cannot be null' });
  }
};

/**
 * The REST body of a write, from the input fields that were given: an entry left out
 * (`undefined`) is dropped, and so is a null one unless its key is `clearable` (null clears that
 * field on the platform). With `required`, an empty body is refused with that message.
 */
export function restBody(
  fields: Record<string, unknown>,
  options: { clearable?: readonly string[]; required?: string } = {},
): Record<string, unknown> {
  const body = Object.fromEntries(
    Object.entries(fields).filter(
      ([key, value]) => value !== undefined && (value !== null || options.clearable?.includes(key)),
    ),
  );
  if (options.required !== undefined && Object.keys(body).length === 0) throw new BadUserInputError(options.required);
  return body;
}

/**
 * Declares an object of permission flags: a `Boolean!` field per entry of `flags` (flag name →
 * description), false when the platform leaves the flag out.
 */
export function permissionsType<P extends Partial<Record<string, boolean>>>(
  name: string,
  description: string,
  flags: { [K in keyof P & string]?: string },
) {
  return builder.objectRef<P>(name).implement({
    description,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(flags).map(([flag, flagDescription]) => [
          flag,
          t.boolean({ description: flagDescription as string, resolve: (p) => p[flag] ?? false }),
        ]),
      ),
  });
}

export const DocumentType = builder
  .objectRef<{ object: 'document'; data: Record<string, unknown>; nodes: unknown[] }>('Document')
  .implement({
    description: 'A rich-text document (descriptions, instructions, summaries).',
    fields: (t) => ({
      json: t.field({
        type: 'JSON',
        description: 'The document as the platform stores it: `{ object: "document", data, nodes }`.',
        resolve: (doc) => doc,
      }),
      text: t.string({
        description: 'The plain text of the document, without markup: one line per block.',
        resolve: (doc) => documentLines(doc),
      }),
    }),
  });

export const DocumentInput = builder.inputType('DocumentInput', {
  description: 'A rich-text document: give either `text` (plain text, one paragraph per line) or `json`.',
  fields: (t) => ({
    text: t.string({ description: 'Plain text; each line becomes a paragraph.' }),
    json: t.field({ type: 'JSON', description: 'A full document `{ object: "document", data, nodes }`.' }),
  }),
});

const documentJson = z.object({
  object: z.literal('document', { message: 'must be a document: { object: "document", data, nodes }' }),
  data: z.record(z.string(), z.unknown()),
  nodes: z.array(z.unknown()),
  meta: z.record(z.string(), z.unknown()).optional(),
});

/** Zod for DocumentInput: exactly one of `text` or `json`, turned into a platform document. */
export const documentInput = z
  .object({ text: z.string().max(100_000).nullish(), json: z.unknown().optional() })
  .superRefine((value, ctx) => {
    const given = (value.text != null ? 1 : 0) + (value.json != null ? 1 : 0);
    if (given !== 1) ctx.addIssue({ code: 'custom', message: 'give exactly one of text or json' });
  })
  .transform((value, ctx) => {
    if (value.text != null) return documentFromLines(value.text);
    const parsed = documentJson.safeParse(value.json);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ['json', ...issue.path] } as never);
      return z.NEVER;
    }
    return parsed.data;
  });

builder.globalConnectionField('totalCount', (t) =>
  t.int({
    description: 'Number of items in the whole list (all pages), as the platform counts them.',
    resolve: (connection) => connection.totalCount,
  }),
);

import { z } from 'zod';
import { builder } from './builder.js';

/** The GraphQL name of a REST value: `share-link` and `docsSite` become `SHARE_LINK` and `DOCS_SITE`. */
export const enumValueName = (value: string) =>
  value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_');

/**
 * The values of an enum of the generated contract (`S.MemberRole`), typed by its union: for a zod
 * check of an input that carries its own messages. The contract types its schemas by what they
 * parse, so the enum's `options` are read here once.
 */
export function enumValues<V extends string>(schema: z.ZodType<V>): [V, ...V[]] {
  if (!(schema instanceof z.ZodEnum)) throw new Error('enumValues takes an enum of the contract');
  return schema.options as [V, ...V[]];
}

/** Declares a GraphQL enum over REST values: `share-link` becomes `SHARE_LINK`, `docsSite` `DOCS_SITE`. */
export function restEnum<const V extends string>(name: string, description: string, values: Record<V, string>) {
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(
      Object.entries<string>(values).map(([value, valueDescription]) => [
        enumValueName(value),
        { value, description: valueDescription },
      ]),
    ) as Record<string, { value: V; description: string }>,
  });
}

/** What each role allows, shared by the enums of roles and of default levels. */
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

/**
 * What signs the tokens of visitors of a site or space: the tags of the description's `VisitorAuth`
 * variants (it names no enum of them).
 */
export const VISITOR_AUTH_BACKENDS = ['custom', 'integration'] as const;

export const VisitorAuthBackendEnum = restEnum(
  'VisitorAuthBackend',
  'What signs the tokens (JWT) of the visitors of a site or space.',
  {
    custom: 'A backend of your own signs them with the site’s key.',
    integration: 'A visitor-authentication integration installed on the site signs them.',
  } satisfies Record<(typeof VISITOR_AUTH_BACKENDS)[number], string>,
);

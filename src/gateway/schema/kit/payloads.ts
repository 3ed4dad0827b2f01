import type { FieldMap, ObjectParam, OutputShape } from '@pothos/core';
import { encodeGlobalID } from '@pothos/plugin-relay';
import { upstream } from './upstream-cost.js';
import { builder, type SchemaTypesOf } from './builder.js';
import { itemCursor } from '../../policy/connection-cursors.js';
import { UserError, type UserErrorShape } from './user-errors.js';

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

/**
 * Payload of `mutation` with one affected object: the nullable field `field` of type `type`; for a
 * create into lists, `edge` adds the field `<field>Edge` (see `edgeField`).
 */
export function objectPayload<F extends string, Type extends ObjectParam<SchemaTypesOf>>(
  mutation: string,
  field: F,
  type: Type,
  description: string,
  edge?: NewEdge<OutputShape<SchemaTypesOf, Type>>,
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
    ...(edge ? { [`${field}Edge`]: edgeField(t, edge, (payload) => payload[field]) } : {}),
  }));
}

/** How a create's payload shows the object it made as an edge of the lists that hold it (see `edgeField`). */
export interface NewEdge<N> {
  /** The edge type of those lists (`SpaceEdge`): the one their connection declares. */
  type: ObjectParam<SchemaTypesOf>;
  /** What the object is, as the description names it (`space`). */
  what: string;
  /** The lists that hold it, as the description names them (`Organization.spaces and Collection.spaces`). */
  lists: string;
  /**
   * Its key in those lists: the `id` of its REST object unless the list declares another (see
   * `restConnection`).
   * @default the object's `id`, or the object itself when the payload holds its platform id
   */
  key?: (node: N) => string;
}

const platformIdOf = (node: unknown): string =>
  typeof node === 'string' ? node : String((node as { id: unknown }).id);

/**
 * The payload field `<thing>Edge` of a create: the object it made (`node`, null when the mutation
 * failed) as an edge of the lists that hold it, for Relay's `@appendEdge`/`@prependEdge` and
 * Apollo's cache updates. No page placed the object, so its cursor names the object itself
 * (`itemCursor`): passed as `after` to a list that holds it, it resumes right after it, as any
 * cursor does. Where it lands in a list depends on the list's order, which the client knows.
 */
export function edgeField<P, N>(
  t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, P>,
  edge: NewEdge<N>,
  node: (payload: P) => N | null | undefined,
) {
  return t.field({
    type: edge.type,
    nullable: true,
    description: `The new ${edge.what} as an edge of ${edge.lists}, for Relay's \`@appendEdge\`/\`@prependEdge\` and Apollo's cache updates; null when the mutation failed. No page placed it, so its cursor names the ${edge.what} itself: passed as \`after\` to a list that holds it, it resumes right after it (that list is then read from its start, to find it); a list that does not hold it answers BAD_USER_INPUT.`,
    resolve: (payload) => {
      const made = node(payload);
      // Pothos cannot follow a generic edge type; this is exactly an edge's shape.
      return (made == null ? null : { cursor: itemCursor((edge.key ?? platformIdOf)(made)), node: made }) as never;
    },
  });
}

/**
 * Payload of a delete: `deleted: Boolean!` (205 → true, 204 → false), whose meaning
 * `description` spells out, `deletedId` (see `deletionOf`), plus any `fields` of `T`.
 */
export function deletedPayload<T extends object = object>(
  mutation: string,
  description: string,
  fields?: (t: PothosSchemaTypes.ObjectFieldBuilder<SchemaTypesOf, Payload<T & Deletion>>) => FieldMap,
) {
  return payloadType<T & Deletion>(mutation, (t) => ({
    deleted: t.boolean({ description, resolve: (payload) => payload.deleted ?? false }),
    deletedId: t.id({
      nullable: true,
      description:
        "Global ID of the object deleted (also when there was nothing left to delete), for clients' caches: Relay's `@deleteRecord`, Apollo's `cache.evict`. Null when the mutation failed, or when what it removed is no object of the graph (a membership, a grant).",
      resolve: (payload) => payload.deletedId ?? null,
    }),
    ...fields?.(t),
  }));
}

/** What a delete answers: whether something was deleted, and the global ID of what it named. */
export interface Deletion {
  deleted: boolean;
  deletedId?: string | undefined;
}

/** The answer of `deleting` the node `typename` whose loader key is `key`, with its global ID. */
export async function deletionOf(
  typename: string,
  key: string,
  deleting: Promise<{ deleted: boolean }>,
): Promise<Deletion> {
  return { ...(await deleting), deletedId: encodeGlobalID(typename, key) };
}

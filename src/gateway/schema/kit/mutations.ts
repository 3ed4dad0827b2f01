import type { InputObjectRef, InputTypeParam, ObjectParam, OutputShape } from '@pothos/core';
import { z } from 'zod';
import type { GatewayContext } from '../../context.js';
import { BadUserInputError, isGatewayError, type ErrorCode, type RestField } from '../../errors.js';
import { builder, type SchemaTypesOf } from './builder.js';
import { mutationTypeName, type Payload } from './payloads.js';
import { USER_ERROR_CODES, type UserErrorCode } from './user-errors.js';

/** One field of an input object: its GraphQL type, its description and the zod check of its value. */
export interface InputField<C extends z.ZodType = z.ZodType> {
  /** GraphQL type: a scalar name (`'ID'`), an enum or input object ref, or a list of one (`['ID']`). */
  readonly type: InputTypeParam<SchemaTypesOf>;
  /** Description of the field in the schema. */
  readonly description: string;
  /** Zod check of the value; also decides whether the field is non-null (see `inputField`). */
  readonly check: C;
}

/** The fields of an input object, by name. */
export type InputFields = Record<string, InputField>;

/** The zod shape of `F`: each field's check under its name. */
export type ChecksOf<F extends InputFields> = { [K in keyof F]: F[K]['check'] };

/**
 * Declares an input field once for GraphQL and zod. The field is non-null in GraphQL exactly when
 * `check` refuses both a missing value and null: `.nullish()`, `.nullable()` or `.optional()` make
 * it nullable; a check that accepts null but not a missing value (`.nullable()`) makes clients
 * name the field, even as null.
 */
export function inputField<C extends z.ZodType>(
  type: InputTypeParam<SchemaTypesOf>,
  description: string,
  check: C,
): InputField<C> {
  return { type, description, check };
}

/** What `inputObject` declares: the GraphQL input type and the zod schema of its values. */
export interface InputObject<S extends z.ZodType> {
  /** The input object type, to use as the `type` of an `inputField`. */
  type: InputObjectRef<SchemaTypesOf, unknown>;
  /** The checks of the fields as one object, after `check` when one was given. */
  schema: S;
}

/** Options of `inputObject`. */
export interface InputObjectOptions<F extends InputFields, S extends z.ZodType> {
  /** Description of the type in the schema. */
  description: string;
  /** The fields, each with its type, description and check. */
  fields: F;
  /**
   * Checks and transforms across fields, applied to the object of the field checks: for
   * example `(object) => object.superRefine(noNull(['title']))` or `.transform(resolveTeam)`.
   * Called once, when the schema is built.
   * @default the object of the field checks as it is
   */
  check?: (object: z.ZodObject<ChecksOf<F>>) => S;
  /**
   * A `@oneOf` input: clients set exactly one of its fields (GraphQL validates it). Every field
   * must then be nullable.
   * @default false
   */
  oneOf?: boolean;
}

/** Declares an input object type and the zod schema of its values from one list of fields. */
export function inputObject<F extends InputFields, S extends z.ZodType = z.ZodObject<ChecksOf<F>>>(
  name: string,
  options: InputObjectOptions<F, S>,
): InputObject<S> {
  const entries = Object.entries(options.fields);
  const type = builder.inputType(name, {
    description: options.description,
    ...(options.oneOf ? { isOneOf: true as const } : {}),
    fields: (t) =>
      Object.fromEntries(
        entries.map(([key, field]) => [
          key,
          t.field({ type: field.type, required: isRequired(field.check), description: field.description }),
        ]),
      ),
  });
  const object = z.object(Object.fromEntries(entries.map(([key, field]) => [key, field.check])) as ChecksOf<F>);
  return { type, schema: options.check ? options.check(object) : (object as unknown as S) };
}

function isRequired(check: z.ZodType): boolean {
  const accepts = (value: unknown) => {
    try {
      return check.safeParse(value).success;
    } catch {
      // A transform that throws on this value does not accept it either.
      return false;
    }
  };
  return !accepts(undefined) && !accepts(null);
}

/** The data a mutation answers for the payload type `P`: its fields other than `userErrors`. */
export type PayloadData<P extends ObjectParam<SchemaTypesOf>> = Omit<OutputShape<SchemaTypesOf, P>, 'userErrors'>;

/** Options of `declareMutation`. */
export interface MutationOptions<F extends InputFields, S extends z.ZodType, P extends ObjectParam<SchemaTypesOf>> {
  /** Description of the mutation: what it does and who may do it. */
  description: string;
  /** Description of its input type, `<Name>Input`. */
  input: string;
  /**
   * Description of its `input` argument.
   * @default the description of the input type
   */
  argument?: string;
  /** The input fields, each with its type, description and check (see `inputField`). */
  fields: F;
  /**
   * Checks and transforms across fields, as in `inputObject`; `run` gets what it outputs.
   * @default the object of the field checks as it is
   */
  check?: (object: z.ZodObject<ChecksOf<F>>) => S;
  /**
   * The payload type, made from the name of the mutation: for example
   * `(name) => deletedPayload(name, 'True when …')`, or `objectPayload`, `payloadType`.
   */
  payload: (mutation: string) => P;
  /**
   * The upstream call, run only with a valid input: answers the fields of the payload other
   * than `userErrors`. An expected GatewayError it throws becomes a user error.
   */
  run: (input: z.output<S>, ctx: GatewayContext) => Promise<PayloadData<P>>;
  /** Extensions of the mutation field, such as its upstream cost (`upstream.fetch(2)`). */
  extensions?: Record<string, unknown>;
  /**
   * The input path a refusal of the platform is about, when the REST body names it otherwise than
   * the input (`changes.0.page` for `changes.0.updatePage.pageId`), or names none (a NOT_FOUND of
   * a path parameter): given the REST field (null when the refusal names none), the refusal's
   * code and the input as the client wrote it. Undefined leaves it to the default mapping.
   */
  inputPath?: (restField: string[] | null, code: ErrorCode, input: Record<string, unknown>) => string[] | undefined;
}

/**
 * Declares the mutation `name(input: NameInput!): NamePayload!`. The input type and its zod
 * schema come from `fields` (and `check`), built once with the schema. Each call checks the input
 * first: zod issues become `BAD_USER_INPUT` user errors naming the field, before any upstream
 * call; then `run`, whose expected failures (bad input, not found, forbidden, conflict,
 * precondition failed) become user errors too. Other failures (auth, upstream down) are thrown
 * as GraphQL errors.
 *
 * @example
 * declareMutation('deleteCollection', {
 *   description: 'Deletes a collection (admins).',
 *   input: 'The collection to delete.',
 *   fields: { collectionId: inputField('ID', 'Platform id or global ID of the collection.', idInput('Collection')) },
 *   payload: (name) => deletedPayload(name, 'True when the collection was deleted.'),
 *   run: (i, ctx) => deleteCollection(ctx.api, i.collectionId),
 * });
 */
export function declareMutation<
  F extends InputFields,
  P extends ObjectParam<SchemaTypesOf>,
  S extends z.ZodType = z.ZodObject<ChecksOf<F>>,
>(name: string, options: MutationOptions<F, S, P>): void {
  const input = inputObject(mutationTypeName(name, 'Input'), {
    description: options.input,
    fields: options.fields,
    ...(options.check && { check: options.check }),
  });
  const payload = options.payload(name);
  builder.mutationField(name, (t) =>
    t.field({
      type: payload,
      description: options.description,
      ...(options.extensions && { extensions: options.extensions }),
      args: {
        input: t.arg({ type: input.type, required: true, description: options.argument ?? options.input }),
      },
      // Pothos cannot follow the generic payload type; `mutate` answers exactly its shape.
      resolve: (_root, args, ctx) =>
        mutate(input.schema as S, args.input, options.run, ctx, options.inputPath) as never,
    }),
  );
}

const EXPECTED: ReadonlySet<ErrorCode> = new Set(USER_ERROR_CODES);

/**
 * Runs a mutation: parses `input` with `schema` (failures become userErrors naming the field,
 * before any upstream call), then `run`; expected upstream failures (400, 403, 404, 409, 412)
 * become userErrors too. Other failures (auth, upstream down) are thrown as GraphQL errors.
 */
/**
 * A check's message as a sentence that names the input as the client wrote it: the checks say what
 * is wrong (`must be 1 to 50 characters`), the path says of what (`title`, `changes.0.updatePage.pageId`).
 */
function inputMessage(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String);
  // A message that names its field already (or is a sentence of its own) is one as it is.
  if (path.length === 0 || /^[A-Z`]/.test(issue.message) || issue.message.startsWith(`${path.at(-1)} `)) {
    return issue.message;
  }
  return `${path.join('.')}: ${issue.message}`;
}

async function mutate<S extends z.ZodType, R extends object>(
  schema: S,
  input: unknown,
  run: (input: z.infer<S>, ctx: GatewayContext) => Promise<R>,
  ctx: GatewayContext,
  toInputPath?: MutationOptions<InputFields, S, never>['inputPath'],
): Promise<Payload<R>> {
  try {
    const parsed = schema.safeParse(input);
    if (!parsed.success) {
      return {
        userErrors: parsed.error.issues.map((issue) => ({
          message: inputMessage(issue),
          code: 'BAD_USER_INPUT' as const,
          field: issue.path.map(String),
          upstreamStatus: null,
        })),
      } as Payload<R>;
    }
    return { ...(await run(parsed.data, ctx)), userErrors: [] };
  } catch (error) {
    if (isGatewayError(error) && EXPECTED.has(error.code)) {
      const restField = error.restField;
      const given = toInputPath?.(restField?.path ?? null, error.code, input as Record<string, unknown>);
      const field = given ?? error.field ?? inputPathOf(restField?.path, input);
      return {
        userErrors: [
          {
            message: namingInput(error.message, restField, field),
            code: error.code as UserErrorCode,
            field,
            upstreamStatus: error.upstreamStatus ?? null,
            budget: error.budget ?? null,
          },
        ],
      } as Payload<R>;
    }
    throw error;
  }
}

/**
 * The platform's words, with what they are about named as the client wrote it: its REST field
 * becomes the input field (`Invalid input field "changes.0.updatePage.pageId"`), and a path
 * parameter's not-found says which input named it (`Space not found: input field "spaceId"`).
 */
function namingInput(message: string, restField: RestField | undefined, field: string[] | null): string {
  if (!restField || !field) return message;
  const named = `input field "${field.join('.')}"`;
  if (restField.quoted && message.includes(restField.quoted)) return message.replace(restField.quoted, named);
  return `${message}: ${named}`;
}

/**
 * The input field a platform refusal is about. The platform names REST fields
 * (`Invalid body field "position.before"`, `Team not found: body field "teams.0"`) and path
 * parameters (`spaceId`); the input names them the GraphQL way, level by level: the same name,
 * or `parent` → `parentId`, `teams` → `teamIds`, a name said more fully → the input's
 * (`samlProviderId` → `providerId`). Null when its first level has no counterpart in the input.
 */
function inputPathOf(restField: string[] | undefined, input: unknown): string[] | null {
  if (!restField?.length) return null;
  const path: string[] = [];
  let at = input;
  for (const [index, segment] of restField.entries()) {
    const key = Array.isArray(at) ? segment : inputKey(segment, at);
    if (key === undefined) return index === 0 ? null : [...path, ...restField.slice(index)];
    path.push(key);
    at = (at as Record<string, unknown>)[key];
  }
  return path;
}

/** The key of the input object `at` that holds what the REST field `segment` names, if any. */
function inputKey(segment: string, at: unknown): string | undefined {
  if (!at || typeof at !== 'object') return undefined;
  const keys = Object.keys(at);
  const exact = [segment, `${segment}Id`, `${segment.replace(/s$/, '')}Ids`].find((key) => keys.includes(key));
  return (
    exact ??
    keys.find(
      (key) => /Ids?$/.test(key) && segment.length > key.length && segment.toLowerCase().endsWith(key.toLowerCase()),
    )
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

/**
 * The API description the REST contract is generated from: the official one (`@gitbook/api`,
 * `spec/openapi.json`), with the overlay applied where the API documentation says otherwise. The
 * generators (`generate.ts`) and the conformance check of the platform's answers read it from here,
 * so they never disagree about what an operation is.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** A JSON Schema of the description (2020-12, as OpenAPI 3.1 has it), read as plain JSON. */
export type Schema = { [keyword: string]: unknown };

/** The parts of an OpenAPI 3.1 document the contract reads. */
export interface Description {
  openapi: string;
  info: { version: string };
  paths: Record<string, PathItem>;
  components: {
    schemas: Record<string, Schema>;
    parameters: Record<string, Parameter>;
    responses: Record<string, Response>;
    [kind: string]: unknown;
  };
}

type PathItem = { parameters?: Array<Parameter | Ref> } & Partial<Record<Method, OperationObject>>;

interface OperationObject {
  operationId: string;
  summary?: string;
  tags?: string[];
  parameters?: Array<Parameter | Ref>;
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> } | Ref;
  responses?: Record<string, Response | Ref>;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Response {
  description?: string;
  content?: Record<string, { schema?: Schema }>;
}

interface Ref {
  $ref: string;
}

export type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';
export const METHODS: readonly Method[] = ['get', 'put', 'post', 'patch', 'delete'];

/** One operation as the generators read it: parameters and bodies resolved, answers by status. */
export interface OperationSpec {
  operationId: string;
  method: Uppercase<Method>;
  /** The path template below the API's `/v1` base (`/spaces/{spaceId}`). */
  path: string;
  summary: string | undefined;
  tags: string[];
  pathParams: Parameter[];
  query: Parameter[];
  body: { schema: Schema; required: boolean } | undefined;
  /** Successful answers (2xx) by status; `schema` is undefined for an answer without a JSON body. */
  answers: Array<{ status: number; schema: Schema | undefined }>;
}

/** The description's version (`@gitbook/api`'s package version), which the generated files name. */
export function descriptionVersion(): string {
  const spec = require.resolve('@gitbook/api/spec/openapi.json');
  return (JSON.parse(readFileSync(join(dirname(spec), '..', 'package.json'), 'utf8')) as { version: string }).version;
}

const require = createRequire(import.meta.url);

/** One change to the description (`overlay.ts`): `value` set at `pointer`, or what is there removed. */
export type OverlayEntry = { pointer: string; reason: string } & ({ value: unknown } | { remove: true });

/** The official description with `overlay` (`overlay.ts`, or none) applied: a fresh copy each call. */
export function loadDescription(overlay: readonly OverlayEntry[]): Description {
  const text = readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8');
  return applyOverlay(JSON.parse(text) as Description, overlay);
}

/**
 * Applies each entry in order: `value` is set at `pointer` (replacing what is there, adding a new
 * key, or appended to a list at `-`), `remove` deletes it. An entry whose target's parent is missing, a removal of nothing, or a
 * replacement that changes nothing is an error: the description moved under the overlay.
 */
export function applyOverlay(description: Description, overlay: readonly OverlayEntry[]): Description {
  for (const entry of overlay) {
    const keys = parsePointer(entry.pointer);
    const last = keys.pop();
    // A path the description lacks gets its path item with its first operation.
    if (keys.length === 2 && keys[0] === 'paths') description.paths[keys[1]!] ??= {};
    let parent: unknown = description;
    for (const key of keys) parent = (parent as Record<string, unknown> | undefined)?.[key];
    if (last === undefined || typeof parent !== 'object' || parent === null)
      throw new Error(`Overlay: nothing at ${entry.pointer} to change (${entry.reason})`);
    const target = parent as Record<string, unknown>;
    if (last === '-' && Array.isArray(parent) && 'value' in entry) {
      parent.push(structuredClone(entry.value));
      continue;
    }
    if ('remove' in entry) {
      if (!(last in target)) throw new Error(`Overlay: nothing at ${entry.pointer} to remove (${entry.reason})`);
      if (Array.isArray(target)) target.splice(Number(last), 1);
      else delete target[last];
    } else {
      if (JSON.stringify(target[last]) === JSON.stringify(entry.value))
        throw new Error(`Overlay: ${entry.pointer} already says this (${entry.reason})`);
      target[last] = structuredClone(entry.value);
    }
  }
  return description;
}

/** The keys of a JSON pointer (`/paths/~1spaces~1{spaceId}/get` → `paths`, `/spaces/{spaceId}`, `get`). */
export function parsePointer(pointer: string): string[] {
  if (!pointer.startsWith('/')) throw new Error(`Overlay: ${pointer} is not a JSON pointer`);
  return pointer
    .slice(1)
    .split('/')
    .map((key) => key.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Every operation of the description, in the order of its paths. */
export function operationsOf(description: Description): OperationSpec[] {
  const operations: OperationSpec[] = [];
  for (const [path, item] of Object.entries(description.paths)) {
    for (const method of METHODS) {
      const operation = item[method];
      if (!operation) continue;
      const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((parameter) =>
        resolveRef<Parameter>(description, parameter),
      );
      const requestBody =
        operation.requestBody && resolveRef<Response & { required?: boolean }>(description, operation.requestBody);
      const bodySchema = requestBody?.content?.['application/json']?.schema;
      operations.push({
        operationId: operation.operationId,
        method: method.toUpperCase() as Uppercase<Method>,
        path,
        summary: operation.summary,
        tags: operation.tags ?? [],
        pathParams: parameters.filter((parameter) => parameter.in === 'path'),
        query: parameters.filter((parameter) => parameter.in === 'query'),
        body: bodySchema ? { schema: bodySchema, required: requestBody?.required === true } : undefined,
        answers: Object.entries(operation.responses ?? {})
          .filter(([status]) => /^2\d\d$/.test(status))
          .map(([status, answer]) => ({
            status: Number(status),
            schema: resolveRef<Response>(description, answer).content?.['application/json']?.schema,
          })),
      });
    }
  }
  return operations;
}

/** What a `$ref` outside the component schemas (a parameter, a response) points at. */
function resolveRef<T>(description: Description, value: T | Ref): T {
  let current: unknown = value;
  for (let depth = 0; depth < 8 && isRef(current); depth += 1) {
    let target: unknown = description;
    for (const key of parsePointer(current.$ref.slice(1))) target = (target as Record<string, unknown>)[key];
    current = target;
  }
  return current as T;
}

function isRef(value: unknown): value is Ref {
  return typeof value === 'object' && value !== null && typeof (value as Ref).$ref === 'string';
}

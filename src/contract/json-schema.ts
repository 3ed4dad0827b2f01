/**
 * Writes the platform's side of the contract: for every operation, the JSON Schemas of its path
 * parameters, query and body, their validators compiled ahead of time (ajv standalone code, so the
 * platform compiles nothing when it starts), and the enum lists the platform's domains read.
 *
 * The schemas are the description's **gate**: the types, required fields, enum values and shapes
 * of a request, nothing else. Lengths, patterns, ranges and formats are left to each domain's zod
 * check, which names its limits in its own words (and answers 413 with the budget where one is
 * over); unknown body fields are the domain's to refuse or ignore, as before. A `oneOf` becomes an
 * `anyOf`: once its members' constraints are gone, two of them may accept the same value, which
 * the gate must not refuse. Document trees are not walked (`OPAQUE`): the platform's document
 * checks read them, with the content budgets.
 */
import { createRequire } from 'node:module';
import type { Description, OperationSpec, Schema } from './description.js';
import { OPAQUE } from './zod.js';

/**
 * The component enums the platform's lists come from, under the names the platform reads them by.
 * A list the description holds is read from here, never spelled again in a domain.
 */
export const PLATFORM_ENUMS: Readonly<Record<string, string>> = {
  CHANGE_REQUEST_STATUSES: 'ChangeRequestStatus',
  CONVERSATION_IMPACTS: 'ConversationImpact',
  CONTENT_VISIBILITIES: 'ContentVisibility',
  INTEGRATION_CATEGORIES: 'IntegrationCategory',
  INTEGRATION_SCOPES: 'IntegrationScope',
  INTEGRATION_TARGETS: 'IntegrationTarget',
  INTEGRATION_VISIBILITIES: 'IntegrationVisibility',
  LANGUAGES: 'TranslationLanguage',
  MEMBER_ROLES: 'MemberRole',
  OPENAPI_VISIBILITIES: 'OpenAPISpecVisibility',
  PAGE_TYPES: 'RevisionPageType',
  SITE_TYPES: 'SiteType',
  SITE_VISIBILITIES: 'SiteVisibility',
  STORAGE_KINDS: 'StorageUploadKind',
};

/** The keywords the gate keeps; every other one (lengths, patterns, formats, annotations…) is dropped. */
const GATE_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'required',
  'items',
  'additionalProperties',
  'anyOf',
  'oneOf',
  'allOf',
  'not',
  '$ref',
]);

const COMPONENT = '#/components/schemas/';
/**
 * The document format's components (`Document`, `DocumentBlockImage`…), beyond the trees `OPAQUE`
 * names: the platform's document checks read them, with the content budgets, and their unions of
 * some ninety node shapes would be most of the gate's code.
 */
const DOCUMENT = /^Document/;
/** The `$id` of the schema holding the components; operation schemas refer into it. */
const DEFS_ID = 'contract';

/** One operation's request schemas, as written to `schemas.json`. */
interface RequestSchemas {
  method: string;
  path: string;
  params?: Schema;
  query?: Schema;
  body?: Schema;
  bodyRequired?: boolean;
}

/** The generated files of the platform's contract, by name. */
export function platformContract(
  description: Description,
  operations: OperationSpec[],
  banner: string,
): Map<string, string> {
  const gate = new Gate(description.components.schemas);
  const requests = new Map<string, RequestSchemas>();
  for (const op of operations) {
    const request: RequestSchemas = { method: op.method, path: op.path };
    // The router gives every path parameter as text, and a query holds text: parameters the
    // description takes as any text have nothing to check.
    if (op.pathParams.length) request.params = gate.parameters(op.pathParams);
    if (op.query.length) request.query = gate.parameters(op.query);
    if (request.params && onlyText(request.params)) delete request.params;
    if (request.query && onlyText(request.query) && !request.query.required) delete request.query;
    if (op.body) {
      request.body = gate.schema(op.body.schema);
      request.bodyRequired = op.body.required;
    }
    requests.set(op.operationId, request);
  }
  const defs = gate.defs();
  const inputs = { $id: DEFS_ID, $defs: defs };
  const schemasJson = `${JSON.stringify({ ...inputs, operations: Object.fromEntries(requests) }, null, 1)}\n`;
  return new Map([
    ['schemas.json', schemasJson],
    ['params.js', validatorsJs(banner, inputs, requests, true)],
    ['bodies.js', validatorsJs(banner, inputs, requests, false)],
    ['requests.js', requestsJs(banner, requests)],
    ['requests.d.ts', requestsDts(banner, operations)],
    ['enums.js', enumsJs(banner, description)],
    ['enums.d.ts', enumsDts(banner, description)],
  ]);
}

/** Rewrites description schemas into the gate's (see the module's comment), gathering the components they reach. */
class Gate {
  private readonly reached = new Map<string, Schema | boolean | undefined>();
  /** The components operations refer to by reference (the others are written in place). */
  private readonly referenced = new Set<string>();

  constructor(private readonly components: Record<string, Schema>) {}

  /** An object schema of parameters (path or query) by name. */
  parameters(parameters: OperationSpec['pathParams']): Schema {
    const properties: Record<string, Schema | boolean> = {};
    for (const parameter of parameters) properties[parameter.name] = this.schema(parameter.schema ?? {});
    const required = parameters.filter((parameter) => parameter.required === true).map((parameter) => parameter.name);
    return { type: 'object', properties, ...(required.length ? { required } : {}) };
  }

  schema(node: Schema | boolean): Schema {
    const gated = this.rewrite(node);
    return gated === true ? {} : gated === false ? { not: {} } : gated;
  }

  /** The components reached so far, by name, sorted. */
  defs(): Record<string, Schema | boolean> {
    return Object.fromEntries(
      [...this.referenced].sort().map((name) => [name, this.reached.get(name) as Schema | boolean]),
    );
  }

  private rewrite(node: Schema | boolean): Schema | boolean {
    if (typeof node === 'boolean') return node;
    if (typeof node.$ref === 'string') {
      const name = node.$ref.slice(COMPONENT.length);
      if (OPAQUE[name] || DOCUMENT.test(name)) return true;
      const gated = this.reach(name);
      // A small component without references (an id, an enum) is checked in place: a function of
      // its own per component would be most of the code.
      if (gated !== undefined && !JSON.stringify(gated).includes('"$ref"') && JSON.stringify(gated).length <= 400)
        return structuredClone(gated);
      this.referenced.add(name);
      return { $ref: `${DEFS_ID}#/$defs/${name}` };
    }
    const out: Schema = {};
    for (const [keyword, value] of Object.entries(node)) {
      if (!GATE_KEYWORDS.has(keyword)) continue;
      switch (keyword) {
        case 'properties':
          out.properties = Object.fromEntries(
            Object.entries(value as Record<string, Schema>).map(([name, property]) => [name, this.rewrite(property)]),
          );
          break;
        case 'items':
        case 'not':
          out[keyword] = this.rewrite(value as Schema);
          break;
        case 'allOf':
          out[keyword] = (value as Schema[]).map((part) => this.rewrite(part));
          break;
        case 'oneOf':
        case 'anyOf':
          out.anyOf = (value as Schema[]).map((part) => this.rewrite(part));
          break;
        case 'additionalProperties':
          // `false` refuses unknown fields: the domain's zod decides that, as it did before the gate.
          if (typeof value === 'object' && value !== null) out.additionalProperties = this.rewrite(value as Schema);
          break;
        default:
          out[keyword] = structuredClone(value);
      }
    }
    // A member of a union that is always true makes the union always true.
    if (Array.isArray(out.anyOf) && out.anyOf.some((part) => part === true || isEmpty(part))) delete out.anyOf;
    if (Array.isArray(out.allOf)) {
      const parts = (out.allOf as unknown[]).filter((part) => part !== true && !isEmpty(part));
      if (parts.length === 0) delete out.allOf;
      else out.allOf = parts;
    }
    return isEmpty(out) ? true : out;
  }

  /** The gated schema of a component; undefined while it is being written (a reference to itself). */
  private reach(name: string): Schema | boolean | undefined {
    if (this.reached.has(name)) return this.reached.get(name);
    const schema = this.components[name];
    if (!schema) throw new Error(`The description refers to a missing schema: ${name}`);
    this.reached.set(name, undefined);
    const gated = this.rewrite(schema);
    this.reached.set(name, gated);
    return gated;
  }
}

/** Whether a parameters schema takes any text for each of its parameters. */
function onlyText(schema: Schema): boolean {
  return Object.values(schema.properties as Record<string, unknown>).every(
    (property) => property === true || JSON.stringify(property) === '{"type":"string"}',
  );
}

function isEmpty(schema: unknown): boolean {
  return typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0;
}

/** The name of an operation part's validator in `validators.js`. */
const exportName = (operationId: string, part: 'params' | 'query' | 'body') => `${operationId}_${part}`;

/**
 * The validators, compiled by ajv into standalone code: `params.js` for path parameters and queries,
 * with `coerceTypes: 'array'` (they arrive as strings, a repeated key as a list), `bodies.js` for
 * bodies as they are. Two compilers, so the two modules both hold what both reach: the price of
 * coercing only where the platform reads text.
 */
function validatorsJs(banner: string, inputs: Schema, requests: Map<string, RequestSchemas>, coerce: boolean): string {
  const require = createRequire(import.meta.url);
  // Draft 7's compiler: the gate uses no keyword of 2020-12 that it lacks, and it keeps no record of
  // evaluated properties (for `unevaluatedProperties`), a third of the code.
  const { Ajv } = require('ajv') as typeof import('ajv');
  const standaloneCode = require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js');
  const ajv = new Ajv({
    code: { source: true, esm: true, lines: false, optimize: true },
    inlineRefs: false,
    allErrors: false,
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    validateFormats: false,
    ...(coerce ? { coerceTypes: 'array' as const } : {}),
  });
  ajv.addSchema(inputs);
  const exports: Record<string, string> = {};
  for (const [operationId, request] of requests) {
    for (const part of coerce ? (['params', 'query'] as const) : (['body'] as const)) {
      const schema = request[part];
      if (!schema) continue;
      const id = `${operationId}.${part}`;
      ajv.addSchema({ $id: id, ...schema });
      exports[exportName(operationId, part)] = id;
    }
  }
  // ajv writes its runtime helpers as `require` calls even for an ES module: imports instead.
  const helpers = new Map<string, string>();
  const code = standaloneCode
    .default(ajv, exports)
    .replace(/^"use strict";/, '')
    .replaceAll(/require\("(ajv\/dist\/runtime\/[\w-]+)"\)\.default/g, (_, path: string) => {
      if (!helpers.has(path)) helpers.set(path, `runtime${helpers.size}`);
      return `${helpers.get(path)}.default`;
    });
  const imports = [...helpers].map(([path, name]) => `import ${name} from '${path}.js';\n`).join('');
  return `${banner}${imports}${code}\n`;
}

/** The table of every operation's validators, read by the platform's wiring. */
function requestsJs(banner: string, requests: Map<string, RequestSchemas>): string {
  const table = [...requests].map(([operationId, request]) => {
    const field = (part: 'params' | 'query' | 'body') =>
      `${part}: ${request[part] ? `${part === 'body' ? 'B' : 'P'}.${exportName(operationId, part)}` : 'undefined'}`;
    return `  { operationId: ${JSON.stringify(operationId)}, method: ${JSON.stringify(request.method)}, path: ${JSON.stringify(request.path)}, pathParams: ${JSON.stringify(pathParamsOf(request.path))}, ${field('params')}, ${field('query')}, ${field('body')}, booleanQuery: ${JSON.stringify(booleansOf(request.query))}, bodyRequired: ${request.bodyRequired === true} },\n`;
  });
  return `${banner}import * as P from './params.js';\nimport * as B from './bodies.js';\n\n/** Every operation's request validators, in the order of the description's paths. */\nexport const REQUESTS = [\n${table.join('')}];\n`;
}

/** The query parameters that take a boolean. */
function booleansOf(query: Schema | undefined): string[] {
  const properties = (query?.properties ?? {}) as Record<string, Schema | boolean>;
  return Object.keys(properties).filter((name) => {
    const property = properties[name];
    return typeof property === 'object' && [property.type].flat().includes('boolean');
  });
}

/** The path parameters of a template in the order they appear (`/orgs/{organizationId}/…`). */
function pathParamsOf(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
}

function requestsDts(banner: string, operations: OperationSpec[]): string {
  return `${banner}
/** An ajv validator: true when the value passes; otherwise \`errors\` says why (the first problem found). */
export interface Validator {
  (value: unknown): boolean;
  errors?: Array<{ instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }> | null;
}

/** One operation's request validators; a part the operation does not take is undefined. */
export interface RequestValidators {
  operationId: string;
  method: ${[...new Set(operations.map((op) => JSON.stringify(op.method)))].join(' | ')};
  /** The path template below \`/v1\` (\`/spaces/{spaceId}\`). */
  path: string;
  /** The path parameters' names, in the order of the template. */
  pathParams: readonly string[];
  /** Path parameters (strings, coerced to the description's types). */
  params: Validator | undefined;
  /** The query (coerced: a single value to a list where the parameter takes one). */
  query: Validator | undefined;
  body: Validator | undefined;
  /**
   * The query parameters that take a boolean: the platform reads \`1\` and \`0\` as \`true\` and \`false\`
   * besides, which the validator's coercion does not.
   */
  booleanQuery: readonly string[];
  /** Whether the operation requires a body. */
  bodyRequired: boolean;
}

/** Every operation's request validators, in the order of the description's paths. */
export declare const REQUESTS: readonly RequestValidators[];
`;
}

function enumValues(description: Description, component: string): string[] {
  const values = description.components.schemas[component]?.enum;
  if (!Array.isArray(values) || !values.every((value) => typeof value === 'string'))
    throw new Error(`PLATFORM_ENUMS: ${component} is no enum of strings in the description`);
  return values as string[];
}

function enumsJs(banner: string, description: Description): string {
  const lists = Object.entries(PLATFORM_ENUMS).map(
    ([name, component]) =>
      `/** The description's \`${component}\`. */\nexport const ${name} = Object.freeze(${JSON.stringify(enumValues(description, component))});\n`,
  );
  return `${banner}\n${lists.join('')}`;
}

function enumsDts(banner: string, description: Description): string {
  const lists = Object.entries(PLATFORM_ENUMS).map(
    ([name, component]) =>
      `/** The description's \`${component}\`. */\nexport declare const ${name}: readonly [${enumValues(
        description,
        component,
      )
        .map((value) => JSON.stringify(value))
        .join(', ')}];\n`,
  );
  return `${banner}\n${lists.join('')}`;
}

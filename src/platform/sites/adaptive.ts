import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';

/**
 * The adaptive schema of a site: a JSON Schema (draft-07) of what its visitors' claims may hold.
 * Its root is an object of claim properties (booleans, strings — free or from an `enum` —,
 * numbers, arrays of those, and objects of them, each with a description) and no other
 * properties; the property `unsigned` is the object of claims a visitor may state without
 * signing them (booleans, in the API's words, and the same kinds as above here).
 *
 * Ajv checks a schema in two steps: against `SHAPE` (the form the API allows), then by compiling
 * it as draft-07 (a schema ajv cannot compile is refused too). The compiled schema then checks
 * unsigned claims before conditions see them.
 */

export type AdaptiveSchema = {
  $schema?: string;
  type: 'object';
  properties: Record<string, ClaimProperty>;
  additionalProperties: false;
};

export type ClaimProperty =
  | { type: 'boolean' | 'number'; description: string }
  | { type: 'string'; description: string; enum?: string[] }
  | { type: 'array'; description: string; items: ClaimProperty }
  | { type: 'object'; description: string; properties: Record<string, ClaimProperty>; additionalProperties: false };

const primitive = {
  oneOf: [
    {
      type: 'object',
      properties: { type: { const: 'boolean' }, description: { type: 'string' } },
      required: ['type', 'description'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: { type: { const: 'number' }, description: { type: 'string' } },
      required: ['type', 'description'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'string' },
        description: { type: 'string' },
        enum: { type: 'array', items: { type: 'string' }, minItems: 1, uniqueItems: true },
      },
      required: ['type', 'description'],
      additionalProperties: false,
    },
  ],
};

/** Property names a condition can reach as `visitor.claims.<name>`. */
const NAME = '^[A-Za-z_$][A-Za-z0-9_$]*$';

const SHAPE = {
  $id: 'adaptive-schema-shape',
  definitions: {
    primitive,
    claim: {
      oneOf: [
        { $ref: '#/definitions/primitive' },
        {
          type: 'object',
          properties: {
            type: { const: 'array' },
            description: { type: 'string' },
            items: { $ref: '#/definitions/primitive' },
          },
          required: ['type', 'description', 'items'],
          additionalProperties: false,
        },
        {
          type: 'object',
          properties: {
            type: { const: 'object' },
            description: { type: 'string' },
            properties: { $ref: '#/definitions/claims' },
            additionalProperties: { const: false },
          },
          required: ['type', 'description', 'properties', 'additionalProperties'],
          additionalProperties: false,
        },
      ],
    },
    claims: {
      type: 'object',
      propertyNames: { pattern: NAME, not: { enum: ['constructor', '__proto__', 'prototype'] } },
      additionalProperties: { $ref: '#/definitions/claim' },
      maxProperties: 100,
    },
  },
  type: 'object',
  properties: {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    type: { const: 'object' },
    additionalProperties: { const: false },
    properties: {
      type: 'object',
      propertyNames: { pattern: NAME, not: { enum: ['constructor', '__proto__', 'prototype'] } },
      maxProperties: 100,
      properties: {
        unsigned: {
          type: 'object',
          properties: {
            type: { const: 'object' },
            description: { const: 'Unsigned claims of the site visitor.' },
            properties: { $ref: '#/definitions/claims' },
            additionalProperties: { const: false },
          },
          required: ['type', 'description', 'properties', 'additionalProperties'],
          additionalProperties: false,
        },
      },
      additionalProperties: { $ref: '#/definitions/claim' },
    },
  },
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
};

const ajv = new Ajv({ allErrors: false, strict: true });
const checkShape = ajv.compile(SHAPE);

/** A schema the API does not allow, with the JSON path of the first problem. */
export class AdaptiveSchemaError extends Error {
  override readonly name = 'AdaptiveSchemaError';
}

function describe(error: ErrorObject | undefined, root: string): string {
  if (!error) return `${root} is invalid`;
  const path = `${root}${error.instancePath.replace(/\//g, '.')}`;
  if (error.keyword === 'additionalProperties')
    return `${path} has an unknown property "${String(error.params.additionalProperty)}"`;
  if (error.keyword === 'required') return `${path} lacks "${String(error.params.missingProperty)}"`;
  if (error.keyword === 'const') return `${path} must be ${JSON.stringify(error.params.allowedValue)}`;
  if (error.keyword === 'propertyNames' || error.propertyName !== undefined) {
    return `${path} has a property name a condition cannot reach${error.propertyName ? ` ("${error.propertyName}")` : ''}: letters, digits, "_" and "$", not starting with a digit`;
  }
  if (error.keyword === 'oneOf')
    return `${path} must be a boolean, string, number, array or object claim with a description`;
  return `${path} ${error.message ?? 'is invalid'}`;
}

/** Checks a schema the API allows and that compiles as draft-07; throws `AdaptiveSchemaError`. */
export function checkAdaptiveSchema(schema: unknown): AdaptiveSchema {
  if (!checkShape(schema)) {
    // oneOf reports its alternatives' errors first; the last error is the one of the outer keyword.
    const errors = checkShape.errors ?? [];
    const specific =
      errors.find((error) => error.keyword !== 'oneOf' && error.keyword !== 'const' && error.keyword !== 'type') ??
      errors.at(-1);
    throw new AdaptiveSchemaError(
      describe(errors.find((error) => error.keyword === 'oneOf') ?? specific, 'jsonSchema'),
    );
  }
  try {
    new Ajv({ strict: false }).compile(schema as object);
  } catch (error) {
    throw new AdaptiveSchemaError(`jsonSchema is not a valid JSON Schema: ${(error as Error).message}`);
  }
  return schema as AdaptiveSchema;
}

const compiled = new Map<string, ValidateFunction>();

/**
 * Checks a visitor's unsigned claims against the schema's `unsigned` part; answers the message
 * of the first problem, or undefined when they fit. Without an `unsigned` part, none are allowed.
 */
export function unsignedClaimsProblem(
  schema: AdaptiveSchema | null,
  claims: Record<string, unknown>,
): string | undefined {
  const unsigned = schema?.properties.unsigned as (ClaimProperty & { type: 'object' }) | undefined;
  if (!unsigned) return Object.keys(claims).length ? 'the site accepts no unsigned claims' : undefined;
  const key = JSON.stringify(unsigned);
  let validate = compiled.get(key);
  if (!validate) {
    validate = new Ajv({ strict: false, allErrors: false }).compile(unsigned);
    if (compiled.size > 200) compiled.clear();
    compiled.set(key, validate);
  }
  if (validate(claims)) return undefined;
  return describe(validate.errors?.[0], 'visitor.unsignedClaims');
}

export interface TemplateCondition {
  description: string;
  condition: string;
}

/**
 * Ready-made conditions for the claims a schema describes: a boolean is true, an enum string
 * equals each value, a number is positive, an array has items; nested objects give dotted paths,
 * unsigned claims live under `visitor.claims.unsigned`. Free strings give a non-empty check.
 */
export function templateConditions(schema: AdaptiveSchema): TemplateCondition[] {
  const out: TemplateCondition[] = [];
  const walk = (properties: Record<string, ClaimProperty>, path: string) => {
    for (const [name, property] of Object.entries(properties)) {
      const at = `${path}.${name}`;
      switch (property.type) {
        case 'boolean':
          out.push({ description: property.description, condition: `${at} == true` });
          break;
        case 'string':
          if (property.enum)
            for (const value of property.enum)
              out.push({
                description: `${property.description}: ${value}`,
                condition: `${at} == ${JSON.stringify(value)}`,
              });
          else out.push({ description: property.description, condition: `${at} != undefined && ${at} != ""` });
          break;
        case 'number':
          out.push({ description: property.description, condition: `${at} > 0` });
          break;
        case 'array':
          out.push({ description: property.description, condition: `${at}[0] != undefined` });
          break;
        case 'object':
          walk(property.properties, at);
          break;
      }
    }
  };
  walk(schema.properties, 'visitor.claims');
  return out;
}

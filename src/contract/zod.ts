/**
 * Writes the gateway's side of the contract: a zod schema and a TypeScript type for each component
 * schema the operations reach, and one record per operation (`operationId`, method, path template,
 * parameters, body and answers). Runtime code goes in `.js` with declarations beside it, so the type
 * checker reads the types as written instead of inferring them from thousands of zod expressions.
 *
 * Answers are read leniently, as a gateway must read an upstream it does not own: an optional field
 * may also be `null`, lengths, patterns and ranges are the platform's to enforce, unknown keys are
 * dropped. Component schemas are built on first use (getters), so a process pays only for the shapes
 * it reads.
 */
import type { Description, OperationSpec, Schema } from './description.js';

/**
 * Component schemas the gateway passes on without looking inside, each with why: their trees are
 * the platform's to validate, and parsing them field by field would cost every read.
 */
export const OPAQUE: Record<string, string> = {
  DocumentBlocksTopLevels:
    'document nodes are converted or passed on whole (markdown, text), never read field by field',
  DocumentBlocksEssentials: 'as DocumentBlocksTopLevels',
  DocumentBlock: 'as DocumentBlocksTopLevels',
  DocumentInline: 'as DocumentBlocksTopLevels',
  DocumentText: 'as DocumentBlocksTopLevels',
  DocumentFragment: 'as DocumentBlocksTopLevels',
};

/**
 * Properties the gateway reads only a part of (`Component.property`): that part is checked, the rest
 * is kept as it came, unparsed. Each with why.
 */
export const PARTIAL: Record<string, { zod: string; ts: string; reason: string }> = {
  'ContentLocationRevisionContext.revision': {
    zod: 'z.looseObject({ id: z.string() })',
    ts: '{ id: string; [key: string]: unknown }',
    reason: 'every location of a link report repeats the whole revision; the gateway reads its id',
  },
  // Content: the description allows other keys in a document's data, which dropping unknown keys would lose.
  'JSONDocument.data': {
    zod: 'z.looseObject({ schemaVersion: z.number().int().nullish() })',
    ts: '{ schemaVersion?: number | null; [key: string]: unknown }',
    reason: "a document's data holds other keys beside its schema version (platform-api.md, Document); kept",
  },
};

/**
 * URLs the platform signs, by component and property: whoever holds one may use it without a token,
 * so its signature is what it is for. They are read whole, where every other URL loses the
 * credentials its query or user info carries. Each says where the URL goes.
 */
export const SIGNED_URLS: Record<string, string> = {
  'FontSource.url': 'a font file that browsers load from sites, answered to clients as it is',
  'StorageUploadURL.url': 'where the gateway sends an uploaded file, at once; never answered to clients',
};

const ANNOTATIONS = new Set(['description', 'title', 'deprecated', 'example', 'examples', 'readOnly', 'writeOnly']);
const COMPONENT = '#/components/schemas/';

/** The generated files of the gateway's contract, by name. */
export function gatewayContract(
  description: Description,
  operations: OperationSpec[],
  banner: string,
): Map<string, string> {
  const writer = new ZodWriter(description, operations);
  return new Map([
    ['schemas.js', writer.schemasJs(banner)],
    ['schemas.d.ts', writer.schemasDts(banner)],
    ['types.d.ts', writer.typesDts(banner)],
    ['operations.js', writer.operationsJs(banner)],
    ['operations.d.ts', writer.operationsDts(banner)],
  ]);
}

/** The parts of an `allOf` and an object's own keywords, merged into one object. */
interface Flat {
  properties: Record<string, Schema>;
  required: Set<string>;
  /** Unions found among the parts, intersected with the object. */
  unions: Schema[];
  additional: unknown;
  /** The component each property was declared in, when it was one (for `PARTIAL`). */
  owners: Map<string, string>;
}

class ZodWriter {
  private readonly schemas: Record<string, Schema>;
  /** Component names in reach of the operations, sorted. */
  private readonly names: string[];
  /** Each component schema's name, by the schema object (for `PARTIAL`). */
  private readonly nameOf = new Map<Schema, string>();
  /** Each component's strongly connected component: a reference inside one goes through `z.lazy`. */
  private readonly cycleOf = new Map<string, string>();
  /** The places of `SIGNED_URLS` met while writing the schemas (each must be). */
  private readonly signedUsed = new Set<string>();

  constructor(
    description: Description,
    private readonly operations: OperationSpec[],
  ) {
    this.schemas = description.components.schemas;
    for (const [name, schema] of Object.entries(this.schemas)) this.nameOf.set(schema, name);
    const reached = new Set<string>();
    const todo = operations.flatMap((op) => [
      ...refsIn([op.pathParams, op.query, op.body?.schema, op.answers.map((answer) => answer.schema)]),
    ]);
    while (todo.length > 0) {
      const name = todo.pop()!;
      if (reached.has(name) || OPAQUE[name]) continue;
      if (!this.schemas[name]) throw new Error(`The description refers to a missing schema: ${name}`);
      reached.add(name);
      todo.push(...refsIn(this.schemas[name]));
    }
    this.names = [...reached].sort();
    this.findCycles();
  }

  schemasJs(banner: string): string {
    const getters = this.names.map(
      (name) =>
        `  get ${ident(name)}() {\n    return keep(this, ${lit(ident(name))}, ${this.zod(this.schemas[name]!, name)});\n  },\n`,
    );
    const unused = Object.keys(SIGNED_URLS).filter((place) => !this.signedUsed.has(place));
    if (unused.length > 0) throw new Error(`SIGNED_URLS names no URL of the description at ${unused.join(', ')}`);
    return `${banner}import { z } from 'zod';\nimport { keep, tagged, url } from '../formats.js';\n\n/** Every component schema the operations reach, built on first use. */\nexport const S = {\n${getters.join('')}};\n`;
  }

  schemasDts(banner: string): string {
    const fields = this.names.map((name) => `  readonly ${ident(name)}: z.ZodType<T.${ident(name)}>;\n`);
    return `${banner}import type { z } from 'zod';\nimport type * as T from './types.js';\n\nexport declare const S: {\n${fields.join('')}};\n`;
  }

  typesDts(banner: string): string {
    const types = this.names.map((name) => {
      const schema = this.schemas[name]!;
      const doc = typeof schema.description === 'string' ? jsdoc(schema.description) : '';
      return `${doc}export type ${ident(name)} = ${this.ts(schema)};\n`;
    });
    const opaque = Object.keys(OPAQUE).map(
      (name) => `/** Passed on whole: ${OPAQUE[name]}. */\nexport type ${ident(name)} = unknown;\n`,
    );
    return `${banner}\n${[...types, ...opaque].join('')}`;
  }

  operationsJs(banner: string): string {
    const records = this.operations.map((op) => {
      const query = op.query.length
        ? this.objectOf(op.query.map((p) => [p.name, p.schema ?? {}, p.required === true]))
        : 'undefined';
      const answers = op.answers.map(({ status, schema }) => `${status}: ${schema ? this.zod(schema) : 'undefined'}`);
      return [
        `export const ${op.operationId} = {`,
        `  operationId: ${lit(op.operationId)},`,
        `  method: ${lit(op.method)},`,
        `  path: ${lit(op.path)},`,
        `  pathParams: ${lit(op.pathParams.map((p) => p.name))},`,
        `  queryParams: ${lit(op.query.map((p) => p.name))},`,
        `  tags: ${lit(op.tags)},`,
        `  get query() {\n    return keep(this, 'query', ${query});\n  },`,
        `  get body() {\n    return keep(this, 'body', ${op.body ? this.zod(op.body.schema) : 'undefined'});\n  },`,
        `  get answers() {\n    return keep(this, 'answers', { ${answers.join(', ')} });\n  },`,
        '};\n',
      ].join('\n');
    });
    const all = `/** Every operation of the description, in the order of its paths. */\nexport const OPERATIONS = [${this.operations.map((op) => op.operationId).join(', ')}];\n`;
    return `${banner}import { z } from 'zod';\nimport { S } from './schemas.js';\nimport { keep, tagged, url } from '../formats.js';\n\n${records.join('\n')}\n${all}`;
  }

  operationsDts(banner: string): string {
    const records = this.operations.map((op) => {
      const path = op.pathParams.map((p) => lit(p.name)).join(' | ') || 'never';
      const query = op.query.length
        ? `{ ${op.query.map((p) => `${key(p.name)}${p.required ? '' : '?'}: ${this.ts(p.schema ?? {}, 'T.')}`).join('; ')} }`
        : 'never';
      const body = op.body ? this.ts(op.body.schema, 'T.') : 'never';
      const answers = op.answers.map(
        ({ status, schema }) => `${status}: ${schema ? this.ts(schema, 'T.') : 'undefined'}`,
      );
      const doc = jsdoc(`\`${op.method} ${op.path}\`${op.summary ? `: ${op.summary}` : ''}`);
      return `${doc}export declare const ${op.operationId}: Operation<${path}, ${query}, ${body}, { ${answers.join('; ')} }>;\n`;
    });
    return `${banner}import type { Operation } from '../record.js';\nimport type * as T from './types.js';\n\n${records.join('')}\n/** Every operation of the description, in the order of its paths. */\nexport declare const OPERATIONS: ReadonlyArray<Operation>;\n`;
  }

  // --- schema → zod ------------------------------------------------------------------------------

  /** The zod expression of `schema`; `from` is the component being written (for references in a cycle). */
  private zod(schema: Schema | boolean | undefined, from?: string): string {
    if (schema === false) return 'z.never()';
    if (schema === undefined || schema === true || isEmpty(schema)) return 'z.unknown()';
    if (typeof schema.$ref === 'string') return this.reference(schema.$ref, from);
    const expression = this.zodBase(schema, from);
    return schema.default !== undefined ? `${expression}.default(${lit(schema.default)})` : expression;
  }

  private reference(ref: string, from: string | undefined): string {
    const name = ref.slice(COMPONENT.length);
    if (OPAQUE[name]) return 'z.unknown()';
    const target = `S.${ident(name)}`;
    return from !== undefined && this.cycleOf.get(from) === this.cycleOf.get(name) ? `z.lazy(() => ${target})` : target;
  }

  private zodBase(schema: Schema, from: string | undefined): string {
    if (Array.isArray(schema.enum)) return enumOf(schema.enum);
    if ('const' in schema) return `z.literal(${lit(schema.const)})`;
    if (Array.isArray(schema.type)) {
      const types = (schema.type as string[]).filter((type) => type !== 'null');
      const each = types.map((type) => this.zodBase({ ...schema, type }, from));
      const expression = each.length === 1 ? each[0]! : `z.union([${each.join(', ')}])`;
      return types.length < schema.type.length ? `${expression}.nullable()` : expression;
    }
    const union = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (union && !schema.properties && !schema.allOf) return this.union(union, schema, from);
    if (schema.allOf || union) {
      const flat = this.flatten(schema);
      return [this.object(flat, from), ...flat.unions.map((part) => this.zodBase(this.resolve(part), from))].reduce(
        (all, part) => `z.intersection(${all}, ${part})`,
      );
    }
    switch (schema.type) {
      case 'string':
        return schema.format === 'uri' ? 'url' : 'z.string()';
      case 'integer':
        return 'z.number().int()';
      case 'number':
        return 'z.number()';
      case 'boolean':
        return 'z.boolean()';
      case 'null':
        return 'z.null()';
      case 'array':
        return `z.array(${this.zod(schema.items as Schema, from)})`;
      default:
        return this.object(this.flatten(schema), from);
    }
  }

  private union(members: Schema[], schema: Schema, from: string | undefined): string {
    const present = members.filter((member) => this.resolve(member).type !== 'null');
    const nullable = present.length < members.length ? '.nullable()' : '';
    if (present.length === 1) return this.zod(present[0], from) + nullable;
    const options = present.map((member) => this.zod(member, from)).join(', ');
    // zod picks a member by its tag among plain objects only (an intersection has no shape to read it from).
    const tag = present.every((member) => this.isPlainObject(member))
      ? ((schema.discriminator as { propertyName?: string } | undefined)?.propertyName ?? this.tagOf(present))
      : undefined;
    return (tag ? `tagged(${lit(tag)}, [${options}])` : `z.union([${options}])`) + nullable;
  }

  private object(flat: Flat, from: string | undefined): string {
    const entries = Object.entries(flat.properties);
    const extra = this.additional(flat.additional, entries.length === 0, (value) => this.zod(value, from));
    if (entries.length === 0 && extra) return `z.record(z.string(), ${extra})`;
    const fields = entries.map(([name, property]) => {
      const optional = flat.required.has(name) || property.default !== undefined ? '' : '.nullish()';
      const owner = flat.owners.get(name);
      const partial = PARTIAL[`${owner}.${name}`];
      const read = partial ? partial.zod : (this.signed(owner, name, property) ?? this.zod(property, from));
      return `${key(name)}: ${read}${optional}`;
    });
    const catchall = extra && extra !== 'z.unknown()' ? `.catchall(${extra})` : '';
    return `z.object({ ${fields.join(', ')} })${catchall}`;
  }

  /** `z.string()` for a property `SIGNED_URLS` names (a URL read whole); undefined for any other. */
  private signed(owner: string | undefined, name: string, property: Schema): string | undefined {
    const place = `${owner}.${name}`;
    if (owner === undefined || !SIGNED_URLS[place]) return undefined;
    const target = typeof property.$ref === 'string' ? this.resolve(property) : property;
    if (target.type !== 'string' || target.format !== 'uri') throw new Error(`SIGNED_URLS: ${place} is not a URL`);
    this.signedUsed.add(place);
    return 'z.string()';
  }

  private objectOf(fields: Array<[name: string, schema: Schema, required: boolean]>): string {
    return `z.object({ ${fields.map(([name, schema, required]) => `${key(name)}: ${this.zod(schema)}${required ? '' : '.optional()'}`).join(', ')} })`;
  }

  /** What an object holds besides its properties, if anything: an expression, or undefined. */
  private additional(additional: unknown, empty: boolean, write: (schema: Schema) => string): string | undefined {
    if (additional === false) return undefined;
    if (additional === true || (additional === undefined && empty)) return write({});
    if (typeof additional === 'object' && additional !== null) return write(additional as Schema);
    return undefined;
  }

  // --- schema → TypeScript ------------------------------------------------------------------------

  /** The TypeScript type of `schema`; references are prefixed with `prefix` (`T.` outside types.d.ts). */
  private ts(schema: Schema | boolean | undefined, prefix = ''): string {
    if (schema === false) return 'never';
    if (schema === undefined || schema === true || isEmpty(schema)) return 'unknown';
    if (typeof schema.$ref === 'string') return prefix + ident(schema.$ref.slice(COMPONENT.length));
    if (Array.isArray(schema.enum)) return schema.enum.map(lit).join(' | ');
    if ('const' in schema) return lit(schema.const);
    if (Array.isArray(schema.type))
      return (schema.type as string[])
        .map((type) => (type === 'null' ? 'null' : this.ts({ ...schema, type }, prefix)))
        .join(' | ');
    const union = (schema.oneOf ?? schema.anyOf) as Schema[] | undefined;
    if (union && !schema.properties && !schema.allOf)
      return union.map((member) => `(${this.ts(member, prefix)})`).join(' | ');
    if (schema.allOf || union) {
      const flat = this.flatten(schema);
      return [
        this.tsObject(flat, prefix),
        ...flat.unions.map((part) => `(${this.ts(this.resolve(part), prefix)})`),
      ].join(' & ');
    }
    switch (schema.type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return `Array<${this.ts(schema.items as Schema, prefix)}>`;
      default:
        return this.tsObject(this.flatten(schema), prefix);
    }
  }

  private tsObject(flat: Flat, prefix: string): string {
    const entries = Object.entries(flat.properties);
    const extra = this.additional(flat.additional, entries.length === 0, (value) => this.ts(value, prefix));
    if (entries.length === 0 && extra) return `{ [key: string]: ${extra} }`;
    const fields = entries.map(([name, property]) => {
      const doc = typeof property.description === 'string' ? jsdoc(property.description, '  ') : '';
      const required = flat.required.has(name) || property.default !== undefined;
      const partial = PARTIAL[`${flat.owners.get(name)}.${name}`];
      const type = partial ? partial.ts : this.ts(property, prefix);
      return `${doc}  ${key(name)}${required ? '' : '?'}: ${type}${required ? '' : ' | null'};\n`;
    });
    const object = `{\n${fields.join('')}}`;
    return extra && extra !== 'unknown' ? `${object} & { [key: string]: ${extra} }` : object;
  }

  // --- shared walks --------------------------------------------------------------------------------

  private resolve(schema: Schema): Schema {
    return typeof schema.$ref === 'string' ? (this.schemas[schema.$ref.slice(COMPONENT.length)] ?? {}) : schema;
  }

  /** An object's properties and required keys, gathered through its `allOf` parts. */
  private flatten(
    schema: Schema,
    flat: Flat = { properties: {}, required: new Set(), unions: [], additional: undefined, owners: new Map() },
  ): Flat {
    const resolved = this.resolve(schema);
    for (const part of (resolved.allOf as Schema[] | undefined) ?? []) this.flatten(part, flat);
    Object.assign(flat.properties, resolved.properties ?? {});
    const owner = this.nameOf.get(resolved);
    if (owner) for (const name of Object.keys(resolved.properties ?? {})) flat.owners.set(name, owner);
    for (const name of (resolved.required as string[] | undefined) ?? []) flat.required.add(name);
    const union = resolved.oneOf ?? resolved.anyOf;
    if (union) flat.unions.push(resolved.properties ? { oneOf: union, discriminator: resolved.discriminator } : schema);
    if (resolved.additionalProperties !== undefined && flat.additional === undefined)
      flat.additional = resolved.additionalProperties;
    return flat;
  }

  private isPlainObject(member: Schema): boolean {
    const resolved = this.resolve(member);
    if (resolved.oneOf || resolved.anyOf) return false;
    if (resolved.type !== 'object' && !resolved.properties && !resolved.allOf) return false;
    return this.flatten(member).unions.length === 0;
  }

  /** The property every member requires with distinct single values, if there is one: the union's tag. */
  private tagOf(members: Schema[]): string | undefined {
    const flats = members.map((member) => this.flatten(member));
    const valuesOf = (flat: Flat, name: string) => {
      if (!flat.required.has(name)) return undefined;
      const property = flat.properties[name] && this.resolve(flat.properties[name]);
      if (!property) return undefined;
      return Array.isArray(property.enum)
        ? (property.enum as unknown[])
        : 'const' in property
          ? [property.const]
          : undefined;
    };
    return Object.keys(flats[0]?.properties ?? {}).find((name) => {
      const values = flats.map((flat) => valuesOf(flat, name));
      if (!values.every(Boolean)) return false;
      const all = values.flat();
      return new Set(all).size === all.length;
    });
  }

  /** Tarjan's strongly connected components over the references between components. */
  private findCycles(): void {
    let counter = 0;
    const index = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const visit = (name: string) => {
      index.set(name, counter);
      low.set(name, counter);
      counter += 1;
      stack.push(name);
      for (const next of refsIn(this.schemas[name])) {
        if (OPAQUE[next]) continue;
        if (!index.has(next)) {
          visit(next);
          low.set(name, Math.min(low.get(name)!, low.get(next)!));
        } else if (!this.cycleOf.has(next)) {
          low.set(name, Math.min(low.get(name)!, index.get(next)!));
        }
      }
      if (low.get(name) !== index.get(name)) return;
      let member: string;
      do {
        member = stack.pop()!;
        this.cycleOf.set(member, name);
      } while (member !== name);
    };
    for (const name of this.names) if (!index.has(name)) visit(name);
  }
}

/** The component schemas `value` refers to (examples and defaults are data, not schemas). */
function refsIn(value: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    const ref = (value as Schema).$ref;
    if (typeof ref === 'string' && ref.startsWith(COMPONENT)) found.add(ref.slice(COMPONENT.length));
    for (const [keyword, inner] of Object.entries(value)) {
      if (keyword === 'example' || keyword === 'examples' || keyword === 'default' || keyword === 'enum') continue;
      if (keyword === 'properties') for (const property of Object.values(inner as object)) refsIn(property, found);
      else refsIn(inner, found);
    }
  }
  return found;
}

function isEmpty(schema: Schema): boolean {
  return Object.keys(schema).every((keyword) => ANNOTATIONS.has(keyword) || keyword.startsWith('x-'));
}

function enumOf(values: unknown[]): string {
  const present = values.filter((value) => value !== null);
  const expression =
    present.length === 1
      ? `z.literal(${lit(present[0])})`
      : present.every((value) => typeof value === 'string')
        ? `z.enum(${lit(present)})`
        : `z.union([${present.map((value) => `z.literal(${lit(value)})`).join(', ')}])`;
  return present.length < values.length ? `${expression}.nullable()` : expression;
}

const ident = (name: string) => name.replace(/[^A-Za-z0-9_$]/g, '_');
const lit = (value: unknown) => JSON.stringify(value);
const key = (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : lit(name));

function jsdoc(text: string, indent = ''): string {
  const lines = text.replaceAll('*/', '*\\/').trim().split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

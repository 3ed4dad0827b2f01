import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  SchemaMetaFieldDef,
  TypeMetaFieldDef,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
  type DocumentNode,
} from 'graphql';
import { GatewayError } from '../errors.js';
import { DEFAULT_PAGE_SIZE, type GatewayLimits } from './limits.js';
import { isItemCursor, MAX_BACKWARD_PAGES } from './connection-cursors.js';

/**
 * What a field costs the upstream, declared on the field as `extensions: { upstream }` (with the
 * schema kit's `upstream`, see schema/kit/upstream-cost.ts). Fields without it cost nothing (they read their parent's body), except
 * connections (one page per parent object) and root fields (one request).
 */
export interface UpstreamCost {
  /** Upstream requests per parent object (per item with `perItem`), at most; a function of the field's arguments. */
  requests: number | ((args: Record<string, unknown>) => number);
  /** For a list field: `requests` is per item of the list, not per resolution of the field. */
  perItem?: boolean;
  /** A link by id: free when only `id`, `platformId` or `__typename` are selected of the target. */
  link?: boolean;
  /**
   * Items of a list field, at most, when the field returns a list (its items each cost
   * `requests`, and multiply what is selected in them); a function of the arguments.
   */
  items?: number | ((args: Record<string, unknown>) => number);
  /**
   * A subscription field: `requests` are the reads of what it follows, made for its first event
   * only (later events come from the shared poll); see `OperationCost.followRequests`.
   */
  follow?: boolean;
  /**
   * A subscription field whose every event resolves its object as a link does: one request more,
   * none when only key fields are selected of it.
   */
  eventLink?: boolean;
}

/** Fields of a node that need nothing but its key: all a `link` may be asked for and stay free. */
const KEY_FIELDS: ReadonlySet<string> = new Set(['id', 'platformId', '__typename']);

/** The fields of a connection asked only for its size. */
const COUNT_FIELDS: ReadonlySet<string> = new Set(['totalCount', '__typename']);

/**
 * True when `selectionSet` selects nothing but key fields (`id`, `platformId`, `__typename`
 * unless told), looking through fragments: the cost model then counts a `link` as free, and its
 * resolver answers from the key (see `selectsOnlyKeys`).
 */

export function onlyKeys(
  selectionSet: SelectionSetNode | undefined,
  fragments: Record<string, FragmentDefinitionNode>,
  keyFields: ReadonlySet<string> = KEY_FIELDS,
  seen: Set<string> = new Set(),
): boolean {
  if (!selectionSet) return true;
  return selectionSet.selections.every((selection) => {
    switch (selection.kind) {
      case 'Field':
        return keyFields.has((selection as FieldNode).name.value);
      case 'InlineFragment':
        return onlyKeys(selection.selectionSet, fragments, keyFields, seen);
      case 'FragmentSpread': {
        const name = selection.name.value;
        if (seen.has(name)) return true;
        seen.add(name);
        const fragment = fragments[name];
        return fragment ? onlyKeys(fragment.selectionSet, fragments, keyFields, seen) : false;
      }
      default:
        return false;
    }
  });
}

/** The `extensions` of a field, as the cost analysis reads them. */
export interface CostExtensions {
  upstream?: UpstreamCost;
}

/**
 * Items assumed for a list field that is neither a connection nor declares `items`: such lists
 * come inside their parent's body, so they cost no request themselves and are not counted in
 * `nodes`; this only multiplies what their items select.
 */
export const DEFAULT_LIST_ITEMS = 10;

/** What an operation may cost, computed from its document and variables before it runs. */
export interface OperationCost {
  /** Upper bound of the objects the answer can hold: each connection's `first` times its parent's bound. */
  nodes: number;
  /** Upper bound of the upstream requests (links deduplicate at run time, so fewer are usually made). */
  maxUpstreamRequests: number;
  /**
   * Of `maxUpstreamRequests`, the first reads of what a subscription follows: its first event
   * makes them, its later ones come from the shared poll, so their bound is the rest.
   */
  followRequests: number;
  /** Deepest nesting of fields. */
  depth: number;
  /** Fields with an alias. */
  aliases: number;
  /** Fields at the root of the operation. */
  rootFields: number;
  /**
   * True when `maxUpstreamRequests` counts a list whose length only the answer tells (a
   * revision's pages, a page's children, …) as `DEFAULT_LIST_ITEMS` items while its items make
   * requests: the bound then holds for lists up to that length and is an estimate beyond. Also
   * when a connection resumes after the cursor of a create's new edge, which names the item: its
   * list is read from the start, and the bound holds while the item is among its first 1000.
   */
  estimated: boolean;
  /**
   * True when the operation reads the schema (`__schema` or `__type`): answered by the gateway
   * alone, without an upstream request, its size counted as it resolves (see `hookFields`).
   */
  introspection: boolean;
}

/** The cost of an operation that selects nothing: where a walk starts, and what an answer without one reports. */
export const NO_COST: Readonly<OperationCost> = {
  nodes: 0,
  maxUpstreamRequests: 0,
  followRequests: 0,
  depth: 0,
  aliases: 0,
  rootFields: 0,
  estimated: false,
  introspection: false,
};

interface Walk {
  schema: GraphQLSchema;
  fragments: Record<string, FragmentDefinitionNode>;
  /** The value of a variable, noting that the walk read it. */
  variable(name: string): unknown;
  cost: OperationCost;
}

/** A cost computed before, valid for any variables with the same values of those the walk read. */
interface KnownCost {
  read: string[];
  values: string;
  cost: OperationCost | undefined;
}

/** Costs kept for each operation of a document (besides the most recent, older variables fall out). */
const MAX_KNOWN_COSTS = 8;

// By document (the parser's cache hands the same one for the same text), then by schema and
// operation name: what a walk depends on besides the variables it read.
const knownCosts = new WeakMap<DocumentNode, WeakMap<GraphQLSchema, Map<string, KnownCost[]>>>();

/**
 * Computes the cost of the operation `operationName` of a valid document. Returns undefined when
 * the document holds no such operation (execution reports that itself). Kept per document: a
 * repeated operation is walked again only when a variable the walk read has another value.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): OperationCost | undefined {
  const values = variables ?? {};
  // A variable left out and one given as null differ (the first takes an argument's default). Only
  // scalar values make a key: a list or an object (of any size or depth, a caller's choice) is
  // walked again rather than serialized.
  const valuesOf = (names: string[]): string | undefined => {
    const key: unknown[] = [];
    for (const name of names) {
      const value = values[name];
      if (typeof value === 'object' && value !== null) return undefined;
      key.push(value === undefined ? 0 : [value]);
    }
    return JSON.stringify(key);
  };
  let bySchema = knownCosts.get(document);
  if (!bySchema) {
    bySchema = new WeakMap();
    knownCosts.set(document, bySchema);
  }
  let byOperation = bySchema.get(schema);
  if (!byOperation) {
    byOperation = new Map();
    bySchema.set(schema, byOperation);
  }
  const known = byOperation.get(operationName ?? '') ?? [];
  const hit = known.find((entry) => valuesOf(entry.read) === entry.values);
  if (hit) return hit.cost;
  const read = new Set<string>();
  const cost = walkOperation(schema, document, operationName, (name) => {
    read.add(name);
    return values[name];
  });
  const names = [...read];
  const key = valuesOf(names);
  if (key === undefined) return cost;
  known.unshift({ read: names, values: key, cost });
  if (known.length > MAX_KNOWN_COSTS) known.pop();
  byOperation.set(operationName ?? '', known);
  return cost;
}

function walkOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variable: (name: string) => unknown,
): OperationCost | undefined {
  const fragments: Record<string, FragmentDefinitionNode> = {};
  let operation: OperationDefinitionNode | undefined;
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments[definition.name.value] = definition;
    else if (definition.kind === Kind.OPERATION_DEFINITION) {
      operations += 1;
      if (operationName ? definition.name?.value === operationName : operations === 1) operation = definition;
    }
  }
  if (!operation || (!operationName && operations > 1)) return undefined;
  const root = schema.getRootType(operation.operation);
  if (!root) return undefined;
  const walk: Walk = {
    schema,
    fragments,
    variable,
    cost: { ...NO_COST },
  };
  walk.cost.rootFields = countFields(operation.selectionSet, walk, new Set());
  visit(operation.selectionSet, root, 1, 1, true, walk, new Set());
  return walk.cost;
}

/** The error refusing an operation whose cost exceeds a limit; undefined when it fits. */
export function exceededLimit(cost: OperationCost, limits: GatewayLimits): GatewayError | undefined {
  const refuse = (limit: string, value: number, max: number, message: string) => {
    const error = new GatewayError('BAD_USER_INPUT', message);
    Object.assign(error.extensions, { limit, value, max });
    return error;
  };
  if (cost.depth > limits.maxDepth) {
    return refuse(
      'depth',
      cost.depth,
      limits.maxDepth,
      `Query too deep: its depth is ${cost.depth}, the limit is ${limits.maxDepth}; nest fewer levels`,
    );
  }
  if (cost.rootFields > limits.maxRootFields) {
    return refuse(
      'rootFields',
      cost.rootFields,
      limits.maxRootFields,
      `Too many root fields: ${cost.rootFields}, the limit is ${limits.maxRootFields}; split the operation in several`,
    );
  }
  if (cost.aliases > limits.maxAliases) {
    return refuse(
      'aliases',
      cost.aliases,
      limits.maxAliases,
      `Too many aliases: ${cost.aliases}, the limit is ${limits.maxAliases}; use fewer aliased fields or split the operation`,
    );
  }
  if (cost.nodes > limits.maxNodes) {
    return refuse(
      'nodes',
      cost.nodes,
      limits.maxNodes,
      `Query too large: it can return up to ${cost.nodes} objects (each connection counts its \`first\`, 50 when left out, times the objects above it), the limit is ${limits.maxNodes}; give nested connections a smaller \`first\``,
    );
  }
  return undefined;
}

/** Number of fields a selection set selects directly (through fragments), for root fields. */
function countFields(selectionSet: SelectionSetNode, walk: Walk, seen: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (!included(selection.directives, walk)) continue;
    if (selection.kind === Kind.FIELD) count += 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countFields(selection.selectionSet, walk, seen);
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = walk.fragments[selection.name.value];
      if (fragment) count += countFields(fragment.selectionSet, walk, seen);
    }
  }
  return count;
}

/**
 * Adds what `selectionSet`, selected on `type` once for each of `multiplier` objects at `depth`,
 * costs. `root` marks the operation's root selection. `expanded` holds the fragments already
 * expanded for these objects: as in execution, a fragment spread twice on the same objects
 * selects its fields once (which also keeps the walk linear in the document).
 */
function visit(
  selectionSet: SelectionSetNode,
  type: GraphQLCompositeType,
  multiplier: number,
  depth: number,
  root: boolean,
  walk: Walk,
  expanded: Set<string>,
): void {
  for (const selection of selectionSet.selections) {
    if (!included(selection.directives, walk)) continue;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const narrowed = selection.typeCondition ? walk.schema.getType(selection.typeCondition.name.value) : type;
      visit(
        selection.selectionSet,
        (narrowed ?? type) as GraphQLCompositeType,
        multiplier,
        depth,
        root,
        walk,
        expanded,
      );
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      const fragment = walk.fragments[name];
      if (!fragment || expanded.has(name)) continue;
      expanded.add(name);
      const narrowed = walk.schema.getType(fragment.typeCondition.name.value) ?? type;
      visit(fragment.selectionSet, narrowed as GraphQLCompositeType, multiplier, depth, root, walk, expanded);
      continue;
    }
    visitField(selection, type, multiplier, depth, root, walk);
  }
}

function visitField(
  node: FieldNode,
  parent: GraphQLCompositeType,
  multiplier: number,
  depth: number,
  root: boolean,
  walk: Walk,
): void {
  const { cost } = walk;
  if (node.alias && node.alias.value !== node.name.value) cost.aliases += 1;
  cost.depth = Math.max(cost.depth, depth);
  if (node.name.value.startsWith('__')) {
    // The schema's own fields make no upstream request, but their nesting and aliases count like
    // any field's: a deep introspection is as deep as any other query.
    const meta = INTROSPECTION_FIELDS.get(node.name.value);
    if (!meta || !node.selectionSet) return;
    cost.introspection = true;
    visit(
      node.selectionSet,
      getNamedType(meta.type) as GraphQLCompositeType,
      multiplier,
      depth + 1,
      false,
      walk,
      new Set(),
    );
    return;
  }
  const field = 'getFields' in parent ? parent.getFields()[node.name.value] : undefined;
  if (!field) return;
  const args = argumentValues(field, node, walk.variable);
  const declared = (field.extensions as CostExtensions | undefined)?.upstream;
  const target = getNamedType(field.type);
  const connection = isConnectionType(target);

  let requests = root ? 1 : 0;
  if (connection) requests = args.after ? 2 : 1;
  // A cursor naming an item (a create's new edge) has its list read from the start, a page of 1000
  // at a time, until that item: 2 requests hold while it is among the first 1000.
  if (connection && isItemCursor(args.after)) cost.estimated = true;
  if (declared) {
    requests = declared.link && onlyKeys(node.selectionSet, walk.fragments) ? 0 : evaluate(declared.requests, args);
    if (declared.follow) cost.followRequests += multiplier * requests;
    if (declared.eventLink && !onlyKeys(node.selectionSet, walk.fragments)) requests += 1;
  }
  // Paged backward, the list is read from its start (at most MAX_BACKWARD_PAGES pages), after a
  // read of the page `before` names.
  const backward = connection && (args.last != null || args.before != null);
  // A backward page asked only for its count reads one item, as a forward one does (the kit's count-only rule).
  const countOnly = onlyKeys(node.selectionSet, walk.fragments, COUNT_FIELDS);
  if (backward && args.last !== 0 && !countOnly) requests += MAX_BACKWARD_PAGES - 1 + (args.before ? 1 : 0);
  const list = isListType(getNullableType(field.type));
  const sized = list && declared?.items !== undefined;
  const items = list ? (sized ? evaluate(declared.items!, args) : DEFAULT_LIST_ITEMS) : 1;
  const before = cost.maxUpstreamRequests;
  cost.maxUpstreamRequests += multiplier * requests * (declared?.perItem ? items : 1);
  if (sized && node.selectionSet) cost.nodes += multiplier * items;
  if (!node.selectionSet) {
    if (list && !sized && declared?.perItem && cost.maxUpstreamRequests > before) cost.estimated = true;
    return;
  }

  if (connection) {
    const size = backward ? args.last : args.first;
    const first = typeof size === 'number' ? Math.max(0, size) : DEFAULT_PAGE_SIZE;
    visitConnection(node.selectionSet, target as GraphQLCompositeType, multiplier, first, depth + 1, walk);
    return;
  }
  const beforeItems = cost.maxUpstreamRequests;
  visit(node.selectionSet, target as GraphQLCompositeType, multiplier * items, depth + 1, false, walk, new Set());
  const itemsRequest =
    cost.maxUpstreamRequests > beforeItems || (declared?.perItem && cost.maxUpstreamRequests > before);
  if (list && !sized && itemsRequest) cost.estimated = true;
}

/** The root fields that read the schema (`__typename` reads nothing). */
const INTROSPECTION_FIELDS: ReadonlyMap<string, GraphQLField<unknown, unknown>> = new Map([
  [SchemaMetaFieldDef.name, SchemaMetaFieldDef],
  [TypeMetaFieldDef.name, TypeMetaFieldDef],
]);

/**
 * A connection's own fields: `edges` and `nodes` hold `first` objects (counted once, whichever
 * are selected), `pageInfo` and `totalCount` one.
 */
function visitConnection(
  selectionSet: SelectionSetNode,
  type: GraphQLCompositeType,
  multiplier: number,
  first: number,
  depth: number,
  walk: Walk,
): void {
  const { cost } = walk;
  const fields = (type as { getFields(): Record<string, GraphQLField<unknown, unknown>> }).getFields();
  let itemsCounted = false;
  const expanded = new Set<string>();
  const eachField = (set: SelectionSetNode) => {
    for (const selection of set.selections) {
      if (!included(selection.directives, walk)) continue;
      if (selection.kind === Kind.INLINE_FRAGMENT) {
        eachField(selection.selectionSet);
        continue;
      }
      if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const fragment = walk.fragments[selection.name.value];
        if (fragment && !expanded.has(selection.name.value)) {
          expanded.add(selection.name.value);
          eachField(fragment.selectionSet);
        }
        continue;
      }
      if (selection.alias && selection.alias.value !== selection.name.value) cost.aliases += 1;
      cost.depth = Math.max(cost.depth, depth);
      const name = selection.name.value;
      if ((name !== 'edges' && name !== 'nodes') || !selection.selectionSet) continue;
      if (!itemsCounted) cost.nodes += multiplier * first;
      itemsCounted = true;
      const itemType = getNamedType(fields[name]!.type) as GraphQLCompositeType;
      visit(selection.selectionSet, itemType, multiplier * first, depth + 1, false, walk, new Set());
    }
  };
  eachField(selectionSet);
}

/** A connection type: a page with `edges` and `pageInfo`. */
export function isConnectionType(type: GraphQLNamedType): boolean {
  if (!isObjectType(type)) return false;
  const fields = type.getFields();
  return 'edges' in fields && 'pageInfo' in fields;
}

function evaluate(value: number | ((args: Record<string, unknown>) => number), args: Record<string, unknown>): number {
  const result = typeof value === 'function' ? value(args) : value;
  return Number.isFinite(result) && result > 0 ? result : 0;
}

/** True unless `@skip(if: true)` or `@include(if: false)` leaves the selection out. */
function included(directives: FieldNode['directives'], walk: Walk): boolean {
  if (!directives) return true;
  for (const directive of directives) {
    const name = directive.name.value;
    if (name !== 'skip' && name !== 'include') continue;
    const argument = directive.arguments?.find((arg) => arg.name.value === 'if');
    const value = argument ? literal(argument.value, walk.variable) : undefined;
    if (name === 'skip' && value === true) return false;
    if (name === 'include' && value === false) return false;
  }
  return true;
}

/**
 * The arguments of a field as far as the cost needs them: literals, variables and defaults. Each
 * given one is read when the cost asks for it, so that a variable the cost never needs (an id)
 * leaves the cost cached for any of its values.
 */
function argumentValues(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variable: Walk['variable'],
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const arg of field.args) if (arg.defaultValue !== undefined) values[arg.name] = arg.defaultValue;
  for (const arg of node.arguments ?? []) {
    const name = arg.name.value;
    const fallback = values[name];
    Object.defineProperty(values, name, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = literal(arg.value, variable);
        return value === undefined ? fallback : value;
      },
    });
  }
  return values;
}

function literal(value: ValueNode, variable: Walk['variable']): unknown {
  switch (value.kind) {
    case Kind.VARIABLE:
      return variable(value.name.value);
    case Kind.INT:
    case Kind.FLOAT:
      return Number(value.value);
    case Kind.STRING:
    case Kind.ENUM:
    case Kind.BOOLEAN:
      return value.value;
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return value.values.map((item) => literal(item, variable));
    case Kind.OBJECT:
      return Object.fromEntries(value.fields.map((field) => [field.name.value, literal(field.value, variable)]));
    default:
      return undefined;
  }
}

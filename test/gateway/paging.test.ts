import {
  getNamedType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  isInterfaceType,
  isLeafType,
  isNonNullType,
  isObjectType,
  isUnionType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/gateway/schema/index.js';
import { startTestGateway, type TestGateway } from '../fixtures/gateway.js';

let g: TestGateway;

beforeAll(async () => {
  g = await startTestGateway();
});

afterAll(() => g?.destroy());

/** A page of a connection as every paging check reads it. */
const PAGE = 'totalCount edges { cursor } pageInfo { hasNextPage hasPreviousPage endCursor }';

interface PageAnswer {
  totalCount: number;
  edges: Array<{ cursor: string }>;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
}

/** Connections of different kinds: a root list, REST lists with filters, a held list, a search. */
const COUNTED: Array<{ name: string; query: (args: string) => string; at: (data: any) => PageAnswer }> = [
  { name: 'Query.organizations', query: (a) => `{ organizations(${a}) { ${PAGE} } }`, at: (d) => d.organizations },
  {
    name: 'Organization.spaces',
    query: (a) => `{ organization(id: "acme") { spaces(${a}) { ${PAGE} } } }`,
    at: (d) => d.organization.spaces,
  },
  {
    name: 'Organization.members',
    query: (a) => `{ organization(id: "acme") { members(${a}) { ${PAGE} } } }`,
    at: (d) => d.organization.members,
  },
  {
    name: 'Organization.search',
    query: (a) => `{ organization(id: "acme") { search(query: "install", ${a}) { ${PAGE} } } }`,
    at: (d) => d.organization.search,
  },
  {
    name: 'Space.changeRequests',
    query: (a) => `{ space(id: "${g.platform.spaceId('Getting started')}") { changeRequests(${a}) { ${PAGE} } } }`,
    at: (d) => d.space.changeRequests,
  },
  {
    name: 'Revision.files',
    query: (a) => `{ space(id: "${g.platform.spaceId('Company handbook')}") { content { files(${a}) { ${PAGE} } } } }`,
    at: (d) => d.space.content.files,
  },
];

describe('first: 0', () => {
  it.each(COUNTED)('$name only counts: no edge, hasNextPage false, so a paging loop ends', async ({ query, at }) => {
    const whole = await g.gql(query('first: 1000'));
    expect(whole.errors).toBeUndefined();
    const items = at(whole.data).edges.length;
    expect(items).toBeGreaterThan(1);

    // What a client's `while (hasNextPage)` loop does, bounded here so that a regression fails instead of hanging.
    const pages: PageAnswer[] = [];
    let after: string | null = null;
    do {
      const result = await g.gql(query(after ? `first: 0, after: "${after}"` : 'first: 0'));
      expect(result.errors).toBeUndefined();
      pages.push(at(result.data));
      after = pages.at(-1)!.pageInfo.endCursor;
    } while (pages.at(-1)!.pageInfo.hasNextPage && pages.length < 3);
    expect(pages).toEqual([
      {
        totalCount: items,
        edges: [],
        pageInfo: { hasNextPage: false, hasPreviousPage: false, endCursor: null },
      },
    ]);
  });

  it.each(COUNTED)('$name asked only for totalCount reads one item, whatever its first', async ({ query, at }) => {
    const counted = await g.gql(query('first: 1000').replace(PAGE, 'totalCount __typename'));
    expect(counted.errors).toBeUndefined();
    expect(at(counted.data).totalCount).toBeGreaterThan(1);
    const lists = counted.upstreamRequests.filter((path) => /[?&]limit=/.test(path));
    expect(lists.length).toBeGreaterThan(0);
    expect(lists.filter((path) => !/[?&]limit=1(&|$)/.test(path))).toEqual([]);
  });

  it.each(COUNTED)('$name after a cursor, first: 0 counts and ends there too', async ({ query, at }) => {
    const first = at((await g.gql(query('first: 1'))).data);
    expect(first.pageInfo.hasNextPage).toBe(true);
    const result = await g.gql(query(`first: 0, after: "${first.pageInfo.endCursor}"`));
    expect(result.errors).toBeUndefined();
    expect(at(result.data)).toEqual({
      totalCount: first.totalCount,
      edges: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: true, endCursor: null },
    });
  });
});

// --- Every connection of the graph with demo data -------------------------------------------------

/** A connection type: a page with `edges` and `pageInfo`. */
const isConnection = (type: GraphQLNamedType): type is GraphQLObjectType =>
  isObjectType(type) && 'edges' in type.getFields() && 'pageInfo' in type.getFields();

const isNode = (type: GraphQLNamedType): boolean =>
  (isObjectType(type) || isInterfaceType(type)) &&
  (type.name === 'Node' || type.getInterfaces().some((parent) => parent.name === 'Node'));

/** Every connection field of the schema, `Owner.field`, read from the schema itself. */
const CONNECTIONS = Object.values(schema.getTypeMap())
  .filter((type): type is GraphQLObjectType => isObjectType(type) && !type.name.startsWith('__'))
  .flatMap((owner) =>
    Object.values(owner.getFields())
      .filter((field) => isConnection(getNamedType(field.type)))
      .map((field) => ({ owner: owner.name, field: field.name, name: `${owner.name}.${field.name}` })),
  );

/** Arguments a connection needs (its required ones), chosen so that the demo data answers many items. */
const ARGUMENTS: Record<string, string> = {
  'Organization.search': 'query: "space"',
  'Space.search': 'query: "install"',
  'Site.search': 'query: "the"',
  'PublishedSiteProfile.search': 'query: "the"',
};

/**
 * Fields that lead to objects holding connections without being connections themselves: a space's
 * current revision, and a revision's page tree (pages hold backlinks and link reports).
 */
const HOPS: Record<string, string> = {
  Space: 'content { __typename id }',
  Revision: `pages { ${pageTree(4)} }`,
};

function pageTree(depth: number): string {
  return depth === 0 ? '__typename id' : `__typename id children { ${pageTree(depth - 1)} }`;
}

/**
 * What identifies an item of a list: a node by its global ID; anything else by its scalar fields
 * and the global IDs of the nodes it links to (two levels down), so that a lost, repeated or
 * misplaced item shows in a comparison.
 */
function itemSelection(type: GraphQLNamedType, depth = 0): string | null {
  if (isLeafType(type)) return '';
  if (isNode(type)) return '__typename id';
  if (isUnionType(type)) {
    const members = type.getTypes().map((member) => {
      const selection = itemSelection(member, depth + 1);
      return selection ? `... on ${member.name} { ${selection} }` : '';
    });
    return `__typename ${members.join(' ')}`;
  }
  if (depth >= 2 || !(isObjectType(type) || isInterfaceType(type))) return null;
  const fields = Object.values(type.getFields())
    .filter((field) => field.args.every((arg) => !isNonNullType(arg.type)))
    .map((field) => {
      const selection = itemSelection(getNamedType(field.type), depth + 1);
      if (selection === null) return '';
      return selection === '' ? field.name : `${field.name} { ${selection} }`;
    });
  return fields.join(' ');
}

const itemType = (connection: string) =>
  getNamedType(
    (
      getNamedType((schema.getType(connection) as GraphQLObjectType).getFields().edges!.type) as GraphQLObjectType
    ).getFields().node!.type,
  );

/** The selection of one page of `Owner.field`, aliased `page`. */
function pageSelection({ owner, field }: { owner: string; field: string }, paging: string): string {
  const connection = getNamedType((schema.getType(owner) as GraphQLObjectType).getFields()[field]!.type);
  const args = [ARGUMENTS[`${owner}.${field}`], paging].filter(Boolean).join(', ');
  return `page: ${field}(${args}) {
    totalCount
    pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
    edges { cursor node { ${itemSelection(itemType(connection.name))} } }
  }`;
}

/** The query of a page of `Owner.field` of the object `$id` (or of the root), forward or backward. */
function pageQuery(connection: { owner: string; field: string }, backward = false): string {
  const [size, cursor] = backward ? ['last', 'before'] : ['first', 'after'];
  const page = pageSelection(connection, `${size}: $size, ${cursor}: $cursor`);
  if (connection.owner === 'Query') return `query Page($size: Int, $cursor: String) { ${page} }`;
  return `query Page($id: ID!, $size: Int, $cursor: String) { node(id: $id) { ... on ${connection.owner} { ${page} } } }`;
}

interface Page {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; startCursor: string | null; endCursor: string | null };
  edges: Array<{ cursor: string; node: unknown }>;
}

/** A page of `first` after `after`, or with `backward`, of `last` before `before`. */
async function readPage(
  connection: { owner: string; field: string },
  id: string | null,
  size: number,
  cursor: string | null,
  backward = false,
): Promise<Page> {
  const result = await g.gql(pageQuery(connection, backward), { ...(id ? { id } : {}), size, cursor });
  expect(result.errors, JSON.stringify(result.errors)).toBeUndefined();
  return connection.owner === 'Query' ? result.data.page : result.data.node.page;
}

/** For each connection field, the demo object whose list is longest, with that list's length. */
const reached = new Map<string, { id: string | null; items: number }>();
/**
 * Walks the demo data from the root: reads every connection of every object it reaches (a page of
 * 1000) and the `HOPS`, and follows the nodes they hold.
 */
async function reachEveryConnection(): Promise<void> {
  const holders = new Set([...CONNECTIONS.map((c) => c.owner), ...Object.keys(HOPS)]);
  const queue: Array<{ typename: string; id: string | null }> = [{ typename: 'Query', id: null }];
  const seen = new Set<string>();
  while (queue.length > 0) {
    const { typename, id } = queue.shift()!;
    const fields = CONNECTIONS.filter((c) => c.owner === typename);
    const selections = [
      ...fields.map((c, index) => pageSelection(c, 'first: 1000').replace(/^page:/, `c${index}:`)),
      HOPS[typename] ?? '',
    ].join('\n');
    const query = id
      ? `query Reach($id: ID!) { node(id: $id) { ... on ${typename} { ${selections} } } }`
      : `query Reach { ${selections} }`;
    const result = await g.gql(query, id ? { id } : {});
    const data = id ? result.data?.node : result.data;
    fields.forEach((c, index) => {
      const page: Page | null | undefined = data?.[`c${index}`];
      const best = reached.get(c.name);
      if (page && (!best || page.edges.length > best.items)) reached.set(c.name, { id, items: page.edges.length });
    });
    for (const node of nodesIn(data)) {
      if (holders.has(node.__typename) && !seen.has(node.id)) {
        seen.add(node.id);
        queue.push({ typename: node.__typename, id: node.id });
      }
    }
  }
}

function nodesIn(value: unknown, found: Array<{ __typename: string; id: string }> = []) {
  if (Array.isArray(value)) for (const item of value) nodesIn(item, found);
  else if (value && typeof value === 'object') {
    const object = value as Record<string, unknown>;
    if (typeof object.__typename === 'string' && typeof object.id === 'string') {
      found.push({ __typename: object.__typename, id: object.id });
    }
    for (const child of Object.values(object)) nodesIn(child, found);
  }
  return found;
}

/** Connections no demo object fills, and why. */
const UNREACHED: Record<string, string> = {
  'PublishedSiteProfile.search':
    'a profile is no node (read by `publishedSite`): its search is the connection and REST list of `Site.search`, paged above',
};

describe('every connection with demo data', () => {
  beforeAll(reachEveryConnection, 180_000);

  it('reaches every connection field of the schema from the root, but those listed with a reason', () => {
    const empty = CONNECTIONS.filter((c) => !reached.get(c.name)?.items).map((c) => c.name);
    expect(empty).toEqual(Object.keys(UNREACHED));
  });

  it.each(CONNECTIONS.filter((c) => !(c.name in UNREACHED)))(
    '$name pages with first 1, 2 and 5 as one page of 1000 lists it, and counts with first 0',
    async (connection) => {
      const holder = reached.get(connection.name);
      expect(holder?.items, 'items of the longest list the walk found').toBeGreaterThan(0);
      if (!holder) return;
      const whole = await readPage(connection, holder.id, 1000, null);
      expect(whole.edges.length, 'the items found on the walk').toBe(holder.items);
      expect(whole.pageInfo.hasNextPage).toBe(false);
      expect(whole.totalCount).toBe(whole.edges.length);
      const items = whole.edges.map((edge) => edge.node);
      const keys = items.map((item) => JSON.stringify(item));
      expect(new Set(keys).size, 'an item twice in one page').toBe(keys.length);
      for (const backward of [false, true])
        expect(await readPage(connection, holder.id, 0, null, backward)).toEqual({
          totalCount: items.length,
          pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
          edges: [],
        });
      expect(await readPage(connection, holder.id, 1000, null, true), 'the last 1000 are the whole list').toEqual(
        whole,
      );
      for (const first of [1, 2, 5]) {
        const paged: unknown[] = [];
        let after: string | null = null;
        for (let pages = 0; pages <= items.length; pages += 1) {
          const page = await readPage(connection, holder.id, first, after);
          expect(page.totalCount, `totalCount of a page of ${first}`).toBe(items.length);
          expect(page.pageInfo.endCursor).toBe(page.edges.at(-1)?.cursor ?? null);
          expect(page.pageInfo.hasPreviousPage).toBe(after !== null);
          paged.push(...page.edges.map((edge) => edge.node));
          if (!page.pageInfo.hasNextPage) break;
          expect(page.edges.length, `a page of ${first} followed by more`).toBe(first);
          after = page.pageInfo.endCursor;
        }
        expect(paged, `paged by ${first}`).toEqual(items);
      }
      // Backward from the end, as a client's `while (hasPreviousPage)` loop does.
      for (const last of [1, 2]) {
        const paged: unknown[] = [];
        let before: string | null = null;
        for (let pages = 0; pages <= items.length; pages += 1) {
          const page = await readPage(connection, holder.id, last, before, true);
          expect(page.totalCount, `totalCount of a page of the last ${last}`).toBe(items.length);
          expect(page.pageInfo.startCursor).toBe(page.edges[0]?.cursor ?? null);
          expect(page.pageInfo.hasNextPage).toBe(before !== null);
          paged.unshift(...page.edges.map((edge) => edge.node));
          if (!page.pageInfo.hasPreviousPage) break;
          expect(page.edges.length, `a page of the last ${last} with more before it`).toBe(last);
          before = page.pageInfo.startCursor;
        }
        expect(paged, `paged backward by ${last}`).toEqual(items);
      }
      // A backward page's cursors resume forward: after the first of the last two, the last one.
      if (items.length >= 2) {
        const lastTwo = await readPage(connection, holder.id, 2, null, true);
        const rest = await readPage(connection, holder.id, 1000, lastTwo.edges[0]!.cursor);
        expect(rest.edges.map((edge) => edge.node)).toEqual(items.slice(-1));
      }
    },
    60_000,
  );
});

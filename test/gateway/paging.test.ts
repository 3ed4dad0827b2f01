import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

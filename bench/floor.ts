import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type DocumentNode,
  execute,
  GraphQLEnumType,
  type GraphQLError,
  GraphQLID,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  parse,
  validate,
} from 'graphql';
import { type GraphQLParams, createYoga } from 'graphql-yoga';
import { usePersistedOperations } from '@graphql-yoga/plugin-persisted-operations';
import { Pool } from 'undici';

/**
 * The floor of a JavaScript GraphQL gateway, the yardstick of issue 20: a bare `node:http`
 * server running graphql-js, parse and validation cached per document text, one undici Pool to
 * the upstream API, and nothing else (no yoga, no dataloader, no input checks, no plugins).
 * What a gateway spends above it is what its features cost.
 *
 *   UPSTREAM_URL=http://127.0.0.1:4010/v1 tsx bench/floor.ts [port] [--yoga]
 *
 * With `--yoga`, the same schema is served by a bare graphql-yoga server instead (its defaults,
 * nothing added, but for its request-body bound, off as in the gateway, which bounds bodies in its
 * own plugin): what yoga's own HTTP handling and plugin chain cost above the floor.
 *
 * The port comes from the argument, else PORT, else 0 (any free one); it listens on 127.0.0.1
 * and prints its URL once listening. It serves one field, `space(id:)`.
 *
 * Persisted operations, as the gateway takes them: with PERSISTED_OPERATIONS_FILE (a
 * `{ "<id>": "<document>" }` manifest), a request may send `documentId` instead of `query`; the
 * floor looks the text up in a map, bare yoga through its own persisted-operations plugin.
 */

const upstream = new URL(process.env.UPSTREAM_URL ?? 'http://127.0.0.1:4010/v1');
const basePath = upstream.pathname.replace(/\/$/, '');
const pool = new Pool(upstream.origin);

interface Context {
  authorization: string | undefined;
}

/** The platform's visibility values as the gateway's enum serves them (`in-collection` → `IN_COLLECTION`). */
const SpaceVisibility = new GraphQLEnumType({
  name: 'SpaceVisibility',
  values: Object.fromEntries(
    ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'].map((value) => [
      value.toUpperCase().replace('-', '_'),
      { value },
    ]),
  ),
});

const Space = new GraphQLObjectType({
  name: 'Space',
  fields: {
    platformId: { type: new GraphQLNonNull(GraphQLID), resolve: (space) => space.id },
    title: { type: new GraphQLNonNull(GraphQLString) },
    visibility: { type: new GraphQLNonNull(SpaceVisibility) },
  },
});

const schema = new GraphQLSchema({
  query: new GraphQLObjectType<unknown, Context>({
    name: 'Query',
    fields: {
      space: {
        type: Space,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: (_, args: { id: string }, context) => fetchSpace(args.id, context.authorization),
      },
    },
  }),
});

/** `GET /spaces/{id}` upstream, with the client's credentials. */
async function fetchSpace(id: string, authorization: string | undefined): Promise<unknown> {
  const response = await pool.request({
    method: 'GET',
    path: `${basePath}/spaces/${encodeURIComponent(id)}`,
    headers: authorization ? { authorization } : {},
  });
  const body = await response.body.json();
  if (response.statusCode !== 200) throw new Error(`upstream answered ${response.statusCode}`);
  return body;
}

/** The persisted documents by id, from the manifest PERSISTED_OPERATIONS_FILE names (none without it). */
const persisted = new Map<string, string>(
  process.env.PERSISTED_OPERATIONS_FILE
    ? Object.entries(JSON.parse(readFileSync(process.env.PERSISTED_OPERATIONS_FILE, 'utf8')) as Record<string, string>)
    : [],
);

/** A parsed and validated document, or the errors that refused it, per document text. */
const documents = new Map<string, DocumentNode | readonly GraphQLError[]>();

function prepare(query: string): DocumentNode | readonly GraphQLError[] {
  let prepared = documents.get(query);
  if (prepared === undefined) {
    try {
      const document = parse(query);
      const errors = validate(schema, document);
      prepared = errors.length > 0 ? errors : document;
    } catch (error) {
      prepared = [error as GraphQLError];
    }
    documents.set(query, prepared);
  }
  return prepared;
}

function send(response: ServerResponse, status: number, result: unknown): void {
  const body = JSON.stringify(result);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
}

async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (request.method !== 'POST' || request.url !== '/graphql') return send(response, 404, { errors: [] });
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const { query, documentId, variables, operationName } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const prepared = prepare(String(documentId === undefined ? query : persisted.get(documentId)));
  if (!('kind' in prepared)) return send(response, 400, { errors: prepared });
  const result = await execute({
    schema,
    document: prepared,
    variableValues: variables,
    operationName,
    contextValue: { authorization: request.headers.authorization } satisfies Context,
  });
  send(response, 200, result);
}

const server = process.argv.includes('--yoga')
  ? createServer(
      createYoga<Record<string, never>, Context>({
        schema,
        graphqlEndpoint: '/graphql',
        landingPage: false,
        graphiql: false,
        logging: false,
        maxRequestBodySize: false,
        extraParamNames: ['documentId'],
        plugins: [
          usePersistedOperations({
            allowArbitraryOperations: true,
            extractPersistedOperationId: (params) => {
              const id = (params as GraphQLParams & { documentId?: unknown }).documentId;
              return typeof id === 'string' ? id : null;
            },
            getPersistedOperation: (id) => persisted.get(id) ?? null,
          }),
        ],
        context: ({ request }) => ({ authorization: request.headers.get('authorization') ?? undefined }),
      }),
    )
  : createServer((request, response) => {
      handle(request, response).catch((error: Error) => send(response, 400, { errors: [{ message: error.message }] }));
    });
const port = Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? process.env.PORT ?? 0);
server.listen(port, '127.0.0.1', () => {
  console.log(`Floor gateway on http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`);
});
process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.close();
});

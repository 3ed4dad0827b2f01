import { createYoga, type YogaServerInstance } from 'graphql-yoga';
import { budgetAnswers } from '../policy/answer-size.js';
import { createContext, type GatewayContext } from '../context.js';
import { useOperationCost } from '../policy/cost-plugin.js';
import { maskExecutionError, normalizeResult, useErrorPolicy } from '../policy/error-policy.js';
import { useHealth, type HealthOptions } from './health.js';
import { createHttpFront, type HttpFront } from './front.js';
import { DEFAULT_LIMITS, useInputLimits, type GatewayLimits } from '../policy/limits.js';
import { RestClient, type RestClientOptions } from '../upstream/client.js';
import { schema } from '../schema/index.js';
import { clearLoaders, countLoads } from '../schema/kit/loaders.js';
import { instrumentSchema } from '../policy/trace.js';

export interface GatewayOptions {
  /** Base URL of the REST API, ending in `/v1`; ignored when `client` is given. */
  upstreamUrl?: string;
  /** A REST client to use instead of one built from `upstreamUrl` (tests, benchmarks). */
  client?: RestClient;
  /** Options of the REST client built from `upstreamUrl`. */
  clientOptions?: Omit<RestClientOptions, 'baseUrl'>;
  /**
   * Serve GraphiQL at `/graphql`; `defaultToken` prefills its Authorization header.
   * @default { enabled: true }
   */
  graphiql?: { enabled: boolean; defaultToken?: string };
  /** Bounds on requests and operations; each left out takes its default (`DEFAULT_LIMITS`). */
  limits?: Partial<GatewayLimits>;
  /** What the supervisor of the upstream's process knows of it, for `/ready` (see `HealthOptions`). */
  upstreamProcess?: HealthOptions['upstreamProcess'];
  /** Logger for unexpected errors. @default console */
  logger?: Pick<Console, 'error' | 'info'>;
}

export interface Gateway {
  /** Node's request listener of the gateway: `createServer(gateway.handle)`. */
  handle: HttpFront['handle'];
  /** The same dispatch for a fetch-API request (tests, embedding). */
  fetch: HttpFront['fetch'];
  /** Requests answered by the direct lane and by yoga (see `front.ts`). */
  served: HttpFront['served'];
  /** The yoga server behind the front: GraphiQL, GET, forms and every unusual request. */
  yoga: YogaServerInstance<Record<string, never>, GatewayContext>;
  client: RestClient;
  /** Closes the upstream connections. */
  close(): Promise<void>;
}

/** Builds the gateway (GraphQL at `/graphql`) without listening: call `fetch`, or mount `handle` in a Node server. */
export function createGateway(options: GatewayOptions): Gateway {
  if (!options.client && !options.upstreamUrl) throw new Error('createGateway needs upstreamUrl or client');
  const limits: GatewayLimits = { ...DEFAULT_LIMITS, ...options.limits };
  // No upstream body may be larger than a whole answer's budget.
  const client =
    options.client ??
    new RestClient({ baseUrl: options.upstreamUrl!, maxBodyBytes: limits.maxResponseBytes, ...options.clientOptions });
  const logger = options.logger ?? console;
  const graphiql = options.graphiql ?? { enabled: true };
  const cost = useOperationCost(limits);
  const yoga = createYoga<Record<string, never>, GatewayContext>({
    // Budgeted last: its wrapper counts what every field (traced or not) adds to the answer.
    schema: budgetAnswers(instrumentSchema(schema)),
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // GraphiQL's assets are bundled, so it works without network; they weigh some 40 MB in
    // memory, loaded with the first page asked for.
    renderGraphiQL: memoized(async (graphiqlOptions) =>
      (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(graphiqlOptions),
    ),
    context: ({ request }) => {
      const ctx = createContext(client, request, {
        maxUpstreamRequests: limits.maxUpstreamRequests,
        maxResponseBytes: limits.maxResponseBytes,
        startedAt: cost.startedAt(request),
      });
      ctx.api.onInvalidate(() => clearLoaders(ctx));
      ctx.api.usage.loads = () => countLoads(ctx);
      return ctx;
    },
    graphiql: graphiql.enabled
      ? {
          title: 'Documentation platform GraphQL gateway',
          headers: graphiql.defaultToken
            ? JSON.stringify({ Authorization: `Bearer ${graphiql.defaultToken}` }, null, 2)
            : undefined,
          defaultQuery: DEFAULT_QUERY,
        }
      : false,
    maskedErrors: { maskError: (error) => maskExecutionError(error, (message) => logger.error(message)) },
    plugins: [
      useInputLimits(limits),
      cost,
      useErrorPolicy(),
      useHealth(client, { ...(options.upstreamProcess ? { upstreamProcess: options.upstreamProcess } : {}) }),
    ],
    logging: false,
  });
  const front = createHttpFront({
    yoga,
    maxRequestBytes: limits.maxRequestBytes,
    arrived: cost.arrived,
    finish: (request, result) => normalizeResult(cost.withCost(request, result)),
    log: (message) => logger.error(message),
  });
  return { handle: front.handle, fetch: front.fetch, served: front.served, yoga, client, close: () => client.close() };
}

function memoized<O>(render: (options?: O) => Promise<string>): (options?: O) => Promise<string> {
  const pages = new Map<string, Promise<string>>();
  return (options) => {
    const key = JSON.stringify(options ?? null);
    let page = pages.get(key);
    if (page === undefined) {
      page = render(options);
      pages.set(key, page);
    }
    return page;
  };
}

const DEFAULT_QUERY = `# Everything the platform manages, in one graph. Try:
query Dashboard {
  viewer { displayName email }
  organizations(first: 5) {
    totalCount
    nodes {
      title
      members(first: 3) { totalCount nodes { role user { displayName } } }
      spaces(first: 5) { totalCount nodes { title visibility parent { title } } }
    }
  }
}
`;

import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { EXAMPLE_OPERATIONS } from '../examples/operations.js';
import { partsOf } from '../request-parts.js';

declare module '../request-parts.js' {
  interface RequestParts {
    /** A request for GraphiQL's page (see `GraphiQLPages`): the tag of the page it gets, or its 304. */
    graphiqlPage?: { key: string; notModified?: string | undefined } | undefined;
  }
}

/** A page rendered once, with its entity tag. */
interface RenderedPage {
  text: string;
  /** Weak: one page, sent as it is or compressed (`useCompressedPages`). */
  tag: string;
}

/**
 * GraphiQL's page (some 9 MB with its bundled assets), rendered once per set of options and cached
 * by the browser: sent with an `ETag` (a hash of its bytes, computed when it is rendered) and
 * `Cache-Control: no-cache`, so that a browser revalidates it on each load and gets a 304 while it
 * is unchanged; a new version of the gateway renders another page, with another tag. Its assets
 * are inlined in it: nothing is served apart. `render` is yoga's `renderGraphiQL`, `options` its
 * `graphiql` option and `plugin` answers the 304s and tags the pages (before `useCompressedPages`,
 * which keeps the tag).
 */
export class GraphiQLPages {
  readonly #pages = new Map<string, Promise<RenderedPage>>();
  /** The tags of the pages rendered so far, by their options' key: a revalidation waits for nothing. */
  readonly #tags = new Map<string, string>();

  constructor(private readonly renderPage: (options: GraphiQLOptions) => Promise<string>) {}

  /** yoga's `renderGraphiQL`: the page for `options`, rendered once. */
  readonly render = async (options: GraphiQLOptions = {}): Promise<string> => (await this.#page(options)).text;

  /**
   * yoga's `graphiql` option giving it `base`: false (yoga renders nothing) for a request whose
   * `If-None-Match` names the page it would get, which `plugin` then answers 304.
   */
  options(base: GraphiQLOptions): (request: Request, serverContext?: object) => GraphiQLOptions | false {
    const key = keyOf(base);
    return (request, serverContext) => {
      if (!serverContext) return base;
      const tag = this.#tags.get(key);
      const parts = partsOf(serverContext);
      if (tag !== undefined && matches(request.headers.get('if-none-match'), tag)) {
        parts.graphiqlPage = { key, notModified: tag };
        return false;
      }
      parts.graphiqlPage = { key };
      return base;
    };
  }

  /** Answers the revalidations `options` recognized with a 304, and tags the pages it sends. */
  plugin(): Plugin {
    return {
      onRequest: ({ serverContext, endResponse, fetchAPI }) => {
        const notModified = partsOf(serverContext).graphiqlPage?.notModified;
        if (notModified === undefined) return;
        endResponse(new fetchAPI.Response(null, { status: 304, headers: pageHeaders(notModified) }));
      },
      onResponse: ({ response, serverContext }) => {
        const page = partsOf(serverContext).graphiqlPage;
        if (!page || page.notModified !== undefined || response.status !== 200) return;
        // Rendered by now (the first request renders it): its tag is known.
        const tag = this.#tags.get(page.key);
        if (tag === undefined) return;
        for (const [name, value] of Object.entries(pageHeaders(tag))) response.headers.set(name, value);
      },
    };
  }

  #page(options: GraphiQLOptions): Promise<RenderedPage> {
    const key = keyOf(options);
    let page = this.#pages.get(key);
    if (page === undefined) {
      page = this.renderPage(options).then((text) => {
        const tag = `W/"${createHash('sha256').update(text).digest('base64url')}"`;
        this.#tags.set(key, tag);
        return { text, tag };
      });
      this.#pages.set(key, page);
    }
    return page;
  }
}

/**
 * The headers of GraphiQL's page and of its 304: revalidated on each load. Its 200 may come
 * compressed, as `Accept-Encoding` chose: a cache keeps the 304's `Vary` as the 200's (RFC 9110).
 */
function pageHeaders(tag: string): Record<string, string> {
  return { etag: tag, 'cache-control': 'no-cache', vary: 'accept-encoding' };
}

function keyOf(options: GraphiQLOptions): string {
  return JSON.stringify(options);
}

/** Whether an `If-None-Match` names `tag` (compared weakly, as a GET's is: `W/` or not), or is `*`. */
function matches(header: string | null, tag: string): boolean {
  if (header === null) return false;
  const opaque = tag.replace(/^W\//, '');
  return header.split(',').some((each) => {
    const sent = each.trim();
    return sent === '*' || sent.replace(/^W\//, '') === opaque;
  });
}

/**
 * Where GraphiQL's page asks for the demo users' tabs (a POST from the page itself): the page never
 * holds a token, so that what decides is a request whose `Origin` a browser sets.
 */
export const DEMO_TABS_PATH = '/graphiql/demo-tabs';

/** The demo users' tokens, `{ "<email>": "<token>" }`, the first an admin of every demo organization. */
export type DemoTokens = Readonly<Record<string, string>>;

/** What GraphiQL's options are made of: the gateway's settings, and the demo tokens for the page opened on this machine. */
export interface GraphiQLPage {
  /** Only persisted operations run (`PERSISTED_ONLY`): the tabs say so. */
  persistedOnly: boolean;
  /** A tab per demo user, the first user's token in every example's headers. */
  demoTokens?: DemoTokens;
}

/**
 * GraphiQL's options: a tab per example (src/gateway/examples/operations.ts), each with its
 * variables and headers; given demo tokens, every example sends the first user's token, a tab per
 * demo user runs as that user, and new tabs start with the first user's token.
 */
export function graphiqlOptions({ persistedOnly, demoTokens = {} }: GraphiQLPage): GraphiQLOptions {
  const users = Object.entries(demoTokens);
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const asFirstUser = users.length > 0 ? bearer(users[0]![1]) : {};
  const note = persistedOnly
    ? '# This gateway runs persisted operations only (PERSISTED_ONLY=1): documents typed here are refused.\n# In development, start it without PERSISTED_ONLY (or with PERSISTED_ONLY=0) to run any.\n'
    : '';
  const examples = EXAMPLE_OPERATIONS.map((example) => ({
    query: `${note}# ${example.description}\n# Every example: src/gateway/examples/operations.ts\n${example.document}\n`,
    ...(example.variables ? { variables: json(example.variables) } : {}),
    ...headersOf({ ...asFirstUser, ...example.headers }),
  }));
  const asEachUser = users.map(([email, token], index) => ({
    query: `${note}# Signed in as ${email}${index === 0 ? ' (an admin of every demo organization, as in the examples)' : ''}: this tab sends their token (see Headers below). Paste any example here to run it as them.\n# Every demo user and what each may do: docs/demo-data.md\nquery ${operationNameOf(email)} {\n  viewer { displayName email }\n  organizations(first: 5) { nodes { title viewerMembership { role } } }\n}\n`,
    ...headersOf(bearer(token)),
  }));
  return {
    title: 'Documentation platform GraphQL gateway',
    defaultTabs: [...examples, ...asEachUser],
    ...(users.length > 0 ? { defaultHeaders: json(asFirstUser) } : {}),
    // GraphiQL sends subscriptions as GETs: CSRF prevention refuses a GET without one of its headers.
    additionalHeaders: { 'x-graphql-csrf': '1' },
  };
}

/**
 * GraphiQL's page `page` (as yoga renders it with `options`) that, opened on this machine, asks
 * the gateway for the demo users' tabs (`DEMO_TABS_PATH`) and opens with them; with any other
 * answer, or none, it opens with `options` alone. A page served elsewhere does not ask. Yoga's
 * page ends with its call of `renderYogaGraphiQL`, which this one replaces; a page without it is
 * left as it is, without the demo tabs.
 */
export function withDemoTabs(page: string, options: GraphiQLOptions): string {
  const call = page.lastIndexOf('YogaGraphiQL.renderYogaGraphiQL(');
  const end = call < 0 ? -1 : page.indexOf('</script>', call);
  if (end < 0) return page;
  // `<` escaped: no text of the options can end the script.
  const base = JSON.stringify(options).replace(/</g, '\\u003c');
  // A block: its names stay out of the page's global scope, which yoga's bundle shares.
  const script = `{
        const graphiqlOptions = ${base};
        const render = (demo) =>
          YogaGraphiQL.renderYogaGraphiQL(window.document.querySelector('#root'), { ...graphiqlOptions, ...demo });
        if (/^(localhost|127(\\.\\d{1,3}){3}|\\[::1\\])$/.test(window.location.hostname)) {
          fetch(${JSON.stringify(DEMO_TABS_PATH)}, { method: 'POST', headers: { accept: 'application/json' } })
            .then((response) => (response.ok ? response.json() : {}))
            .catch(() => ({}))
            .then(render);
        } else {
          render({});
        }
      }
      `;
  return page.slice(0, call) + script + page.slice(end);
}

/**
 * Answers `POST /graphiql/demo-tabs` (`DEMO_TABS_PATH`): GraphiQL's options with a tab per demo
 * user and the first user's token in every example, to the page opened on this machine only (see
 * `mayReceiveDemoTokens`); 403 to any other request.
 */
export function useDemoTabs(page: Required<GraphiQLPage>): Plugin {
  return {
    onRequest({ request, url, serverContext, endResponse, fetchAPI }) {
      if (url.pathname !== DEMO_TABS_PATH) return;
      const answer = (status: number, body: unknown) =>
        endResponse(
          new fetchAPI.Response(JSON.stringify(body), {
            status,
            headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
          }),
        );
      if (request.method !== 'POST') return answer(405, refusal('Send a POST, as GraphiQL’s page does'));
      if (!mayReceiveDemoTokens(request, serverContext))
        return answer(
          403,
          refusal(
            'The demo users’ tokens go to GraphiQL’s page opened on this machine only (http://localhost:<port>/graphql); they are in demo-tokens.json',
          ),
        );
      return answer(200, graphiqlOptions(page));
    },
  };
}

function refusal(message: string) {
  return { errors: [{ message, extensions: { code: 'FORBIDDEN' } }] };
}

/**
 * Whether a request may receive the demo users' tokens: one a browser on this machine sends from
 * GraphiQL's page at a loopback address (`isLoopbackClient`, `isFromOwnPage`).
 */
export function mayReceiveDemoTokens(request: Request, serverContext: unknown): boolean {
  return isLoopbackClient(request, serverContext) && isFromOwnPage(request);
}

/**
 * Whether a browser sent `request` from a page of the origin it is addressed to, or as a
 * navigation its user typed: an `Origin`, if any, that is the request's own (a page of another
 * site, of another port, or a sandboxed one's `null` is not), and a `Sec-Fetch-Site`, if any, of
 * `same-origin` or `none`. Browsers set both on every request a page makes to another origin, and
 * a page cannot forge them. Behind a proxy on this machine that rewrites `Host` to a loopback
 * name, a browser elsewhere sends the proxy's public origin, which is not the request's own.
 */
export function isFromOwnPage(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (origin !== null && origin !== new URL(request.url).origin) return false;
  const site = request.headers.get('sec-fetch-site');
  return site === null || site === 'same-origin' || site === 'none';
}

/**
 * Whether a request comes from this machine, as a browser on it sends one: from a
 * loopback address, through no proxy (a proxy on this machine relays others' requests), to a loopback
 * host name (a page of another site whose name resolves to this machine, DNS rebinding, cannot read
 * the answer). `serverContext` is what Node's server gives yoga (`{ req, res }`).
 */
export function isLoopbackClient(request: Request, serverContext: unknown): boolean {
  const req = (serverContext as { req?: IncomingMessage } | undefined)?.req;
  const address = req?.socket?.remoteAddress;
  if (!address || !isLoopbackAddress(address.replace(/^::ffff:/, ''))) return false;
  if (['forwarded', 'x-forwarded-for', 'x-real-ip'].some((name) => request.headers.has(name))) return false;
  const host = new URL(request.url).hostname;
  return host === 'localhost' || isLoopbackAddress(host.replace(/^\[|\]$/g, ''));
}

function isLoopbackAddress(address: string): boolean {
  return /^127(\.\d{1,3}){3}$/.test(address) || address === '::1';
}

/** A tab's operation name for a user: `AsAda` for ada@acme.test. */
function operationNameOf(email: string): string {
  const local = email.split('@')[0]!.replace(/[^A-Za-z0-9]/g, '');
  return `As${local.charAt(0).toUpperCase()}${local.slice(1)}`;
}

function headersOf(headers: Record<string, string>): { headers?: string } {
  return Object.keys(headers).length > 0 ? { headers: json(headers) } : {};
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

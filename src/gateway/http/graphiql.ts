import type { IncomingMessage } from 'node:http';
import type { GraphiQLOptions } from 'graphql-yoga';
import { EXAMPLE_OPERATIONS } from '../examples/operations.js';

/** The demo users' tokens, `{ "<email>": "<token>" }`, the first an admin of every demo organization. */
export type DemoTokens = Readonly<Record<string, string>>;

/** What GraphiQL's page is made of: the gateway's settings, and the demo tokens when this client may have them. */
export interface GraphiQLPage {
  /** Only persisted operations run (`PERSISTED_ONLY`): the tabs say so. */
  persistedOnly: boolean;
  /** Offered to this client: a tab per demo user, the first user's token in every example's headers. */
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
  };
}

/**
 * Whether a request for GraphiQL's page comes from this machine, as a browser on it sends one: from a
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

import { z } from 'zod';
import { GatewayError } from '../errors.js';
import type { RestClient } from '../upstream/client.js';
import * as op from '../upstream/contract/operations.js';
import { answerOf, pathOf, type AnswerOf, type BodyOf, type Operation, type ParamsOf } from '../upstream/record.js';

/** Options of `registerForEvents`. */
export interface EventRegistrationOptions {
  client: RestClient;
  /** A token of an admin of the organizations whose events the gateway takes (`UPSTREAM_EVENTS_TOKEN`). */
  token: string;
  /** Where the platform reaches the gateway's receiver (`UPSTREAM_EVENTS_URL`, ending in `/platform-events`). */
  receiverUrl: string;
  /** The integration's name (`UPSTREAM_EVENTS_INTEGRATION`). @default graphql-gateway */
  integration?: string;
}

/** What a registration came to. */
export interface Registration {
  /** The signing secret of each installation, by installation id: what the receiver verifies deliveries with. */
  secrets: Map<string, string>;
  /** The organizations whose spaces' events the gateway takes now. */
  organizations: string[];
  /** The organizations the token could not install it on, with the platform's reason. */
  skipped: Array<{ organization: string; reason: string }>;
}

/** The integration's name unless configured. */
export const DEFAULT_EVENTS_INTEGRATION = 'graphql-gateway';

/** Most organizations one registration covers (pages of 100). */
const MAX_ORGANIZATIONS = 1000;
/** Most installations of the integration read, every organization's (pages of 100). */
const MAX_INSTALLATIONS = 10_000;

const owned = z.looseObject({ owner: z.looseObject({ id: z.string() }) });

/**
 * Makes the platform deliver its events to the gateway, through its REST API alone (so any
 * implementation of it will do): publishes the integration `integration` with the receiver as its
 * `endpoint` (in the organization that owns it; a new one in the first organization the token may
 * publish in, given its endpoint once installed), installs it on every organization of the token's
 * user that the token administers, with `space_selection: all` (every space, those made later
 * too), and reads each installation's signing secret. Idempotent, and safe to run from several
 * replicas at once: an installation that exists is kept, one another replica just made is found.
 * With `publish: false` it only installs and reads (a refresh: organizations joined since).
 */
export async function registerForEvents(
  options: EventRegistrationOptions,
  { publish: publishing = true }: { publish?: boolean } = {},
): Promise<Registration> {
  const name = options.integration ?? DEFAULT_EVENTS_INTEGRATION;
  const call = caller(options.client, `Bearer ${options.token}`);
  const organizations = await allOrganizations(call);
  const existing = await ownerOf(call, name);
  // A new integration gets its endpoint once installed: the events of its installing, which the
  // receiver (not knowing their secrets yet) would refuse and the platform retry ahead of every
  // later event of the installation, are recorded with nothing to deliver.
  const owner =
    publishing || !existing
      ? await publish(call, name, existing ? [existing] : organizations, existing && options.receiverUrl)
      : existing;
  const installations = await installationsOf(call, name);
  const registration: Registration = { secrets: new Map(), organizations: [], skipped: [] };
  for (const organization of organizations) {
    try {
      const known = installations.get(organization);
      const id = known?.id ?? (await install(call, name, organization));
      // Each update records an event the platform delivers: made only when it changes something.
      if (known?.spaceSelection !== 'all')
        await call(
          op.updateIntegrationInstallation,
          { integrationName: name, installationId: id },
          { space_selection: 'all' },
        );
      const { secret } = await call(op.getIntegrationInstallationSigningSecret, {
        integrationName: name,
        installationId: id,
      });
      registration.secrets.set(id, secret);
      registration.organizations.push(organization);
    } catch (error) {
      if (!(error instanceof GatewayError) || (error.code !== 'FORBIDDEN' && error.code !== 'NOT_FOUND')) throw error;
      registration.skipped.push({ organization, reason: error.message });
    }
  }
  if (!existing) await publish(call, name, [owner], options.receiverUrl);
  return registration;
}

/** The installations of the integration, by organization: their ids and space selections. */
async function installationsOf(
  call: Call,
  integrationName: string,
): Promise<Map<string, { id: string; spaceSelection: string | undefined }>> {
  const installations = await listAll(call, op.listIntegrationInstallations, { integrationName }, MAX_INSTALLATIONS);
  return new Map(
    installations.map((installation) => [
      installation.target.organization,
      { id: installation.id, spaceSelection: installation.space_selection },
    ]),
  );
}

/** Installs the integration on `organization`: its installation's id, that of one another replica just made included. */
async function install(call: Call, integrationName: string, organization: string): Promise<string> {
  try {
    return (await call(op.installIntegration, { integrationName }, { organization })).id;
  } catch (error) {
    if (!(error instanceof GatewayError) || error.code !== 'CONFLICT') throw error;
    const made = (await installationsOf(call, integrationName)).get(organization);
    if (!made) throw error;
    return made.id;
  }
}

/** How the platform's deliveries to the gateway went lately (see `deliveryHealth`). */
export interface DeliveryHealth {
  /**
   * `failing` when the newest event finished since the last look was a failure (every attempt
   * refused, late or unanswered: the receiver cannot be reached, or refuses), `delivering` when it
   * was delivered, `quiet` when none finished since (or this is the first look).
   */
  state: 'failing' | 'delivering' | 'quiet';
  /** The creation time of the newest event finished, in the platform's clock: the next look's `since`. */
  newest: string | undefined;
}

const recentEvents = z.looseObject({
  items: z.array(z.looseObject({ createdAt: z.string(), status: z.string() })),
});

/**
 * How the platform's deliveries of the integration's events went since the event created at
 * `since` (the last look's `newest`; undefined: a first look, which only notes where things stand),
 * as the platform records them. Reads its newest 50 events, in the platform's own clock.
 */
export async function deliveryHealth(
  options: Pick<EventRegistrationOptions, 'client' | 'token' | 'integration'>,
  since: string | undefined,
): Promise<DeliveryHealth> {
  const { data } = await options.client.request({
    method: 'GET',
    path: pathOf(op.listIntegrationEvents, { integrationName: options.integration ?? DEFAULT_EVENTS_INTEGRATION }),
    operation: op.listIntegrationEvents,
    query: { limit: 50 },
    authorization: `Bearer ${options.token}`,
    schema: recentEvents,
  });
  // Newest first: the first one finished says how deliveries go now.
  const latest = (data as z.infer<typeof recentEvents>).items.find((event) => event.status !== 'pending');
  const newest = latest?.createdAt ?? since;
  if (!latest || since === undefined || latest.createdAt <= since) return { state: 'quiet', newest };
  return { state: latest.status === 'failed' ? 'failing' : 'delivering', newest };
}

/** The organization that owns the integration `integrationName`, or undefined when it is not published. */
async function ownerOf(call: Call, integrationName: string): Promise<string | undefined> {
  const existing = await call(op.getIntegrationByName, { integrationName }).catch((error: unknown) => {
    if (error instanceof GatewayError && error.code === 'NOT_FOUND') return undefined;
    throw error;
  });
  return existing && owned.parse(existing).owner.id;
}

/**
 * Publishes the integration, with `endpoint` when given, in the first of `owners` that lets the token
 * (its owner organization, or the first of the token's that may): answers that organization.
 */
async function publish(
  call: Call,
  integrationName: string,
  owners: string[],
  endpoint: string | undefined,
): Promise<string> {
  for (const organization of owners) {
    try {
      await call(op.publishIntegration, { integrationName }, publication(organization, endpoint));
      return organization;
    } catch (error) {
      if (!(error instanceof GatewayError) || error.code !== 'FORBIDDEN') throw error;
    }
  }
  throw new GatewayError(
    'FORBIDDEN',
    `The events token may publish the integration "${integrationName}" in none of its organizations: it needs an admin's`,
  );
}

/** The integration as published: a receiver of events that runs no code on the platform. */
function publication(organization: string, endpoint: string | undefined): object {
  return {
    organization,
    title: 'GraphQL gateway',
    description: 'Tells the GraphQL gateway what changed, so that its subscriptions and cache follow at once',
    // The platform runs no integration's code: the gateway receives the events itself.
    script: '// Events are delivered to the gateway endpoint.',
    scopes: ['space:content:read', 'space:metadata:read'],
    visibility: 'unlisted',
    ...(endpoint ? { endpoint } : {}),
  };
}

type Call = <O extends Operation>(
  operation: O,
  params: ParamsOf<O>,
  body?: BodyOf<O> | object,
  query?: Record<string, string | number | undefined>,
) => Promise<AnswerOf<O>>;

/** Calls operations through their records with the registration's credentials. */
function caller(client: RestClient, authorization: string): Call {
  return async (operation, params, body, query) => {
    const answer = await client.request({
      method: operation.method as 'GET',
      path: pathOf(operation, params as Record<string, string>),
      operation,
      query,
      body,
      authorization,
      schema: answerOf(operation),
    });
    return answer.data as never;
  };
}

/** The ids of the organizations of the token's user. */
async function allOrganizations(call: Call): Promise<string[]> {
  const items = await listAll(call, op.listOrganizationsForAuthenticatedUser, {} as never, MAX_ORGANIZATIONS);
  return items.map((organization) => organization.id);
}

/** The items of a list, a page of 100 at a time, up to `max`. */
async function listAll<O extends Operation>(
  call: Call,
  operation: O,
  params: ParamsOf<O>,
  max: number,
): Promise<Array<AnswerOf<O> extends { items: Array<infer T> } ? T : never>> {
  const items: unknown[] = [];
  let page: string | undefined;
  do {
    const answer = (await call(operation, params, undefined, { limit: 100, page })) as {
      items: unknown[];
      next?: { page: string } | null;
    };
    items.push(...answer.items);
    page = answer.next?.page;
  } while (page && items.length < max);
  return items.slice(0, max) as never;
}

import { randomBytes } from 'node:crypto';
import { PermanentJobError, type JobQueue } from '../jobs.js';
import { displayUrl, OutboundError, postUrl } from '../outbound.js';
import { linksFor, type Links } from '../links.js';
import type { Db } from '../store/db.js';
import { appendTrace, findEvent, log, setDispatcher, watchSpaceContent } from './events.js';
import { coveredTarget, findInstallation } from './installations.js';
import { contentInstallationJson, installationJson, integrationJson, payloadJson } from './json.js';
import { deliverySecret, signatureHeader } from './secrets.js';
import { integrationById, secretsOf, type IntegrationRow } from './store.js';
import { deliveryUrl } from './development.js';
import type { EndpointPolicy } from './endpoints.js';

/**
 * Delivery of events to the endpoint an integration declares. Each event to deliver is a job
 * of the platform's queue, enqueued in the transaction that records the event, so a restart
 * neither loses nor repeats it: a job waiting (or waiting for a retry) runs after the restart,
 * and one that was running runs again only if its event is still pending. Jobs of one
 * installation run one at a time, in the order of their events.
 *
 * A delivery is what the integration runtime takes: `POST <endpoint>` with a
 * `multipart/form-data` body of two JSON fields, `event` (the payload) and `environment` (the
 * integration, the installation, the space or site installation the event is about, the API's
 * URL and the integration's secrets), signed in `X-GitBook-Signature` with the installation's
 * delivery secret (see `secrets.ts`). A 2xx answer is a success; another answer, a timeout or a
 * connection failure is retried after a wait that doubles (3 attempts in all), then the event is
 * `failed`. Every attempt adds a line to the event's trace.
 */

export const DELIVERY_JOB = 'integration-delivery';
/** Attempts of one delivery. */
export const DELIVERY_ATTEMPTS = 3;
/** Time one attempt may take, unless configured. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;
/** Wait before the second attempt (the third waits twice as long), unless configured. */
export const DEFAULT_DELIVERY_RETRY_BASE_MS = 2_000;

export interface DeliveryOptions {
  /** Which endpoints and tunnels may receive deliveries, and which of them may be private. */
  endpoints: EndpointPolicy;
  /** @default DEFAULT_DELIVERY_TIMEOUT_MS */
  timeoutMs?: number | undefined;
  /** @default DEFAULT_DELIVERY_RETRY_BASE_MS */
  retryBaseMs?: number | undefined;
  /** `http://host:port` of the platform, for the URLs in what is delivered. */
  origin: () => string;
}

interface DeliveryJob {
  eventId: string;
}

/** A `multipart/form-data` body of JSON fields, with its boundary. */
export function multipartBody(fields: Record<string, unknown>): { body: Buffer; contentType: string } {
  const boundary = `----platform-${randomBytes(16).toString('hex')}`;
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\nContent-Type: application/json\r\n\r\n${JSON.stringify(value)}\r\n`,
  );
  return {
    body: Buffer.from(`${parts.join('')}--${boundary}--\r\n`, 'utf8'),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/**
 * What the runtime gets beside an event of `installationId` (none for the integration's own):
 * `IntegrationEnvironment`, as far as the platform has it.
 */
export function environmentOf(
  db: Db,
  integration: IntegrationRow,
  installationId: string | null,
  payload: Record<string, unknown>,
  links: Links,
) {
  const installation = installationId ? findInstallation(db, integration, installationId) : undefined;
  const on = (kind: 'space' | 'site', id: unknown) => {
    if (!installation || typeof id !== 'string') return undefined;
    const target = coveredTarget(db, installation, kind, id);
    return target
      ? contentInstallationJson(db, integration, installation, kind, target, { extended: false, links })
      : undefined;
  };
  const spaceInstallation = on('space', payload.spaceId);
  const siteInstallation = on('site', payload.siteId);
  return {
    apiEndpoint: links.api,
    integration: integrationJson(db, integration, undefined, links),
    ...(installation ? { installation: installationJson(db, integration, installation, links) } : {}),
    ...(spaceInstallation ? { spaceInstallation } : {}),
    ...(siteInstallation ? { siteInstallation } : {}),
    secrets: secretsOf(db, integration),
  };
}

/** One attempt at delivering an event: throws to be retried, returns when done with it. */
async function deliver(db: Db, job: DeliveryJob, attempt: number, options: DeliveryOptions): Promise<void> {
  const event = findEvent(db, job.eventId);
  // Gone with its integration, or delivered by an attempt a restart interrupted after it ended.
  if (event?.status !== 'pending') return;
  const integration = integrationById(db, event.integration_id);
  if (!integration) return;
  // A tunnel of development mode, or the published endpoint.
  const endpoint = deliveryUrl(db, integration, event.installation_id);
  if (!endpoint) {
    appendTrace(
      db,
      event.id,
      [log('info', 'The integration no longer declares an endpoint: nothing to deliver')],
      'success',
    );
    return;
  }
  const problem = options.endpoints.problem(endpoint);
  if (problem) {
    appendTrace(db, event.id, [log('error', `Not delivered: the endpoint ${problem}`)]);
    throw new PermanentJobError('the endpoint is not allowed');
  }
  const links = linksFor(options.origin());
  const payload = payloadJson(db, event, links);
  const { body, contentType } = multipartBody({
    event: payload,
    environment: environmentOf(db, integration, event.installation_id, payload, links),
  });
  const secret = deliverySecret(db, event.installation_id ?? integration.id);
  const shown = displayUrl(new URL(endpoint));
  const started = Date.now();
  let outcome: string;
  try {
    const { status } = await postUrl(endpoint, {
      allowPrivate: options.endpoints.allowPrivate(endpoint),
      timeoutMs: options.timeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS,
      body,
      headers: {
        'content-type': contentType,
        'x-gitbook-signature': signatureHeader(secret, body),
        'x-gitbook-event-id': event.id,
        'x-gitbook-event-type': event.type,
        ...(event.installation_id ? { 'x-gitbook-installation-id': event.installation_id } : {}),
      },
    });
    const ms = Date.now() - started;
    if (status >= 200 && status < 300) {
      appendTrace(
        db,
        event.id,
        [
          log(
            'info',
            `Attempt ${attempt} of ${DELIVERY_ATTEMPTS}: delivered to ${shown}, answered ${status} in ${ms} ms`,
          ),
        ],
        'success',
      );
      return;
    }
    outcome = `${shown} answered ${status} in ${ms} ms`;
  } catch (error) {
    if (!(error instanceof OutboundError)) throw error;
    outcome = `${error.message} (after ${Date.now() - started} ms)`;
  }
  const last = attempt >= DELIVERY_ATTEMPTS;
  const wait = retryWait(options)(attempt);
  appendTrace(db, event.id, [
    log(
      last ? 'error' : 'warn',
      `Attempt ${attempt} of ${DELIVERY_ATTEMPTS} failed: ${outcome}${last ? '' : `; next attempt in ${wait} ms`}`,
    ),
  ]);
  throw new Error(`delivery attempt ${attempt} failed`);
}

const retryWait = (options: DeliveryOptions) => (attempt: number) =>
  (options.retryBaseMs ?? DEFAULT_DELIVERY_RETRY_BASE_MS) * 2 ** (attempt - 1);

/**
 * Registers deliveries with the queue, records `space_content_updated` for spaces with
 * installations, and queues the delivery of pending events that have no job (recorded while no
 * platform ran on the database). Returns the function that stops watching.
 */
export function registerIntegrations(queue: JobQueue, db: Db, options: DeliveryOptions): () => void {
  queue.register<DeliveryJob>(DELIVERY_JOB, {
    // An attempt interrupted by a restart runs again unless its event was marked delivered:
    // a receiver may then get it twice, and can tell by its `eventId`.
    interrupted: 'resume',
    backoff: retryWait(options),
    run: (job, { db: jobDb, attempt }) => deliver(jobDb, job, attempt, options),
    failed(job, _reason, { db: jobDb }) {
      // The reason of an unexpected failure may name internals: the trace says what was tried.
      appendTrace(jobDb, job.eventId, [log('error', 'Delivery failed: the event was not delivered')], 'failed');
    },
  });
  const dispatch = (eventId: string, installationId: string) => {
    queue.enqueue(DELIVERY_JOB, { eventId } satisfies DeliveryJob, {
      key: `integration-installation:${installationId}`,
      maxAttempts: DELIVERY_ATTEMPTS,
    });
  };
  const stopDispatching = setDispatcher(db, dispatch);
  const stopWatching = watchSpaceContent(db);
  db.transaction(() => {
    const orphans = db
      .prepare(
        `SELECT id, installation_id FROM integration_events e WHERE status = 'pending'
           AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.kind = ? AND j.state IN ('queued', 'running') AND json_extract(j.payload, '$.eventId') = e.id)
         ORDER BY seq`,
      )
      .all(DELIVERY_JOB) as Array<{ id: string; installation_id: string | null }>;
    for (const orphan of orphans) dispatch(orphan.id, orphan.installation_id ?? '');
  })();
  return () => {
    stopDispatching();
    stopWatching();
  };
}

import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { readBounded, tooLarge } from '../policy/limits.js';
import { callerOf } from '../state/caller.js';
import type { Budgets, Claims } from '../state/store.js';
import type { LiveHub } from './hub.js';

import { PLATFORM_EVENTS_PATH } from './events-path.js';

export { PLATFORM_EVENTS_PATH };

/** How far a delivery's signed time may be from this clock, in seconds, either way. @default 300 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** How long an event's id stays claimed: the platform's retries of one delivery, and its repeats after a crash. */
const EVENT_ID_MS = 60 * 60 * 1000;

/** What a delivery came to, as `graphql_gateway_platform_events_total` counts it. */
export type DeliveryOutcome =
  | 'accepted'
  | 'ignored'
  | 'unsigned'
  | 'unknown_installation'
  | 'expired'
  | 'bad_signature'
  | 'replayed'
  | 'too_large'
  | 'malformed'
  | 'rate_limited';

/** Options of `usePlatformEvents`. */
export interface PlatformEventsOptions {
  /** The signing secret of each installation whose events the gateway takes, by installation id (filled at registration). */
  secrets: ReadonlyMap<string, string>;
  live: Pick<LiveHub, 'wake'>;
  /** Forgets the cached answers that hold a space whose content changed (the response cache, when on). */
  forgetSpaces?: (spaceIds: string[]) => Promise<void> | void;
  /** The signatures and event ids already taken, shared by the replicas. */
  claims: Claims;
  /** Largest body read (the gateway's `maxRequestBytes`). */
  maxBytes: number;
  /** @default DEFAULT_TOLERANCE_SECONDS */
  toleranceSeconds?: number;
  /**
   * The budgets of client addresses, when rate limits are on: each refused delivery spends a point
   * of its address's budget (that of its callers without a token), and an address that spent it is
   * refused at once (429), before any signature is computed. Deliveries taken cost nothing.
   */
  refusals?: { budgets: Budgets; points: number; windowMs: number };
  /** Hears what became of each delivery (metrics): its type when the gateway acts on that type, else `other`. */
  onDelivery?: (type: string, outcome: DeliveryOutcome) => void;
}

/** The events that say a space's content (or its Git Sync) changed: what subscriptions and cached answers follow. */
const SPACE_EVENTS: ReadonlySet<string> = new Set([
  'space_content_updated',
  'space_gitsync_started',
  'space_gitsync_completed',
]);

const eventField = z.looseObject({ type: z.string().max(100), spaceId: z.string().max(200).optional() });

/**
 * `POST /platform-events`: the platform's integration events, as it delivers them to the gateway's
 * installations (see `registerForEvents`). A delivery is taken only when its `X-GitBook-Signature`
 * (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) verifies with the secret of the
 * installation it names, over the exact bytes received and before anything parses them; when its
 * time is within the tolerance; and when neither its signature nor its event id was taken before
 * (by any replica). A change of a space's content wakes the subscriptions that follow it and
 * forgets the cached answers that hold it. Everything is answered before a body is read whenever
 * the headers suffice, and no body is read past `maxBytes`.
 */
export function usePlatformEvents(options: PlatformEventsOptions): Plugin {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  return {
    onRequest({ url, request, serverContext, endResponse }) {
      if (url.pathname !== PLATFORM_EVENTS_PATH) return;
      if (request.method !== 'POST')
        return endResponse(
          refusal(405, 'BAD_USER_INPUT', 'METHOD_NOT_ALLOWED', 'Events are delivered with POST', { allow: 'POST' }),
        );
      return receiveWithin(request, serverContext, options, tolerance).then(endResponse);
    },
  };
}

/** `receive`, charged to the address's budget when it is refused (see `PlatformEventsOptions.refusals`). */
async function receiveWithin(
  request: Request,
  serverContext: object,
  options: PlatformEventsOptions,
  tolerance: number,
): Promise<Response> {
  const address = options.refusals && callerOf(serverContext, request).addressKey('anonymous');
  if (!options.refusals || !address) return receive(request, options, tolerance);
  const { budgets, points, windowMs } = options.refusals;
  const look = await budgets.take(address, 0, points, windowMs);
  // Nothing left is enough (a look is admitted until the budget is overspent).
  if (look && (!look.admitted || look.used >= points)) {
    options.onDelivery?.('other', 'rate_limited');
    const retryAfter = Math.max(1, Math.ceil((look.resetAt - Date.now()) / 1000));
    return refusal(
      429,
      'RATE_LIMITED',
      'ADDRESS_BUDGET_SPENT',
      `This address spent its ${points} points on refused requests until ${new Date(look.resetAt).toISOString()}`,
      { 'retry-after': String(retryAfter) },
    );
  }
  const response = await receive(request, options, tolerance);
  if (look && response.status >= 400) await budgets.adjust(address, 1, look.resetAt);
  return response;
}

async function receive(request: Request, options: PlatformEventsOptions, tolerance: number): Promise<Response> {
  // A label of the metrics: the events the gateway acts on by name, any other as one.
  const named = request.headers.get('x-gitbook-event-type') ?? '';
  const type = SPACE_EVENTS.has(named) ? named : 'other';
  const answer = (outcome: DeliveryOutcome, response: Response) => {
    options.onDelivery?.(type, outcome);
    return response;
  };
  const signature = parseSignature(request.headers.get('x-gitbook-signature'));
  const installation = request.headers.get('x-gitbook-installation-id');
  const eventId = request.headers.get('x-gitbook-event-id');
  if (!signature || !installation || !eventId)
    return answer(
      'unsigned',
      unauthenticated(
        'SIGNATURE_MISSING',
        'A delivery carries X-GitBook-Signature (t=<seconds>,v1=<hex>), X-GitBook-Installation-Id and X-GitBook-Event-Id',
      ),
    );
  const secret = options.secrets.get(installation);
  if (!secret)
    return answer(
      'unknown_installation',
      unauthenticated('UNKNOWN_INSTALLATION', 'This gateway takes no events of that installation'),
    );
  const skew = Math.abs(Date.now() / 1000 - signature.t);
  if (skew > tolerance)
    return answer(
      'expired',
      unauthenticated(
        'SIGNATURE_EXPIRED',
        `The signature's time is more than ${tolerance} s from this gateway's clock`,
      ),
    );
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > options.maxBytes) return answer('too_large', tooLarge(options.maxBytes));
  const bytes = request.body ? await readBounded(request, options.maxBytes) : new Uint8Array();
  if (!bytes) return answer('too_large', tooLarge(options.maxBytes));
  if (!signature.v1.some((mac) => verifies(secret, signature.t, bytes, mac)))
    return answer('bad_signature', unauthenticated('SIGNATURE_INVALID', 'The signature does not match the body'));
  // The signature covers the time and the body: a delivery sent again as it was is the same signature.
  // The event id covers the platform's own repeats (a retry after an answer that never arrived).
  const [fresh, firstOfEvent] = await Promise.all([
    options.claims.claim(`signature:${signature.v1[0]}`, 2 * tolerance * 1000),
    options.claims.claim(`event:${installation}:${eventId}`, EVENT_ID_MS),
  ]);
  if (!fresh || !firstOfEvent)
    return answer('replayed', refusal(409, 'CONFLICT', 'EVENT_REPLAYED', 'This delivery was already taken'));
  const event = await readEvent(request.headers.get('content-type'), bytes);
  if (!event)
    return answer(
      'malformed',
      refusal(400, 'BAD_USER_INPUT', 'EVENT_MALFORMED', 'A delivery is multipart/form-data with an "event" JSON field'),
    );
  if (!SPACE_EVENTS.has(event.type) || !event.spaceId) return answer('ignored', received());
  // Before the answer: a read made after the platform heard it was delivered is not served stale.
  try {
    await options.forgetSpaces?.([event.spaceId]);
  } catch {
    // The shared cache away: its entries end with their time, as when a write's invalidation fails.
  }
  options.live.wake([event.spaceId]);
  return answer('accepted', received());
}

/** The parts of `t=<seconds>,v1=<hex>[,v1=<hex>…]`, or undefined when it is not one. */
function parseSignature(header: string | null): { t: number; v1: string[] } | undefined {
  if (!header || header.length > 1000) return undefined;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [name, value = ''] = part.trim().split('=', 2);
    if (name === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  return t === undefined || v1.length === 0 ? undefined : { t, v1 };
}

/** Whether `mac` is the HMAC-SHA256 of `<t>.<body>` under `secret`, compared in constant time. */
function verifies(secret: string, t: number, body: Uint8Array, mac: string): boolean {
  const expected = createHmac('sha256', secret).update(`${t}.`).update(body).digest();
  return timingSafeEqual(expected, Buffer.from(mac, 'hex'));
}

/** The `event` field of a delivery's form, parsed, or undefined when it has none or it is not JSON of an event. */
async function readEvent(
  contentType: string | null,
  body: Uint8Array<ArrayBuffer>,
): Promise<z.infer<typeof eventField> | undefined> {
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return undefined;
  try {
    const form = await new Response(body, { headers: { 'content-type': contentType! } }).formData();
    const field = form.get('event');
    const text = typeof field === 'string' ? field : await field?.text();
    const parsed = eventField.safeParse(text === undefined ? undefined : JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function received(): Response {
  return Response.json({ received: true });
}

function unauthenticated(reason: string, message: string): Response {
  return refusal(401, 'UNAUTHENTICATED', reason, message);
}

function refusal(
  status: number,
  code: ErrorCode,
  reason: string,
  message: string,
  headers: Record<string, string> = {},
): Response {
  return Response.json({ errors: [{ message, extensions: { code, reason } }] }, { status, headers });
}

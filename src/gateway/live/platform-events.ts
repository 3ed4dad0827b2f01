import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';
import { z } from 'zod';
import type { ErrorCode } from '../errors.js';
import { readBounded, tooLarge } from '../policy/limits.js';
import { callerOf } from '../state/caller.js';
import type { Budgets, Claims } from '../state/store.js';
import { PLATFORM_EVENTS_PATH } from './events-path.js';
import type { LiveHub } from './hub.js';

export { PLATFORM_EVENTS_PATH };

/** How far a delivery's signed time may be from this clock, in seconds, either way. @default 300 */
export const DEFAULT_TOLERANCE_SECONDS = 300;

/** How long an event's id stays claimed: the platform's retries of one delivery, and its repeats after a crash. */
const EVENT_ID_MS = 60 * 60 * 1000;

/** What a delivery came to, as `graphql_gateway_platform_events_total` counts it. */
export type DeliveryOutcome =
  | 'accepted'
  | 'ignored'
  | 'duplicate'
  | 'not_ready'
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
  /**
   * The signing secret of each installation whose events the gateway takes, by installation id
   * (a registration's): empty until one, every delivery being answered 503 meanwhile.
   */
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
   * The rate limits, when on: a delivery refused after the gateway read its body or computed its
   * signature spends a point of its client address's budget for deliveries, and an address that
   * spent it is refused at once (429). Refusals read off the headers, and deliveries taken, cost nothing.
   */
  refusals?: { budgets: Budgets; points: number; windowMs: number; failOpen: boolean };
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
type PlatformEvent = z.infer<typeof eventField>;

/** What became of a delivery: its answer, and whether its refusal spends its address's budget. */
interface Received {
  outcome: DeliveryOutcome;
  response: Response;
  /** A refusal the gateway did work for (read the body, computed the signature). */
  charged?: boolean;
  event?: PlatformEvent;
}

/**
 * `POST /platform-events`: the platform's integration events, as it delivers them to the gateway's
 * installations (see `registerForEvents`). A delivery is taken only when its `X-GitBook-Signature`
 * (`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`) verifies with the secret of the
 * installation it names, over the exact bytes received and before anything parses them; when its
 * time is within the tolerance; and when its signature was never taken before, by any replica (a
 * replay: 409). The platform's own repeat of an event taken (same event id, new signature: a retry
 * after an answer it never got) is answered 200 and acted on once. A change of a space's content
 * forgets the cached answers that hold the space, then wakes the subscriptions that follow it.
 * Headers are checked before any byte of the body is read, and no body is read past `maxBytes`.
 */
export function usePlatformEvents(options: PlatformEventsOptions): Plugin {
  return {
    onRequest({ url, request, serverContext, endResponse }) {
      if (url.pathname !== PLATFORM_EVENTS_PATH) return;
      if (request.method !== 'POST')
        return endResponse(
          refusal(405, 'BAD_USER_INPUT', 'METHOD_NOT_ALLOWED', 'Events are delivered with POST', { allow: 'POST' }),
        );
      return counted(request, serverContext, options).then(endResponse);
    },
  };
}

/** `receive`, and what became of it counted by type and outcome. */
async function counted(request: Request, serverContext: object, options: PlatformEventsOptions): Promise<Response> {
  const received = await receive(request, serverContext, options);
  const type = received.event?.type ?? request.headers.get('x-gitbook-event-type') ?? '';
  options.onDelivery?.(SPACE_EVENTS.has(type) ? type : 'other', received.outcome);
  return received.response;
}

/**
 * Checks a delivery in the order that costs least first, then acts on it. What its headers refuse
 * costs nothing; before any work (reading the body, computing the MAC), a point of the address's
 * budget is held, and kept only when the delivery is refused (see `PlatformEventsOptions.refusals`).
 */
async function receive(request: Request, serverContext: object, options: PlatformEventsOptions): Promise<Received> {
  if (options.secrets.size === 0)
    return {
      outcome: 'not_ready',
      response: refusal(
        503,
        'PRECONDITION_FAILED',
        'EVENTS_NOT_READY',
        'This gateway is not registered for events yet',
        {
          'retry-after': '5',
        },
      ),
    };
  const signed = authenticate(request, options);
  if ('outcome' in signed) return signed;
  const budget = await holdPoint(request, serverContext, options.refusals);
  if (budget instanceof Response) return { outcome: 'rate_limited', response: budget };
  const received = await verifyAndAct(request, signed, options);
  await budget?.settle(received.charged === true);
  return received;
}

/**
 * Holds a point of the address's budget for deliveries while one is checked: `settle` keeps it
 * (a refusal that cost work) or gives it back; the 429 of an address that spent it; nothing
 * without rate limits, or when the budget cannot be read and they fail open.
 */
async function holdPoint(
  request: Request,
  serverContext: object,
  refusals: PlatformEventsOptions['refusals'],
): Promise<{ settle(charged: boolean): Promise<unknown> } | Response | undefined> {
  const address = refusals && callerOf(serverContext, request).addressKey('platform-events');
  if (!refusals || !address) return undefined;
  const { budgets, points, windowMs, failOpen } = refusals;
  const state = await budgets.take(address, 1, points, windowMs);
  if (!state)
    return failOpen
      ? undefined
      : refusal(
          429,
          'RATE_LIMITED',
          'BUDGET_UNREADABLE',
          'Rate limits cannot be checked right now: try again shortly',
          {
            'retry-after': '1',
          },
        );
  if (!state.admitted)
    return refusal(
      429,
      'RATE_LIMITED',
      'ADDRESS_BUDGET_SPENT',
      `This address spent its ${points} points on refused deliveries until ${new Date(state.resetAt).toISOString()}`,
      { 'retry-after': String(Math.max(1, Math.ceil((state.resetAt - Date.now()) / 1000))) },
    );
  // Settled as an operation is: what it spent (a point, or nothing) less what it held.
  return {
    settle: (charged) => budgets.adjust(address, (charged ? 1 : 0) - state.taken, state.resetAt, state.taken),
  };
}

/** Reads the body within its bound, verifies its MAC, claims it, parses it, and acts on its event. */
async function verifyAndAct(request: Request, signed: Signed, options: PlatformEventsOptions): Promise<Received> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  const bytes =
    declared > options.maxBytes
      ? undefined
      : request.body
        ? await readBounded(request, options.maxBytes)
        : new Uint8Array();
  if (!bytes) return { outcome: 'too_large', response: tooLarge(options.maxBytes), charged: true };
  const mac = createHmac('sha256', signed.secret).update(`${signed.t}.`).update(bytes).digest();
  if (!signed.v1.some((sent) => timingSafeEqual(mac, Buffer.from(sent, 'hex'))))
    return {
      outcome: 'bad_signature',
      response: unauthenticated('SIGNATURE_INVALID', 'The signature does not match the body'),
      charged: true,
    };
  // The MAC covers the time and the body: the same delivery sent again, whatever else its headers say.
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (!(await options.claims.claim(`signature:${signed.installation}:${mac.toString('hex')}`, 2 * tolerance * 1000)))
    return {
      outcome: 'replayed',
      response: refusal(409, 'CONFLICT', 'EVENT_REPLAYED', 'This delivery was already taken'),
      charged: true,
    };
  const event = await readEvent(request.headers.get('content-type'), bytes);
  if (!event)
    return {
      outcome: 'malformed',
      response: refusal(
        400,
        'BAD_USER_INPUT',
        'EVENT_MALFORMED',
        'A delivery is multipart/form-data with an "event" JSON field',
      ),
      charged: true,
    };
  if (!(await options.claims.claim(`event:${signed.installation}:${signed.eventId}`, EVENT_ID_MS)))
    return { outcome: 'duplicate', response: received(), event };
  if (!SPACE_EVENTS.has(event.type) || !event.spaceId) return { outcome: 'ignored', response: received(), event };
  await act(event.spaceId, options);
  return { outcome: 'accepted', response: received(), event };
}

/** What a delivery's headers say of it, once they passed (see `authenticate`). */
interface Signed {
  t: number;
  v1: string[];
  installation: string;
  eventId: string;
  secret: string;
}

/** The delivery's signature, installation and secret as its headers give them, or the refusal they earn. */
function authenticate(request: Request, options: PlatformEventsOptions): Signed | Received {
  const signature = parseSignature(request.headers.get('x-gitbook-signature'));
  const installation = request.headers.get('x-gitbook-installation-id');
  const eventId = request.headers.get('x-gitbook-event-id');
  if (!signature || !installation || !eventId || eventId.length > 200)
    return {
      outcome: 'unsigned',
      response: unauthenticated(
        'SIGNATURE_MISSING',
        'A delivery carries X-GitBook-Signature (t=<seconds>,v1=<64 hex digits>), X-GitBook-Installation-Id and X-GitBook-Event-Id',
      ),
    };
  const secret = options.secrets.get(installation);
  if (!secret)
    return {
      outcome: 'unknown_installation',
      response: unauthenticated('UNKNOWN_INSTALLATION', 'This gateway takes no events of that installation'),
    };
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(Date.now() / 1000 - signature.t) > tolerance)
    return {
      outcome: 'expired',
      response: unauthenticated(
        'SIGNATURE_EXPIRED',
        `The signature's time is more than ${tolerance} s from this gateway's clock`,
      ),
    };
  return { ...signature, installation, eventId, secret };
}

/** Forgets the cached answers holding the space, then wakes its watches: a read after the answer is fresh. */
async function act(spaceId: string, options: PlatformEventsOptions): Promise<void> {
  try {
    await options.forgetSpaces?.([spaceId]);
  } catch {
    // The shared cache away: its entries end with their time, as when a write's invalidation fails.
  }
  options.live.wake([spaceId]);
}

/** The parts of `t=<seconds>,v1=<hex>[,v1=<hex>…]` (at most 8 `v1`), or undefined when it is not one. */
function parseSignature(header: string | null): { t: number; v1: string[] } | undefined {
  if (!header || header.length > 1000) return undefined;
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [name, value = ''] = part.trim().split('=', 2);
    if (name === 't' && /^\d{1,12}$/.test(value)) t = Number(value);
    if (name === 'v1' && /^[0-9a-f]{64}$/i.test(value)) v1.push(value.toLowerCase());
  }
  return t === undefined || v1.length === 0 || v1.length > 8 ? undefined : { t, v1 };
}

/** The `event` field of a delivery's form, parsed, or undefined when it has none or it is not JSON of an event. */
async function readEvent(
  contentType: string | null,
  body: Uint8Array<ArrayBuffer>,
): Promise<PlatformEvent | undefined> {
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

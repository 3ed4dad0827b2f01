import { createHash } from 'node:crypto';
import { partsOf } from '../request-parts.js';
import { addressGroup } from './client-address.js';

/**
 * The key of a caller in the gateway's state (response cache entries, budgets, subscription polls):
 * a hash of its credentials, so that no token is ever stored, sent to Redis, or shown. The header
 * is read as the platform reads it (the scheme in any case, any run of spaces before the token),
 * so that `bearer  t` and `Bearer t` are one caller with one budget, and a signed token (a JWT:
 * the platform's visitor tokens) as its signature's bytes, whose base64url text has several
 * spellings the platform accepts alike. Callers without credentials share the key `anonymous`.
 */
export function callerKey(authorization: string | null | undefined): string {
  const credentials = authorization?.trim();
  if (!credentials) return 'anonymous';
  const [, scheme, token] = /^(\S+)\s+(.*)$/.exec(credentials) ?? [undefined, credentials, ''];
  return createHash('sha256')
    .update(`${scheme!.toLowerCase()} ${canonicalToken(token!.trim())}`)
    .digest('base64url');
}

const SIGNED_TOKEN = /^([\w-]+\.[\w-]+)\.([\w-]+)=*$/;

/** A JWT with its signature written one way (unused trailing bits dropped, no padding); any other token as it is. */
function canonicalToken(token: string): string {
  const signed = SIGNED_TOKEN.exec(token);
  return signed ? `${signed[1]}.${Buffer.from(signed[2]!, 'base64url').toString('base64url')}` : token;
}

/**
 * The budgets of a client address, each apart so that spending one locks no other out: what its
 * callers without a token spend (`anonymous`), what its tokens the platform has not accepted yet
 * spend (`unverified`), the checks of such tokens with the platform it may still ask for
 * (`token-checks`), and its deliveries to `/platform-events` that the gateway refused after doing
 * work for them (`platform-events`).
 */
export type AddressBudget = 'anonymous' | 'unverified' | 'token-checks' | 'platform-events';

/**
 * Who sent a request: its credentials and, when its transport could tell, its client address.
 * Hashed once, when first asked for, however many plugins ask (the response cache, the budget,
 * its report).
 */
export class Caller {
  #key: string | undefined;

  constructor(
    private readonly authorization: string | null | undefined,
    /** Where the request came from (see `clientAddress`), when its transport could tell. */
    readonly address: string | undefined,
  ) {}

  /** The caller's key (see `callerKey`). */
  get key(): string {
    this.#key ??= callerKey(this.authorization);
    return this.#key;
  }

  /**
   * The budget key of where the request came from: `budget` and a hash of its client address's
   * group (an IPv6 client by its /64, see `addressGroup`; no address is stored either), or
   * undefined when its transport could not tell (an in-process request).
   */
  addressKey(budget: AddressBudget = 'anonymous'): string | undefined {
    const address = this.address;
    return address && `${budget}:${createHash('sha256').update(addressGroup(address)).digest('base64url')}`;
  }

  /**
   * Whose budget the request spends (rate limits, the subscriptions a caller holds): its
   * credentials', or, for a caller without any, its client address's, so that one anonymous
   * client cannot spend every other's.
   */
  get budgetKey(): string {
    const key = this.key;
    return key === 'anonymous' ? (this.addressKey() ?? key) : key;
  }
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** Who sent the request (see `useClientAddress`, which adds it from the request's first hook). */
    caller?: Caller | undefined;
  }
}

/**
 * The caller of a request, kept on its server context: added by the chain's first hooks, or made
 * here from its credentials alone for a request that came another way.
 */
export function callerOf(serverContext: object, request: Request): Caller {
  const parts = partsOf(serverContext);
  parts.caller ??= new Caller(request.headers.get('authorization'), undefined);
  return parts.caller;
}

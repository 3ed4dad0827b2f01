import { isIP } from 'node:net';
import { eventReceiverOf } from '../../config.js';
import { hostOf, isLoopbackName, isPrivateAddress, outboundUrlProblem } from '../outbound.js';

/**
 * Which URLs may receive what the platform sends integrations (events to an endpoint or a
 * development tunnel, `ui_render` calls), decided in one place for publishing, development mode,
 * delivery and rendering. An `https` URL on a public address, without credentials or fragment; with
 * private URLs allowed (demo and test runs), also private addresses and `http` on loopback. Besides,
 * the operator names receivers (`PLATFORM_EVENT_RECEIVERS`, such as the gateway's own receiver on
 * loopback): each of those exact URLs is accepted over `http` or on a private or loopback address,
 * and only its connections may reach that address; every other URL is judged as without them.
 */
export class EndpointPolicy {
  readonly #allowPrivateUrls: boolean;
  readonly #receivers: ReadonlySet<string>;

  /**
   * @param allowPrivateUrls Every URL may be private or loopback (demo and test runs only).
   * @param receivers Absolute `http` or `https` URLs without credentials or fragment, each accepted as
   *   it is; anything else throws, naming the entry without its credentials.
   */
  constructor(allowPrivateUrls: boolean, receivers: readonly string[] = []) {
    this.#allowPrivateUrls = allowPrivateUrls;
    this.#receivers = new Set(receivers.map(receiverHref));
  }

  /** True when `raw` is one of the receivers (compared as parsed: `new URL(raw).href`, query included). */
  isReceiver(raw: string): boolean {
    if (this.#receivers.size === 0) return false;
    const url = URL.parse(raw);
    return url !== null && this.#receivers.has(url.href);
  }

  /** Whether a connection to `raw` may reach a private or loopback address: for a receiver alone, unless all may. */
  allowPrivate(raw: string): boolean {
    return this.#allowPrivateUrls || this.isReceiver(raw);
  }

  /**
   * Why `raw` cannot receive what the platform sends an integration, or undefined when it can (see the
   * class). Checks the URL alone, not the addresses its host resolves to. The reason never repeats the URL.
   */
  problem(raw: string): string | undefined {
    const url = URL.parse(raw);
    if (!url) return 'must be an absolute https URL';
    if (url.username || url.password) return 'must not contain credentials: the platform signs every delivery instead';
    if (url.hash) return 'must not contain a fragment';
    if (this.isReceiver(raw)) return undefined;
    const allowPrivate = this.#allowPrivateUrls;
    const host = hostOf(url);
    if (url.protocol === 'http:' && allowPrivate && isLoopbackHost(host)) return undefined;
    if (url.protocol !== 'https:')
      return allowPrivate ? 'must be an https URL, or an http URL on loopback' : 'must be an https URL';
    if (!allowPrivate && (isLoopbackHost(host) || (isIP(host) !== 0 && isPrivateAddress(host))))
      return 'must not be a private or loopback address';
    return undefined;
  }

  /**
   * `problem`, then (unless `raw` may reach private addresses) the addresses its host resolves to,
   * checked by the outbound guard: when a URL is saved, a clear refusal beats deliveries that fail
   * later. Each connection checks again the address it is made to.
   */
  savedProblem(raw: string): Promise<string | undefined> {
    return outboundUrlProblem(raw, this.problem(raw), this.allowPrivate(raw));
  }
}

function isLoopbackHost(host: string): boolean {
  return isLoopbackName(host) || host === '::1' || (isIP(host) === 4 && host.startsWith('127.'));
}

/** A receiver as it is compared (`href`, as the setting reads it); throws for a URL that cannot be one. */
function receiverHref(raw: string): string {
  const href = eventReceiverOf(raw);
  if (href !== undefined) return href;
  const shown = raw.slice(0, 100).replace(/\/\/[^/]*@/, '//***@');
  throw new Error(
    `The event receiver "${shown}" is not one: an absolute http or https URL on an IP address or localhost, without credentials or fragment`,
  );
}

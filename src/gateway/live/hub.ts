import { createHash } from 'node:crypto';
import { Repeater } from 'graphql-yoga';
import type { z } from 'zod';
import { GatewayError } from '../errors.js';
import { callerKey } from '../state/caller.js';
import { queryString, type Query, type RestClient } from '../upstream/client.js';
import type { ReadApi } from '../upstream/request.js';

/** Options of `LiveHub`. */
export interface LiveHubOptions {
  /** Milliseconds between two polls of a watched resource (`SUBSCRIPTION_POLL_MS`). @default 2000 */
  intervalMs?: number;
  /** Most subscriptions open at once in this gateway (`MAX_SUBSCRIPTIONS`). @default 10000 */
  maxSubscriptions?: number;
}

/** Upstream refusals that end a subscription: the resource is gone, or the caller may no longer read it. */
const ENDING_CODES: ReadonlySet<string> = new Set(['NOT_FOUND', 'UNAUTHENTICATED', 'FORBIDDEN']);

/** One subscriber of a watch: where its events go, and how it is ended. */
interface Subscriber {
  push(value: unknown): Promise<unknown>;
  stop(error?: unknown): void;
  /** Whether it already has the resource as it is (its first event). */
  current: boolean;
}

/** One resource as one caller reads it, polled once per interval for all its subscribers. */
interface Watch {
  key: string;
  read: (api: ReadApi) => Promise<unknown>;
  version: (value: unknown) => unknown;
  authorization: string | undefined;
  subscribers: Set<Subscriber>;
  /** Per path read, the entity tag and data of its last answer: sent as `If-None-Match`, kept for a 304. */
  answers: Map<string, { etag: string | undefined; data: unknown }>;
  /** What the read last came to, and a hash of it (an upstream without entity tags is compared by it). */
  last?: { value: unknown; hash: string };
  timer?: NodeJS.Timeout;
}

/**
 * Subscriptions over a REST API without push: one poller per resource and caller, however many
 * subscribers. Subscribers of the same path with the same `Authorization` share one conditional
 * GET per interval (`If-None-Match` with the last entity tag: an unchanged resource costs the
 * upstream a 304); different credentials never share a poll, each is authorized upstream. Each
 * subscriber gets the resource as it is, then every new version; a resource that is gone, or that
 * the caller may no longer read, ends its subscriptions with that coded error. The poll stops with
 * its last subscriber.
 */
export class LiveHub {
  private readonly watches = new Map<string, Watch>();
  private readonly intervalMs: number;
  private readonly maxSubscriptions: number;
  private open = 0;
  private closed = false;

  constructor(
    private readonly client: RestClient,
    options: LiveHubOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.maxSubscriptions = options.maxSubscriptions ?? 10_000;
  }

  /** Subscriptions open now. */
  get subscriptions(): number {
    return this.open;
  }

  /** Resources polled now (one per path and caller). */
  get polled(): number {
    return this.watches.size;
  }

  /** Refuses a new subscription past `maxSubscriptions`, with a coded error naming the limit. */
  private admit(): void {
    if (this.open + 1 > this.maxSubscriptions) {
      throw new GatewayError(
        'RATE_LIMITED',
        `This gateway holds its most subscriptions (${this.maxSubscriptions}): close one, or try again later`,
        { budget: { limit: 'subscriptions', value: this.open + 1, max: this.maxSubscriptions } },
      );
    }
  }

  /**
   * What `read` makes of the upstream (its reads, through the upstream declarations) as
   * `authorization` reads it: first as it is, then each new version, until the consumer returns or
   * the resource ends. `resource` names what is read (`space <id>`): subscribers of the same
   * resource with the same credentials share its polls.
   */
  watch<T>(
    resource: string,
    authorization: string | undefined,
    read: (api: ReadApi) => Promise<T>,
    /** What makes a new version (the whole value by default): a change elsewhere is no event. */
    version: (value: T) => unknown = (value) => value,
    /** The subscriber's client going away: its subscription ends at once, whatever its transport does. */
    signal?: AbortSignal,
  ): AsyncIterableIterator<T> {
    this.admit();
    const key = `${resource}\u0000${callerKey(authorization)}`;
    return new Repeater<T>(async (push, stop) => {
      const subscriber: Subscriber = { push, stop, current: false };
      const leave = () => stop();
      signal?.addEventListener('abort', leave, { once: true });
      if (signal?.aborted) stop();
      const watch = this.join(key, read as Watch['read'], version as Watch['version'], authorization, subscriber);
      this.open += 1;
      try {
        await stop;
      } finally {
        signal?.removeEventListener('abort', leave);
        this.open -= 1;
        this.leave(watch, subscriber);
      }
    });
  }

  /** Stops every poll and ends every subscription. */
  close(): void {
    this.closed = true;
    for (const watch of this.watches.values()) {
      clearTimeout(watch.timer);
      for (const subscriber of watch.subscribers) subscriber.stop();
    }
    this.watches.clear();
  }

  private join(
    key: string,
    read: Watch['read'],
    version: Watch['version'],
    authorization: string | undefined,
    subscriber: Subscriber,
  ): Watch {
    let watch = this.watches.get(key);
    if (!watch) {
      watch = { key, read, version, authorization, subscribers: new Set([subscriber]), answers: new Map() };
      this.watches.set(key, watch);
      // A new watch reads the resource at once: its subscribers' first event.
      void this.poll(watch);
      return watch;
    }
    watch.subscribers.add(subscriber);
    // Else the poll under way (or the next, after a failed first one) brings it.
    if (watch.last) {
      subscriber.current = true;
      void subscriber.push(watch.last.value);
    }
    return watch;
  }

  private leave(watch: Watch, subscriber: Subscriber): void {
    watch.subscribers.delete(subscriber);
    if (watch.subscribers.size > 0 || this.watches.get(watch.key) !== watch) return;
    clearTimeout(watch.timer);
    this.watches.delete(watch.key);
  }

  private async poll(watch: Watch): Promise<void> {
    watch.timer = undefined;
    try {
      this.observe(watch, await watch.read(this.conditionalApi(watch)));
    } catch (error) {
      const code = error instanceof GatewayError ? error.code : undefined;
      if (code && ENDING_CODES.has(code)) return this.end(watch, error);
      // A failure of the upstream (down, slow, invalid answer) ends nothing: the next poll tries again.
    }
    if (watch.subscribers.size > 0 && this.watches.get(watch.key) === watch && !this.closed) {
      watch.timer = setTimeout(() => void this.poll(watch), this.intervalMs);
    }
  }

  /**
   * The reads of one poll: each GET is conditional on the entity tag of its last answer, and a 304
   * gives the data of that answer again, which nothing parsed or sent anew.
   */
  private conditionalApi(watch: Watch): ReadApi {
    return {
      get: async <S extends z.ZodType>(path: string, schema: S, query?: Query): Promise<z.infer<S>> => {
        const key = path + queryString(query);
        const known = watch.answers.get(key);
        const answer = await this.client.request({
          method: 'GET',
          path,
          query,
          schema,
          authorization: watch.authorization,
          ifNoneMatch: known?.etag,
        });
        if (answer.status === 304 && known) return known.data as z.infer<S>;
        watch.answers.set(key, { etag: answer.etag, data: answer.data });
        return answer.data as z.infer<S>;
      },
    };
  }

  /** Hands what a poll read to the subscribers that lack it: all when it changed, the new ones otherwise. */
  private observe(watch: Watch, value: unknown): void {
    const hash = createHash('sha256')
      .update(JSON.stringify(watch.version(value)) ?? '')
      .digest('base64url');
    const changed = watch.last?.hash !== hash;
    watch.last = { value, hash };
    for (const subscriber of watch.subscribers) {
      if (!changed && subscriber.current) continue;
      subscriber.current = true;
      void subscriber.push(value);
    }
  }

  private end(watch: Watch, error: unknown): void {
    this.watches.delete(watch.key);
    for (const subscriber of watch.subscribers) subscriber.stop(error);
  }
}

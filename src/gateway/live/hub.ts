import { createHash, randomUUID } from 'node:crypto';
import { Repeater } from 'graphql-yoga';
import { z } from 'zod';
import { GatewayError, type ErrorCode } from '../errors.js';
import { callerKey } from '../state/caller.js';
import type { SharedState } from '../state/store.js';
import { queryString, type Query, type RestClient } from '../upstream/client.js';
import { answerOf, pathOf, type CallName } from '../upstream/record.js';
import type { ReadApi, UpstreamUsage } from '../upstream/request.js';

const ANY = z.unknown();

/** Options of `LiveHub`. */
export interface LiveHubOptions {
  /** Milliseconds between two polls of a watched resource (`SUBSCRIPTION_POLL_MS`). @default 2000 */
  intervalMs?: number;
  /**
   * Milliseconds between two polls of a watch whose changes the platform's events report, once this
   * gateway takes its organization's events (`SUBSCRIPTION_PUSHED_POLL_MS`, see `pushFrom`): the
   * safety net under the wakes. @default 30000
   */
  pushedIntervalMs?: number;
  /** Most subscriptions open at once in this gateway (`MAX_SUBSCRIPTIONS`). @default 10000 */
  maxSubscriptions?: number;
  /** Most subscriptions one caller holds open at once in this gateway (`MAX_SUBSCRIPTIONS_PER_CALLER`). @default 1000 */
  maxPerCaller?: number;
  /**
   * State shared with the other replicas (Redis): one of them polls each resource and caller, the
   * holder of its lease, and sends what it reads to the others. Left out, this gateway polls alone.
   */
  shared?: Pick<SharedState, 'leases' | 'channels' | 'replicated'>;
}

/** What `LiveHub.watch` follows, for whom. */
export interface WatchRequest<T> {
  /** What is read (`space <id>`): subscribers of one resource with one `authorization` share its polls. */
  resource: string;
  /** The caller's `Authorization`, sent with every poll. */
  authorization: string | undefined;
  /** Whose subscription it is (the caller's budget key): `maxPerCaller` counts by it. */
  caller: string;
  /** The reads of one version. */
  read: (api: ReadApi) => Promise<T>;
  /** What makes a new version (the whole value by default): a change elsewhere is no event. */
  version?: ((value: T) => unknown) | undefined;
  /**
   * The organization of what was read, when the platform's events report each change of it (a
   * space's content): while the gateway takes that organization's events (`pushFrom`), the events
   * wake the watch and its polls are `pushedIntervalMs` apart.
   */
  pushedIn?: ((value: T) => string | undefined) | undefined;
  /** The subscriber's client going away: its subscription ends at once, whatever its transport does. */
  signal?: AbortSignal | undefined;
  /**
   * Counts the requests of the first read when this subscription starts the watch (and whether the
   * platform accepted the credentials): what its first event cost. Joining a watch costs nothing.
   */
  usage?: Pick<UpstreamUsage, 'sent' | 'accepted'> | undefined;
}

/** The channel replicas tell each other the ids a write touched on (see `LiveHub.wake`). */
const WAKE_CHANNEL = 'live:wake';

/** The ids a watch's resource names (`change-request <spaceId> <id>` names both), from its key. */
function resourceIds(key: string): string[] {
  return key.slice(0, key.indexOf('\u0000')).split(' ').slice(1);
}

/** Polls a holder may miss before its lease moves to another replica. */
const LEASE_INTERVALS = 3;

/** What the replica polling a resource sends to the others: a new version, or the end of the resource. */
type LiveMessage = { from: string; value: unknown } | { from: string; end: { code: ErrorCode; message: string } };

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
  /** Its name among replicas (lease and channel): a hash of `key`. */
  name: string;
  /** Stops listening to the other replicas' polls of it. */
  unlisten?: () => void;
  /** Settles once the other replicas' versions of it reach this one (its first read waits for it). */
  listening?: Promise<void>;
  /** Whether this replica held its lease at the last poll. */
  polling?: boolean;
  read: (api: ReadApi) => Promise<unknown>;
  version: (value: unknown) => unknown;
  pushedIn: ((value: unknown) => string | undefined) | undefined;
  authorization: string | undefined;
  subscribers: Set<Subscriber>;
  /** Per path read, the entity tag and data of its last answer: sent as `If-None-Match`, kept for a 304. */
  answers: Map<string, { etag: string | undefined; data: unknown }>;
  /** What the read last came to, and a hash of it (an upstream without entity tags is compared by it). */
  last?: { value: unknown; hash: string };
  timer?: NodeJS.Timeout;
  /** Set while a poll runs; `again` when a wake came meanwhile, so that another follows it at once. */
  inFlight?: { again: boolean };
}

/**
 * Subscriptions over a REST API: one poller per resource and caller, however many subscribers,
 * woken at once by what says the resource changed (`wake`: writes through the gateway, the
 * platform's events); a resource whose changes the platform's events report is polled only as a
 * safety net (`pushFrom`). Subscribers of the same path with the same `Authorization` share one conditional
 * GET per interval (`If-None-Match` with the last entity tag: an unchanged resource costs the
 * upstream a 304); different credentials never share a poll, each is authorized upstream. Each
 * subscriber gets the resource as it is, then every new version; a resource that is gone, or that
 * the caller may no longer read, ends its subscriptions with that coded error. The poll stops with
 * its last subscriber.
 *
 * Replicas sharing Redis elect one poller per resource and caller: the holder of its lease, which
 * it extends at each poll and gives up with its last subscriber; if it dies, the lease runs out
 * after `LEASE_INTERVALS` polls and another replica with subscribers takes it. The poller sends
 * each new version (or the resource's end) on the resource's channel, and every replica hands it
 * to its own subscribers. A replica whose subscriber is the first it has reads the resource once
 * itself, for that first event. While Redis is down, each replica polls for its own subscribers.
 */
export class LiveHub {
  private readonly watches = new Map<string, Watch>();
  private readonly intervalMs: number;
  private readonly pushedIntervalMs: number;
  /** The organizations whose events this gateway takes (`pushFrom`). */
  private readonly pushedOrganizations = new Set<string>();
  private readonly maxSubscriptions: number;
  private readonly shared: LiveHubOptions['shared'];
  /** This replica's name in leases and messages. */
  private readonly replica = randomUUID();
  private readonly maxPerCaller: number;
  private open = 0;
  /** Subscriptions open now, per caller that holds any. */
  private readonly openBy = new Map<string, number>();
  /** Set once the hub is closed: what a subscription asked for after that is refused with. */
  private closedWith: GatewayError | undefined;
  private readonly stopCatchingUp: (() => void) | undefined;
  private readonly stopWaking: (() => void) | undefined;

  constructor(
    private readonly client: RestClient,
    options: LiveHubOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 2000;
    this.pushedIntervalMs = Math.max(this.intervalMs, options.pushedIntervalMs ?? 30_000);
    this.maxSubscriptions = options.maxSubscriptions ?? 10_000;
    this.maxPerCaller = options.maxPerCaller ?? 1_000;
    this.shared = options.shared?.replicated ? options.shared : undefined;
    this.stopCatchingUp = this.shared?.channels.onReconnect(() => this.catchUp());
    // Wakes from the other replicas: the holder of a woken watch's lease polls it.
    this.stopWaking = this.shared?.channels.subscribe(WAKE_CHANNEL, (text) => {
      const message = JSON.parse(text) as { from: string; ids: string[] };
      if (message.from !== this.replica) this.wakeHere(new Set(message.ids));
    }).close;
  }

  /**
   * Polls at once every watch whose resource names one of `ids` (platform ids: a space, a change
   * request, an organization…), on this replica and, through the shared state, on whichever holds
   * its lease: a write made through the gateway reaches its subscribers in the time of one read,
   * not of an interval. The watch's next poll then waits a whole interval again.
   */
  wake(ids: Iterable<string>): void {
    const named = new Set(ids);
    if (named.size === 0 || (this.watches.size === 0 && !this.shared)) return;
    this.wakeHere(named);
    if (this.shared)
      void this.shared.channels.publish(WAKE_CHANNEL, JSON.stringify({ from: this.replica, ids: [...named] }));
  }

  private wakeHere(ids: ReadonlySet<string>): void {
    for (const watch of this.watches.values()) {
      if (!resourceIds(watch.key).some((id) => ids.has(id))) continue;
      if (watch.inFlight) {
        watch.inFlight.again = true;
        continue;
      }
      clearTimeout(watch.timer);
      void this.poll(watch, false, undefined, true);
    }
  }

  /**
   * Says that the platform delivers the events of `organizations` to this gateway (a registration;
   * those said before no longer count):
   * watches whose changes those events report (`WatchRequest.pushedIn`) are then polled only every
   * `pushedIntervalMs`, from the poll after their next.
   */
  pushFrom(organizations: Iterable<string>): void {
    this.pushedOrganizations.clear();
    for (const organization of organizations) this.pushedOrganizations.add(organization);
  }

  /** The organizations whose events this gateway takes now: their spaces' content is polled only as a safety net. */
  get pushed(): number {
    return this.pushedOrganizations.size;
  }

  /**
   * Milliseconds from one poll of `watch` to the next: `pushedIntervalMs` while the platform's events
   * report its changes (its last version's organization is one this gateway takes the events of).
   */
  private intervalOf(watch: Watch): number {
    const organization = watch.last && watch.pushedIn?.(watch.last.value);
    return organization !== undefined && this.pushedOrganizations.has(organization)
      ? this.pushedIntervalMs
      : this.intervalMs;
  }

  /** Subscriptions open now. */
  get subscriptions(): number {
    return this.open;
  }

  /** Resources polled now (one per path and caller). */
  get polled(): number {
    return this.watches.size;
  }

  /**
   * Refuses a new subscription past `maxSubscriptions`, or past `maxPerCaller` for its caller, with
   * a coded error naming the limit: one caller cannot hold every slot of the gateway.
   */
  private admit(caller: string): void {
    if (this.closedWith) throw this.closedWith;
    if (this.open + 1 > this.maxSubscriptions) {
      throw new GatewayError(
        'RATE_LIMITED',
        `This gateway holds its most subscriptions (${this.maxSubscriptions}): close one, or try again later`,
        { budget: { limit: 'subscriptions', value: this.open + 1, max: this.maxSubscriptions } },
      );
    }
    const held = this.openBy.get(caller) ?? 0;
    if (held + 1 > this.maxPerCaller) {
      throw new GatewayError(
        'RATE_LIMITED',
        `This caller holds its most subscriptions in this gateway (${this.maxPerCaller}): close one first`,
        { budget: { limit: 'subscriptionsPerCaller', value: held + 1, max: this.maxPerCaller } },
      );
    }
  }

  /** Counts a subscription of `caller` opened (+1) or closed (-1). */
  private hold(caller: string, change: 1 | -1): void {
    this.open += change;
    const held = (this.openBy.get(caller) ?? 0) + change;
    if (held > 0) this.openBy.set(caller, held);
    else this.openBy.delete(caller);
  }

  /**
   * What `read` makes of the upstream (its reads, through the upstream declarations) as
   * `authorization` reads it: first as it is, then each new version, until the consumer returns or
   * the resource ends. `resource` names what is read (`space <id>`): subscribers of the same
   * resource with the same credentials share its polls.
   */
  watch<T>({
    resource,
    authorization,
    caller,
    read,
    version,
    pushedIn,
    signal,
    usage,
  }: WatchRequest<T>): AsyncIterableIterator<T> {
    // Refused here, the request gets its error before any stream starts.
    this.admit(caller);
    const key = `${resource}\u0000${callerKey(authorization)}`;
    return new Repeater<T>(async (push, stop) => {
      // A subscription holds its slot from its first pull to its end, never before: an iterator
      // nobody reads (an answer that became a 406, a client gone first) holds nothing. Admitted
      // again here, so that a burst started at once cannot pass the limits together.
      try {
        this.admit(caller);
      } catch (error) {
        stop(error);
        return;
      }
      this.hold(caller, 1);
      const subscriber: Subscriber = { push, stop, current: false };
      const leave = () => stop();
      signal?.addEventListener('abort', leave, { once: true });
      if (signal?.aborted) stop();
      let watch: Watch | undefined;
      try {
        watch = this.join(
          key,
          read as Watch['read'],
          (version ?? ((value: T) => value)) as Watch['version'],
          pushedIn as Watch['pushedIn'],
          authorization,
          subscriber,
          usage,
        );
        await stop;
      } finally {
        signal?.removeEventListener('abort', leave);
        this.hold(caller, -1);
        if (watch) this.leave(watch, subscriber);
      }
    });
  }

  /** Stops every poll and ends every subscription, with `reason` as its last event when given. */
  close(reason?: GatewayError): void {
    this.closedWith = reason ?? new GatewayError('SHUTTING_DOWN', 'This gateway serves no more subscriptions');
    this.stopCatchingUp?.();
    this.stopWaking?.();
    for (const watch of this.watches.values()) {
      this.forget(watch);
      for (const subscriber of watch.subscribers) subscriber.stop(reason);
    }
    this.watches.clear();
  }

  private join(
    key: string,
    read: Watch['read'],
    version: Watch['version'],
    pushedIn: Watch['pushedIn'],
    authorization: string | undefined,
    subscriber: Subscriber,
    usage: WatchRequest<unknown>['usage'],
  ): Watch {
    let watch = this.watches.get(key);
    if (!watch) {
      const name = createHash('sha256').update(key).digest('base64url');
      watch = {
        key,
        name,
        read,
        version,
        pushedIn,
        authorization,
        subscribers: new Set([subscriber]),
        answers: new Map(),
      };
      this.watches.set(key, watch);
      this.listen(watch);
      // A new watch reads the resource at once: its subscribers' first event, counted as its first subscriber's.
      void this.poll(watch, true, usage);
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
    this.forget(watch);
    this.watches.delete(watch.key);
  }

  /** Stops polling `watch` and listening for it, and gives its lease up for another replica to take. */
  private forget(watch: Watch): void {
    clearTimeout(watch.timer);
    watch.unlisten?.();
    // Unless another replica held it at the last look: a hold still on its way to Redis goes before
    // this release on the same connection, so a lease just taken is not left to run out.
    if (watch.polling !== false) void this.shared?.leases.release(watch.name, this.replica);
  }

  /** Hands the versions other replicas poll of `watch` to its subscribers here. */
  private listen(watch: Watch): void {
    if (!this.shared) return;
    const subscription = this.shared.channels.subscribe(`live:${watch.name}`, (text) => {
      const message = JSON.parse(text) as LiveMessage;
      if (message.from === this.replica || this.watches.get(watch.key) !== watch) return;
      if ('end' in message) this.end(watch, new GatewayError(message.end.code, message.end.message));
      else this.observe(watch, message.value);
    });
    watch.unlisten = subscription.close;
    // A version polled elsewhere between this replica's first read and its subscription would be
    // missed until the next one: the first read waits for the subscription (one interval at most,
    // Redis being down).
    watch.listening = Promise.race([
      subscription.ready,
      new Promise<void>((resolve) => setTimeout(resolve, this.intervalMs).unref()),
    ]);
  }

  /**
   * Whether this replica polls `watch` now: alone, always; among replicas, when it holds its lease
   * (taken or extended for `LEASE_INTERVALS` polls), or when the lease cannot be read (Redis down).
   */
  private async mayPoll(watch: Watch): Promise<boolean> {
    if (!this.shared) return true;
    // Of the base interval, whatever the watch's: a dead holder's lease of a pushed watch runs out as
    // soon, and the next wake or poll elsewhere takes it.
    const held = await this.shared.leases.hold(watch.name, this.replica, LEASE_INTERVALS * this.intervalMs);
    watch.polling = held !== false;
    return watch.polling;
  }

  /** Reads `watch` once (`fresh`: after a change it was told of, sharing no read already under way), then again an interval later. */
  private async poll(
    watch: Watch,
    first = false,
    usage?: WatchRequest<unknown>['usage'],
    fresh = false,
  ): Promise<void> {
    watch.timer = undefined;
    const inFlight = { again: false };
    watch.inFlight = inFlight;
    try {
      // The first read of a watch is this replica's own: its subscribers' first event.
      if (first) await watch.listening;
      if (first || (await this.mayPoll(watch)))
        this.observe(watch, await watch.read(this.conditionalApi(watch, usage, fresh)), true);
    } catch (error) {
      const code = error instanceof GatewayError ? error.code : undefined;
      if (code && ENDING_CODES.has(code)) {
        this.tell(watch, { from: this.replica, end: { code, message: (error as GatewayError).message } });
        return this.end(watch, error);
      }
      // A failure of the upstream (down, slow, invalid answer) ends nothing: the next poll tries again.
    } finally {
      watch.inFlight = undefined;
    }
    if (watch.subscribers.size > 0 && this.watches.get(watch.key) === watch && !this.closedWith) {
      // Woken while it read: what woke it may have come after the read, so it reads again now.
      const again = inFlight.again;
      watch.timer = setTimeout(
        () => void this.poll(watch, false, undefined, again),
        again ? 0 : this.intervalOf(watch),
      );
    }
  }

  /** Sends `message` to the other replicas' subscribers of `watch`. */
  private tell(watch: Watch, message: LiveMessage): void {
    if (this.shared) void this.shared.channels.publish(`live:${watch.name}`, JSON.stringify(message));
  }

  /**
   * The reads of one poll: each GET is conditional on the entity tag of its last answer, and a 304
   * gives the data of that answer again, which nothing parsed or sent anew. Counted in `usage`
   * when given.
   */
  private conditionalApi(watch: Watch, usage?: WatchRequest<unknown>['usage'], fresh = false): ReadApi {
    const get = async <S extends z.ZodType>(
      path: string,
      schema: S,
      query?: Query,
      operation?: CallName,
    ): Promise<z.infer<S>> => {
      const key = path + queryString(query);
      const known = watch.answers.get(key);
      if (usage) usage.sent += 1;
      const answer = await this.client.request({
        method: 'GET',
        path,
        query,
        schema,
        operation,
        authorization: watch.authorization,
        ifNoneMatch: known?.etag,
        fresh,
      });
      if (usage) usage.accepted = true;
      if (answer.status === 304 && known) return known.data as z.infer<S>;
      watch.answers.set(key, { etag: answer.etag, data: answer.data });
      return answer.data as z.infer<S>;
    };
    return {
      get: (path, schema, query) => get(path, schema, query),
      read: (operation, params, query) =>
        get(pathOf(operation, params), answerOf(operation) ?? ANY, query as Query | undefined, operation) as never,
    };
  }

  /**
   * Hands what a poll read to the subscribers that lack it: all when it changed, the new ones
   * otherwise; a new version this replica `read` goes to the other replicas too.
   */
  private observe(watch: Watch, value: unknown, read = false): void {
    const hash = createHash('sha256')
      .update(JSON.stringify(watch.version(value)) ?? '')
      .digest('base64url');
    const changed = watch.last?.hash !== hash;
    watch.last = { value, hash };
    if (changed && read && watch.polling) this.tell(watch, { from: this.replica, value });
    for (const subscriber of watch.subscribers) {
      if (!changed && subscriber.current) continue;
      subscriber.current = true;
      void subscriber.push(value);
    }
  }

  /**
   * Reads every watch once more, itself: the versions other replicas sent while the channels were
   * away never arrived, and a resource that changed then might not change again for long. Its
   * subscribers get what changed; the polls go on as they were.
   */
  private catchUp(): void {
    for (const watch of this.watches.values()) {
      watch.read(this.conditionalApi(watch)).then(
        (value) => {
          if (this.watches.get(watch.key) === watch) this.observe(watch, value);
        },
        // The next poll, this replica's or the holder's, tells what became of it.
        () => {},
      );
    }
  }

  private end(watch: Watch, error: unknown): void {
    this.forget(watch);
    this.watches.delete(watch.key);
    for (const subscriber of watch.subscribers) subscriber.stop(error);
  }
}

import { redactSecrets } from '../errors.js';
import type { Gateway } from '../http/server.js';
import {
  deliveryHealth,
  type EventRegistrationOptions,
  type Registration,
  registerForEvents,
} from './event-registration.js';

/** Options of `EventRegistrar`. */
export interface EventRegistrarOptions extends Omit<EventRegistrationOptions, 'client'> {
  /** Where its comings and goings are told. */
  logger: Pick<Console, 'error' | 'info'>;
  /** Milliseconds between two polls of what no event reports (`SUBSCRIPTION_POLL_MS`), for the log lines. */
  pollMs: number;
  /** @default 900000 (15 minutes) */
  refreshMs?: number;
  /** @default 60000 */
  checkMs?: number;
  /** @default 300000 */
  maxRetryMs?: number;
}

/**
 * The gateway's registration for the platform's events over its life (see `registerForEvents`):
 * made once the receiver listens, tried again after a failure (1 s, then twice as long each time),
 * made again every `refreshMs` without publishing (organizations joined since), and published again
 * when asked (a platform process ready again). Every `checkMs` it reads how the platform's
 * deliveries went: while they fail (the receiver unreachable, or refusing), the subscriptions the
 * events cover poll every `SUBSCRIPTION_POLL_MS` again, until one is delivered. Nothing of it
 * fails a request: each failure is told once in the log, and the last good state stays.
 */
export class EventRegistrar {
  #registration: Registration | undefined;
  /** Whether the platform's deliveries reach the gateway, as the last look at them said. */
  #delivering = true;
  /** The newest event the last look found finished, in the platform's clock. */
  #since: string | undefined;
  #retryMs = 1_000;
  #next: NodeJS.Timeout | undefined;
  #checks: NodeJS.Timeout | undefined;

  constructor(
    private readonly gateway: Pick<Gateway, 'client' | 'receiveEvents'>,
    private readonly options: EventRegistrarOptions,
  ) {}

  /** Registers now (publishing the integration when `publish`, as a first registration does). */
  async register({ publish = this.#registration === undefined } = {}): Promise<void> {
    clearTimeout(this.#next);
    const { logger, receiverUrl } = this.options;
    try {
      const registration = await registerForEvents({ ...this.options, client: this.gateway.client }, { publish });
      const first = this.#registration === undefined;
      this.#registration = registration;
      this.#apply();
      if (first) logger.info(registeredLine(receiverUrl, registration));
      this.#retryMs = 1_000;
      this.#next = setTimeout(() => void this.register({ publish: false }), this.options.refreshMs ?? 900_000).unref();
      this.#checks ??= setInterval(() => void this.check(), this.options.checkMs ?? 60_000).unref();
    } catch (error) {
      const meanwhile = this.#registration
        ? 'the last registration stays'
        : `subscriptions poll every ${this.options.pollMs} ms`;
      logger.error(
        `Platform events: the registration failed (${redactSecrets((error as Error).message)}): ${meanwhile}; trying again in ${this.#retryMs / 1000} s`,
      );
      this.#next = setTimeout(() => void this.register(), this.#retryMs).unref();
      this.#retryMs = Math.min(this.#retryMs * 2, this.options.maxRetryMs ?? 300_000);
    }
  }

  /** Reads how the platform's deliveries went since the last look, and polls or not as they do. */
  async check(): Promise<void> {
    if (!this.#registration) return;
    try {
      const health = await deliveryHealth({ ...this.options, client: this.gateway.client }, this.#since);
      this.#since = health.newest;
      if (health.state === 'quiet' || (health.state === 'delivering') === this.#delivering) return;
      this.#delivering = health.state === 'delivering';
      this.#apply();
      const { logger, receiverUrl, pollMs } = this.options;
      if (this.#delivering) logger.info(`Platform events: delivered to ${redactSecrets(receiverUrl)} again`);
      else
        logger.error(
          `Platform events: the platform's deliveries to ${redactSecrets(receiverUrl)} fail: subscriptions poll every ${pollMs} ms until one arrives`,
        );
    } catch {
      // The platform unreachable: the next look tells.
    }
  }

  /** Whether the platform's deliveries reach the gateway, as the last look said. */
  get delivering(): boolean {
    return this.#delivering;
  }

  stop(): void {
    clearTimeout(this.#next);
    clearInterval(this.#checks);
  }

  /** The registration's secrets, and its organizations as pushed while deliveries arrive. */
  #apply(): void {
    const registration = this.#registration!;
    this.gateway.receiveEvents({
      secrets: registration.secrets,
      organizations: this.#delivering ? registration.organizations : [],
    });
  }
}

function registeredLine(receiverUrl: string, registration: Registration): string {
  const skipped = registration.skipped.map(({ organization }) => organization);
  return `Platform events: pushed to ${redactSecrets(receiverUrl)} from ${registration.organizations.length} organization(s)${skipped.length > 0 ? `; not from ${skipped.join(', ')} (the token administers none of them)` : ''}`;
}

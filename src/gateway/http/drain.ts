import type { Server } from 'node:http';

/** The HTTP requests a server is answering now, to know when a stopping gateway may exit. */
export interface InFlight {
  /** Requests whose answer has not ended yet (streams and subscriptions included). */
  readonly count: number;
  /** Resolves true once no request is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean>;
  /**
   * Resolves once no request but health checks (`/health`, `/ready`) has arrived for `quietMs`: a
   * balancer that saw `/ready` turn 503 has stopped sending. Resolves after `timeoutMs` at most.
   */
  quiet(quietMs: number, timeoutMs: number): Promise<void>;
}

/** Paths a balancer's health checks ask for, which go on after it stopped sending requests. */
const HEALTH_CHECKS = new Set(['/health', '/ready']);

/** Counts the requests `server` is answering, from their arrival to the end of their answer. */
export function trackInFlight(server: Server): InFlight {
  let count = 0;
  let lastArrival = 0;
  const waiting = new Set<() => void>();
  server.on('request', (req, res) => {
    count += 1;
    if (!HEALTH_CHECKS.has(req.url?.split('?')[0] ?? '')) lastArrival = Date.now();
    res.once('close', () => {
      count -= 1;
      if (count === 0) for (const resolve of waiting) resolve();
    });
  });
  return {
    get count() {
      return count;
    },
    async quiet(quietMs, timeoutMs) {
      const end = Date.now() + timeoutMs;
      for (;;) {
        const wait = Math.min(lastArrival + quietMs, end) - Date.now();
        if (wait <= 0) return;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
    idle(timeoutMs) {
      if (count === 0) return Promise.resolve(true);
      return new Promise((resolve) => {
        const done = (idle: boolean) => {
          clearTimeout(timer);
          waiting.delete(onIdle);
          resolve(idle);
        };
        const onIdle = () => done(true);
        const timer = setTimeout(() => done(false), timeoutMs);
        waiting.add(onIdle);
      });
    },
  };
}

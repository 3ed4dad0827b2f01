import type { Server } from 'node:http';

/** The HTTP requests a server is answering now, to know when a stopping gateway may exit. */
export interface InFlight {
  /** Requests whose answer has not ended yet (streams and subscriptions included). */
  readonly count: number;
  /** Resolves true once no request is in flight, or false after `timeoutMs`. */
  idle(timeoutMs: number): Promise<boolean>;
}

/** Counts the requests `server` is answering, from their arrival to the end of their answer. */
export function trackInFlight(server: Server): InFlight {
  let count = 0;
  const waiting = new Set<() => void>();
  server.on('request', (_req, res) => {
    count += 1;
    res.once('close', () => {
      count -= 1;
      if (count === 0) for (const resolve of waiting) resolve();
    });
  });
  return {
    get count() {
      return count;
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

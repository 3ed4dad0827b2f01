import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';

type ResultProcess = Parameters<NonNullable<Plugin['onResultProcess']>>[0];

/**
 * When a request's answer has left, for what reports on it (the operation log, the trace): at its
 * response for a single answer; after its last part for an answer in parts (@defer, @stream, a
 * subscription), whose headers leave with its first part.
 */
export function answerEnds(finish: (request: Request, status: number) => void) {
  const inParts = new WeakMap<Request, { status: number }>();
  return {
    /**
     * For an answer in parts: passes each payload through `each` and finishes after the last;
     * true then. False for a single answer, which `responded` finishes.
     */
    follow({ request, result, setResult }: ResultProcess, each: <P>(payload: P) => P): boolean {
      if (!isAsyncIterable(result)) return false;
      const sent = { status: 200 };
      inParts.set(request, sent);
      setResult(mapAsyncIterator(result, each, undefined, () => finish(request, sent.status)));
      return true;
    },
    /** The response left (`onResponse`): finishes a single answer, notes the status of one in parts. */
    responded(request: Request, status: number): void {
      const sent = inParts.get(request);
      if (sent) sent.status = status;
      else finish(request, status);
    },
  };
}

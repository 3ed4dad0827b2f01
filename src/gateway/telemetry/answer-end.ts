import { isAsyncIterable, mapAsyncIterator, type Plugin } from 'graphql-yoga';

type ResultProcess = Parameters<NonNullable<Plugin['onResultProcess']>>[0];

/**
 * What a plugin that reports on a request's answer (the operation log, the trace) keeps of it in
 * its part of the request's context, to know when the answer has left.
 */
export interface AnswerEnding {
  /** Set for an answer in parts: the status its response left with, and whether it has left. */
  inParts?: { status: number; left?: boolean } | undefined;
  /** Set for a subscription: its answer has no last part of its own, its client ends it. */
  endless?: boolean | undefined;
}

/**
 * When a request's answer has left, for what reports on it: at its response for a single answer;
 * after its last part for an answer in parts (@defer, @stream, a subscription), whose headers
 * leave with its first part. `finish` is called once the answer has left, with its status.
 */
export function answerEnds<E extends AnswerEnding>(finish: (ending: E, status: number) => void) {
  return {
    /**
     * For an answer in parts: passes each payload through `each` and finishes after the last;
     * true then. False for a single answer, which `responded` finishes.
     */
    follow(ending: E, { result, setResult }: ResultProcess, each: <P>(payload: P) => P): boolean {
      if (!isAsyncIterable(result)) return false;
      const sent = { status: 200 };
      ending.inParts = sent;
      setResult(mapAsyncIterator(result, each, undefined, () => finish(ending, sent.status)));
      return true;
    },
    /** The response left (`onResponse`): finishes a single answer, notes the status of one in parts. */
    responded(ending: E, status: number): void {
      if (ending.inParts) Object.assign(ending.inParts, { status, left: true });
      else finish(ending, status);
    },
    /**
     * The client went away (its request's signal): 499, the answer never reached it. But a
     * subscription whose answer had left is ended so by its client (graphql-ws `complete`, an
     * event stream closed): that is its normal end, with the status it left with.
     */
    gone(ending: E): void {
      const sent = ending.inParts;
      finish(ending, ending.endless && sent?.left ? sent.status : 499);
    },
  };
}

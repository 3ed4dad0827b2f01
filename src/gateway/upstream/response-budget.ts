import { ResponseTooLargeError } from '../errors.js';

// In the upstream layer because `RequestApi` reads every body within it; the answer's side of the
// budget (`hookFields` in policy/field-hooks.ts) builds on it.
/**
 * The byte budget of one GraphQL request (`MAX_RESPONSE_BYTES`), kept like its cost: the bodies
 * read from the upstream (what the request holds in memory) and the answer itself, counted as its
 * fields resolve (an alias repeating a large field counts each time). Past either, the request
 * stops: no further upstream request, every further field fails, and the answer is the one coded
 * error (`ResponseTooLargeError`) instead of a partial result.
 */
export class ResponseBudget {
  /** Bytes of upstream bodies read so far. */
  upstreamBytes = 0;
  /** Bytes of the answer so far (its JSON, estimated as fields resolve). */
  answerBytes = 0;
  /** Set once the budget is spent: the error the whole answer becomes. */
  exceeded: ResponseTooLargeError | undefined;

  constructor(readonly max: number) {}

  /** Bytes an upstream body may still have; throws once the budget is spent. */
  upstreamLeft(): number {
    if (this.exceeded) throw this.exceeded;
    return this.max - this.upstreamBytes;
  }

  /** Counts an upstream body read. */
  addUpstream(bytes: number): void {
    this.upstreamBytes += bytes;
    if (this.upstreamBytes > this.max) this.exceed(new ResponseTooLargeError('upstream', this.upstreamBytes, this.max));
  }

  /** Bytes of the answer that introspection gave (counted in `answerBytes` too). */
  introspectionBytes = 0;

  /**
   * Counts bytes of introspection (after `addAnswer`); throws past `max`. Introspection makes no
   * upstream request and runs without a pause, so its own bound is far below the answer's: a
   * refusal costs the thread about what the whole schema's introspection does.
   */
  addIntrospection(bytes: number, max: number): void {
    this.introspectionBytes += bytes;
    if (this.introspectionBytes > max) {
      throw this.exceed(new ResponseTooLargeError('introspection', this.introspectionBytes, max));
    }
  }

  /** Counts bytes of the answer; throws once the budget is spent. */
  addAnswer(bytes: number): void {
    if (this.exceeded) throw this.exceeded;
    this.answerBytes += bytes;
    if (this.answerBytes > this.max) throw this.exceed(new ResponseTooLargeError('answer', this.answerBytes, this.max));
  }

  /** Notes a refusal of the upstream (a body over the bound, read no further). */
  exceed(error: ResponseTooLargeError): ResponseTooLargeError {
    this.exceeded ??= error;
    return this.exceeded;
  }
}

import type { UpstreamSpan } from '../upstream/hooks.js';

/**
 * What tracing asks of a request's upstream calls, when tracing is on: the W3C `traceparent` they
 * carry (the upstream's spans join the operation's trace) and the parent of their spans (see the
 * tracing plugin's upstream hook). Kept apart from OpenTelemetry itself, so that nothing of it is
 * loaded when tracing is off.
 */
export type RequestSpan = UpstreamSpan;

const spans = new WeakMap<Request, RequestSpan>();

export function setRequestSpan(request: Request, span: RequestSpan): void {
  spans.set(request, span);
}

export function requestSpanOf(request: Request): RequestSpan | undefined {
  return spans.get(request);
}

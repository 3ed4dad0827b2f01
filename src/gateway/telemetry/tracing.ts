import type { ExecutionArgs } from 'graphql';
import {
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  defaultTextMapGetter,
  defaultTextMapSetter,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { Plugin } from 'graphql-yoga';
import { type AnswerEnding, answerEnds } from './answer-end.js';
import type { GatewayContext } from '../context.js';
import { partsOf } from '../request-parts.js';
import { exchangeOf, type Exchange, type UpstreamHook, type UpstreamSpan } from '../upstream/hooks.js';
import { isOperationPath, operationOf } from './operations.js';

const propagator = new W3CTraceContextPropagator();

declare module '../request-parts.js' {
  interface RequestParts {
    /**
     * What the request's upstream calls carry when it is traced: the W3C `traceparent` (the
     * upstream's spans join the operation's trace) and the parent of their spans.
     */
    span?: UpstreamSpan | undefined;
    /** The request's own span, when it is traced (see `useTracing`). */
    traced?: Traced | undefined;
  }
}

/** A request's span and the context its children start in. */
interface Traced extends AnswerEnding {
  span: Span;
  context: Context;
  /** Whether the sampler kept the trace: a dropped one makes no child span. */
  recording: boolean;
  /** Set once the span ended: nothing more is added to it. */
  ended?: boolean;
}

/** The tracing plugin: a plugin of the chain, with its hooks around the upstream fetch. */
export type TracingPlugin = Plugin & { upstreamHooks: UpstreamHook[] };

/**
 * OpenTelemetry traces: a span per GraphQL request (named after its operation, with its type and
 * cost), children for parse, validate and execute, and one per upstream request (method, route
 * template, status, retries). A client's W3C `traceparent` makes the request's span its child, and
 * every upstream request carries the operation's own, so the platform's spans join the trace.
 */
export function useTracing(tracer: Tracer): TracingPlugin {
  const ends = answerEnds<Traced>(finish);

  // A request the sampler dropped still carries its trace upstream (`traceparent`, flagged unsampled),
  // but makes no child span: every one would be dropped too, after its ids, times and attributes.
  function child(parent: Traced | undefined, name: string): Span | undefined {
    return parent?.recording && !parent.ended
      ? tracer.startSpan(name, { kind: SpanKind.INTERNAL }, parent.context)
      : undefined;
  }

  return {
    onRequest({ request, url, serverContext }) {
      if (!isOperationPath(url.pathname)) return;
      const parent = propagator.extract(ROOT_CONTEXT, headersOf(request), defaultTextMapGetter);
      const span = tracer.startSpan(
        'graphql',
        { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'url.path': url.pathname } },
        parent,
      );
      const context = trace.setSpan(parent, span);
      const recording = span.isRecording();
      const root: Traced = { span, context, recording };
      const carrier: Record<string, string> = {};
      propagator.inject(context, carrier, defaultTextMapSetter);
      const parts = partsOf(serverContext);
      parts.traced = root;
      parts.span = { traceparent: carrier.traceparent!, parent: recording ? context : undefined };
      request.signal?.addEventListener('abort', () => ends.gone(root), { once: true });
    },
    onParse({ context }) {
      const span = child(partsOf(context).traced, 'graphql.parse');
      return ({ result }) => end(span, result instanceof Error ? result : undefined);
    },
    onValidate({ context }) {
      const span = child(partsOf(context).traced, 'graphql.validate');
      return ({ valid }) => end(span, valid ? undefined : new Error('invalid document'));
    },
    onExecute({ args }) {
      const ctx = args.contextValue as unknown as GatewayContext;
      const root = ctx.traced;
      // An operation of a batch has a span of its own, named after it, under the request's.
      const batch = partsOf(ctx).batch;
      if (batch && root?.recording) {
        root.span.updateName('graphql batch');
        root.span.setAttribute('graphql.batch.size', batch.size);
      } else nameRoot(root, args);
      const span = batch ? operationSpan(root, args) : child(root, 'graphql.execute');
      return {
        onExecuteDone() {
          const costed = batch ? span : root?.recording ? root.span : undefined;
          costed?.setAttributes({
            'graphql.cost.upstream_requests': ctx.api.usage.sent,
            ...(ctx.cost ? { 'graphql.cost.max_upstream_requests': ctx.cost.maxUpstreamRequests } : {}),
          });
          end(span);
        },
      };
    },
    onSubscribe({ args }) {
      const root = partsOf(args.contextValue as object).traced;
      nameRoot(root, args);
      if (root) root.endless = true;
    },
    onResultProcess(process) {
      const { result, serverContext } = process;
      const root = partsOf(serverContext).traced;
      if (!root) return;
      const failed = (payload: unknown) => {
        const [first] = (payload as { errors?: Array<{ extensions?: { code?: unknown } }> }).errors ?? [];
        if (first)
          root.span.setStatus({ code: SpanStatusCode.ERROR, message: String(first.extensions?.code ?? 'error') });
        return payload;
      };
      // An answer in parts (@defer, @stream, a subscription): the operation's span lasts until its last part.
      if (ends.follow(root, process, failed as <P>(payload: P) => P)) return;
      for (const one of Array.isArray(result) ? result : [result]) failed(one);
    },
    onResponse({ response, serverContext }) {
      const root = partsOf(serverContext).traced;
      if (root) ends.responded(root, response.status);
    },
    // A span per upstream call of a traced request, each request its own (outside the sharing of reads in flight).
    upstreamHooks: [
      {
        name: 'spans',
        fetch(call, next) {
          const span = call.span;
          // Unsampled (no parent to record under): the call carries its traceparent and makes no span.
          if (!span?.parent) return next(call);
          return next(call).finally(() => upstreamSpan(tracer, span.parent as Context, exchangeOf(call)));
        },
      },
    ],
  };

  /** The span of one operation of a batch: its type and name, as a request's span has them. */
  function operationSpan(root: Traced | undefined, args: ExecutionArgs): Span | undefined {
    const { type, name } = operationOf(args.document, args.operationName);
    const span = child(root, type ? (name ? `${type} ${name}` : type) : 'graphql.execute');
    span?.setAttributes(operationAttributes(type, name));
    return span;
  }

  function finish(root: Traced, status: number): void {
    if (root.ended) return;
    root.ended = true;
    root.span.setAttribute('http.response.status_code', status);
    if (status >= 500 || status === 499) root.span.setStatus({ code: SpanStatusCode.ERROR });
    root.span.end();
  }
}

/** Names a request's span after the operation it runs, with its type and name as attributes. */
function nameRoot(root: Traced | undefined, args: ExecutionArgs): void {
  if (!root?.recording) return;
  const { type, name } = operationOf(args.document, args.operationName);
  if (!type) return;
  root.span.updateName(name ? `${type} ${name}` : type);
  root.span.setAttributes(operationAttributes(type, name));
}

function operationAttributes(type: string | null | undefined, name: string | null | undefined): Record<string, string> {
  return { ...(type ? { 'graphql.operation.type': type } : {}), ...(name ? { 'graphql.operation.name': name } : {}) };
}

function upstreamSpan(tracer: Tracer, parent: Context, exchange: Exchange): void {
  // Times of `performance.now()`: OpenTelemetry takes them as such.
  const span = tracer.startSpan(
    `${exchange.method} ${exchange.route}`,
    {
      kind: SpanKind.CLIENT,
      startTime: exchange.startedAt,
      attributes: {
        'http.request.method': exchange.method,
        'url.template': exchange.route,
        'http.request.resend_count': exchange.retries,
        ...(exchange.status !== undefined ? { 'http.response.status_code': exchange.status } : {}),
      },
    },
    parent,
  );
  if (exchange.status === undefined || exchange.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end(exchange.endedAt);
}

function end(span: Span | undefined, error?: Error): void {
  if (!span) return;
  if (error) span.setStatus({ code: SpanStatusCode.ERROR, message: error.message.slice(0, 200) });
  span.end();
}

function headersOf(request: Request): Record<string, string> {
  const traceparent = request.headers.get('traceparent');
  const tracestate = request.headers.get('tracestate');
  return { ...(traceparent ? { traceparent } : {}), ...(tracestate ? { tracestate } : {}) };
}

import {
  type DocumentNode,
  type ExecutionArgs,
  getOperationAST,
  type ExecutionResult,
  type GraphQLError,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { type AnswerEnding, answerEnds } from './answer-end.js';
import type { GatewayContext } from '../context.js';
import { perDocument } from '../per-document.js';
import { partsOf } from '../request-parts.js';
import { requestIdOf } from './request-id.js';

/** What one GraphQL request came to, once its answer left or its client went away. */
export interface OperationReport {
  requestId: string;
  /**
   * The operation's name as the document gives it (cut to 100 characters); null for an anonymous one.
   * For a request that never got as far as a document (an unknown persisted id), the `operationName` it sent.
   */
  operationName: string | null;
  /** `query`, `mutation`, `subscription`; null when the request did not get as far as a document. */
  operationType: string | null;
  /** HTTP status of the answer; 499 when the client went away first (not when it ended its subscription). */
  status: number;
  durationMs: number;
  upstreamRequests: number;
  /** The bound the cost model computed; null when the operation was not costed (it did not parse). */
  maxUpstreamRequests: number | null;
  /** The codes of the answer's errors, each once. */
  errorCodes: string[];
  /** Whether the response cache answered; null when the cache is off or did not look. */
  cacheHit: boolean | null;
}

/** Where reports go: the operation log, the metrics. */
export type OperationSink = (report: OperationReport) => void;

/** What is known of a request until its answer leaves: the operation log's part of its context. */
interface Pending extends AnswerEnding {
  /** Set once its report is made: a request has one. */
  reported?: boolean;
  requestId: string;
  startedAt: number;
  operationName: string | null;
  operationType: string | null;
  context?: GatewayContext;
  errorCodes: string[];
  cacheHit: boolean | null;
  /** The operation as its text names it, for an answer that ran nothing (a hit of the response cache). */
  fromText?: { type: string | null; name: string | null };
  /** A batched request's: an entry per operation, in the batch's order, each reported on its own line. */
  operations?: Pending[];
  /** An operation of a batch: the status its answer would have had alone (the batch's is 200). */
  ownStatus?: number;
}

declare module '../request-parts.js' {
  interface RequestParts {
    /** What the operation reports know of the request until its answer leaves (see `useOperationReports`). */
    operationReport?: Pending | undefined;
  }
}

const MAX_NAME = 100;
/** The type and name of a document's first operation, read off its text (comments before it skipped). */
const OPERATION_HEAD = /^(?:\s|#[^\n]*\n)*(query|mutation|subscription)\b\s*(\w+)?/;
/**
 * Paths whose requests are no operation, which reports and traces leave out: probes and scrapes,
 * and the requests of GraphQL over SSE's single-connection lane (reserving, reading and closing its
 * stream, sending to it): each operation it runs is relayed to `/graphql`, and reported there.
 */
const NOT_OPERATIONS = new Set(['/health', '/ready', '/metrics', '/graphql/stream']);

/** Whether a request to `pathname` can be a GraphQL operation (one to report, log and trace). */
export function isOperationPath(pathname: string): boolean {
  return !NOT_OPERATIONS.has(pathname);
}

/** The type and name (cut to 100 characters) of the operation a document runs; nulls when it has none. */
export const operationOf: (
  document: DocumentNode,
  operationName: string | null | undefined,
) => { readonly type: string | null; readonly name: string | null } = perDocument((document, operationName) => {
  const operation = getOperationAST(document, operationName);
  return { type: operation?.operation ?? null, name: operation?.name?.value.slice(0, MAX_NAME) ?? null };
});

/**
 * Follows every GraphQL request through the plugin chain and hands one report per request to each
 * sink when its answer leaves (or its client goes away first). Names and numbers only: no token,
 * variable value or document text is ever in a report.
 */
export function useOperationReports(sinks: readonly OperationSink[]): Plugin {
  function finish(entry: Pending, status: number): void {
    if (entry.reported) return;
    entry.reported = true;
    if (entry.operations) {
      for (const operation of entry.operations) finish(operation, operation.ownStatus ?? status);
      return;
    }
    const named = entry.cacheHit && entry.fromText ? entry.fromText : undefined;
    const report: OperationReport = {
      requestId: entry.requestId,
      operationName: named ? named.name : entry.operationName,
      operationType: named ? named.type : entry.operationType,
      status,
      durationMs: Math.round((performance.now() - entry.startedAt) * 100) / 100,
      upstreamRequests: entry.context?.api.usage.sent ?? 0,
      maxUpstreamRequests: entry.context?.cost?.maxUpstreamRequests ?? null,
      errorCodes: entry.errorCodes,
      cacheHit: entry.cacheHit,
    };
    for (const sink of sinks) sink(report);
  }

  const ends = answerEnds<Pending>(finish);

  /** What the document tells of the operation a request runs, once it is about to run. */
  function named(args: ExecutionArgs): void {
    const context = args.contextValue as unknown as NonNullable<Pending['context']>;
    const entry = context.operationReport;
    if (!entry) return;
    const operation = operationOf(args.document, args.operationName);
    entry.context = context;
    entry.operationType = operation.type;
    entry.operationName = operation.name;
  }

  return {
    onRequest({ request, url, serverContext }) {
      if (!isOperationPath(url.pathname)) return;
      const entry: Pending = {
        requestId: requestIdOf(serverContext, request),
        startedAt: performance.now(),
        operationName: null,
        operationType: null,
        errorCodes: [],
        cacheHit: null,
      };
      partsOf(serverContext).operationReport = entry;
      // A client that leaves before its answer gets no onResponse: its report is made here.
      request.signal?.addEventListener('abort', () => ends.gone(entry), { once: true });
    },
    onRequestParse({ serverContext }) {
      const entry = partsOf(serverContext).operationReport;
      if (!entry) return;
      return {
        // Before any onParams: the persisted operations' refusal of an unknown id comes from theirs.
        onRequestParseDone({ requestParserResult: params }) {
          const sent = Array.isArray(params) ? undefined : params.operationName;
          if (typeof sent === 'string') entry.operationName = sent.slice(0, MAX_NAME);
        },
      };
    },
    onParams({ params, context }) {
      const parts = partsOf(context);
      let entry = parts.operationReport;
      if (!entry) return;
      // An operation of a batch: an entry of its own, reported with the request's id and status.
      // Made for every operation of the batch at the first, so that one refused before it got here is reported too.
      if (parts.batchIndex !== undefined && !entry.reported) {
        entry.operations ??= operationEntries(entry, parts.batch?.size ?? 0);
        entry = entry.operations[parts.batchIndex] ?? entry;
        parts.operationReport = entry;
      }
      // Known before anything runs: an answer from the response cache never reaches onExecute.
      if (typeof params.query !== 'string') return;
      const head = OPERATION_HEAD.exec(params.query);
      entry.fromText = {
        type: head?.[1] ?? (params.query.trimStart().startsWith('{') ? 'query' : null),
        name:
          (typeof params.operationName === 'string' ? params.operationName : (head?.[2] ?? null))?.slice(0, MAX_NAME) ??
          null,
      };
    },
    onExecute: ({ args }) => named(args),
    onSubscribe: ({ args }) => {
      named(args);
      const entry = (args.contextValue as unknown as NonNullable<Pending['context']>).operationReport;
      if (entry) entry.endless = true;
    },
    onResultProcess(process) {
      const { result, serverContext } = process;
      const entry = partsOf(serverContext).operationReport;
      if (!entry) return;
      const codes = new Set<string>();
      const each = <P>(payload: P): P => {
        const whole = payload as ExecutionResult & { incremental?: readonly ExecutionResult[] };
        for (const part of [whole, ...(whole.incremental ?? [])])
          for (const error of part.errors ?? []) codes.add(codeOf(error));
        entry.errorCodes = [...codes];
        return payload;
      };
      if (ends.follow(entry, process, each)) return;
      if (!Array.isArray(result)) return noteAnswer(entry, result as ExecutionResult);
      // A batch's answers, each its operation's; entries made here when every operation was refused before this
      // plugin saw it (an unknown persisted id).
      entry.operations ??= operationEntries(entry, result.length);
      (result as ExecutionResult[]).forEach((one, index) => {
        const operation = entry.operations?.[index];
        if (!operation) return;
        noteAnswer(operation, one);
        operation.ownStatus = statusOf(one);
      });
    },
    onResponse({ response, serverContext }) {
      const entry = partsOf(serverContext).operationReport;
      if (entry) ends.responded(entry, response.status);
    },
  };
}

/** An entry per operation of a batch of `size`, with the request's id and start. */
function operationEntries(entry: Pending, size: number): Pending[] {
  const { requestId, startedAt } = entry;
  return Array.from({ length: size }, () => ({
    requestId,
    startedAt,
    operationName: null,
    operationType: null,
    errorCodes: [],
    cacheHit: null,
  }));
}

/** The status an answer would have had alone: its first error's HTTP status (429 for a spent budget), else 200. */
function statusOf(result: ExecutionResult): number {
  for (const error of result.errors ?? []) {
    const status = (error.extensions?.http as { status?: unknown } | undefined)?.status;
    if (typeof status === 'number') return status;
  }
  return 200;
}

/** What an answer tells its entry: the codes of its errors, whether the response cache gave it. */
function noteAnswer(entry: Pending, result: ExecutionResult): void {
  entry.errorCodes = [...new Set((result.errors ?? []).map(codeOf))];
  const cached = (result.extensions as { responseCache?: { hit?: boolean } } | undefined)?.responseCache;
  if (cached) entry.cacheHit = cached.hit === true;
}

function codeOf(error: GraphQLError): string {
  const code = error.extensions?.code;
  return typeof code === 'string' ? code : 'INTERNAL_SERVER_ERROR';
}

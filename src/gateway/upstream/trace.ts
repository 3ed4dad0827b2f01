import { AsyncLocalStorage } from 'node:async_hooks';
import { redactSecrets } from '../errors.js';
import type { HttpMethod } from './client.js';
import { exchangeOf, type Exchange, type UpstreamHook } from './hooks.js';

// The trace of `explain` sits with the upstream layer because `RequestApi` notes every request in it;
// the fields' side (`hookFields` in policy/field-hooks.ts) builds on it.

/**
 * The response paths (`organizations.nodes.0.spaces`) a piece of work is done for. A field's
 * resolver runs with its own; a loader key collects those of every field that loaded it.
 */
interface Sink {
  trace: Trace;
  paths: Set<string>;
}

// Only traced requests run inside it, so untraced ones pay nothing for async context tracking.
const currentSink = new AsyncLocalStorage<Sink>();

/** Notes that the current field of a traced request loads `key` (called by the per-request loaders). */
export function noteTracedLoad(key: string): void {
  const sink = currentSink.getStore();
  if (sink) sink.trace.noteLoad(sink, key);
}

/** Most field paths listed for one request in `explain` (`shared` still counts them all). */
const MAX_LISTED_FIELDS = 20;

/** One upstream request as `explain` shows it. */
export interface ExplainedRequest {
  method: HttpMethod;
  /** Path below the API's base, with its query string; secret values masked. */
  path: string;
  /** The operation of the API it called (`getSpaceById`); null for a signed URL (a download or an upload). */
  operation: string | null;
  status: number | null;
  /** Milliseconds from the start of the GraphQL request to the first try. */
  startMs: number;
  durationMs: number;
  retries: number;
  /** Response paths this request served (at most 20). */
  fields: string[];
  /** How many field resolutions this request served. */
  shared: number;
}

export interface TracedRequest {
  method: HttpMethod;
  path: string;
  sinks: Sink[];
  exchange?: Exchange;
}

/**
 * Everything `x-explain: 1` reports of one GraphQL request: each upstream request, in start
 * order, with the fields it served, and the longest chain of requests waiting on each other.
 */
export class Trace {
  private readonly records: TracedRequest[] = [];
  private readonly keySinks = new Map<string, Sink>();

  constructor(private readonly startedAt: number) {}

  /** Notes an upstream request starting for the current field; returns its handle. */
  start(method: HttpMethod, path: string): TracedRequest {
    const record: TracedRequest = { method, path, sinks: [] };
    this.share(record);
    this.records.push(record);
    return record;
  }

  /** Notes that the current field is served by a request already made. */
  share(record: TracedRequest): void {
    const sink = currentSink.getStore();
    if (sink && sink.trace === this && !record.sinks.includes(sink)) record.sinks.push(sink);
  }

  /** Notes the end of a request. */
  finish(record: TracedRequest, exchange: Exchange): void {
    record.exchange = exchange;
  }

  /** Notes that the field of `sink` loads `key` (of a per-request loader). */
  noteLoad(sink: Sink, key: string): void {
    const keySink = this.keySink(key);
    for (const path of sink.paths) keySink.paths.add(path);
  }

  /** Runs the loading of `key` so that its requests serve every field that loads it. */
  runLoad<T>(key: string, load: () => T): T {
    return currentSink.run(this.keySink(key), load);
  }

  /** Runs the resolver of the field at response path `path` so that the requests it causes serve that field. */
  runField<T>(path: string, resolve: () => T): T {
    return currentSink.run({ trace: this, paths: new Set([path]) }, resolve);
  }

  private keySink(key: string): Sink {
    let sink = this.keySinks.get(key);
    if (!sink) {
      sink = { trace: this, paths: new Set() };
      this.keySinks.set(key, sink);
    }
    return sink;
  }

  /** The `extensions.explain` of the answer. */
  report(): { requests: ExplainedRequest[]; depth: number } {
    const records = [...this.records].sort((a, b) => (a.exchange?.startedAt ?? 0) - (b.exchange?.startedAt ?? 0));
    const fieldsOf = records.map((record) => {
      const fields = new Set<string>();
      for (const sink of record.sinks) for (const path of sink.paths) fields.add(path);
      return fields;
    });
    const requests = records.map((record, index) => {
      const exchange = record.exchange;
      const fields = fieldsOf[index]!;
      return {
        method: record.method,
        path: redactSecrets(record.path),
        operation: exchange?.operationId ?? null,
        status: exchange?.status ?? null,
        startMs: round(exchange ? exchange.startedAt - this.startedAt : 0),
        durationMs: round(exchange ? exchange.endedAt - exchange.startedAt : 0),
        retries: exchange?.retries ?? 0,
        fields: [...fields].slice(0, MAX_LISTED_FIELDS),
        shared: fields.size,
      };
    });
    return { requests, depth: causalDepth(records, fieldsOf) };
  }
}

/**
 * The longest chain of requests each waiting on the previous: a request waits on the one that
 * served the parent object of a field it serves (`organizations.nodes.0` for
 * `organizations.nodes.0.spaces`), and on an earlier request of the same field that ended
 * before it started (a write, then a read of its result).
 */
function causalDepth(records: TracedRequest[], fieldsOf: Array<Set<string>>): number {
  const servedBy = new Map<string, number[]>();
  fieldsOf.forEach((fields, index) => {
    for (const path of fields) servedBy.set(path, [...(servedBy.get(path) ?? []), index]);
  });
  const depths = new Map<number, number>();
  const depthOf = (index: number, visiting: Set<number>): number => {
    const known = depths.get(index);
    if (known !== undefined) return known;
    if (visiting.has(index)) return 0;
    visiting.add(index);
    const exchange = records[index]!.exchange;
    let before = 0;
    for (const path of fieldsOf[index]!) {
      for (const other of servedBy.get(path) ?? []) {
        const ended = records[other]!.exchange?.endedAt;
        if (other !== index && exchange && ended !== undefined && ended <= exchange.startedAt)
          before = Math.max(before, depthOf(other, visiting));
      }
      for (let cut = path.lastIndexOf('.'); cut > 0; cut = path.lastIndexOf('.', cut - 1)) {
        const parents = servedBy.get(path.slice(0, cut));
        if (!parents) continue;
        for (const other of parents) if (other !== index) before = Math.max(before, depthOf(other, visiting));
        break;
      }
    }
    visiting.delete(index);
    depths.set(index, before + 1);
    return before + 1;
  };
  let depth = 0;
  for (let index = 0; index < records.length; index += 1) depth = Math.max(depth, depthOf(index, new Set()));
  return depth;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

/**
 * Gives each explained upstream call its exchange when it is over. Outside the sharing of reads in
 * flight, so every GraphQL request that waited on a shared read has it in its own `explain`.
 */
export const explainCalls: UpstreamHook = {
  name: 'explain',
  fetch(call, next) {
    const record = call.explained;
    if (!record) return next(call);
    return next(call).finally(() => {
      record.exchange = exchangeOf(call);
    });
  },
};

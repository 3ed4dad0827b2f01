import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, type Tracer, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SamplingDecision, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/gateway/http/server.js';
import { samplerFromEnv, startOtlpTracing } from '../../src/gateway/telemetry/otlp.js';
import { useTracing } from '../../src/gateway/telemetry/tracing.js';
import { startFaultyUpstream, type FaultyUpstream } from '../fixtures/faulty-upstream.js';
import { payloadsOf } from '../fixtures/incremental.js';
import { startTestPlatform, type TestPlatform } from '../fixtures/platform.js';
import { until } from '../fixtures/wait.js';

let platform: TestPlatform;
let proxy: FaultyUpstream;
let spaceId: string;

beforeAll(async () => {
  platform = await startTestPlatform();
  proxy = await startFaultyUpstream(platform.url);
  spaceId = platform.spaceId('Getting started');
});

afterAll(async () => {
  await proxy.close();
  await platform.destroy();
});

const QUERY = 'query SpaceWithOrganization($id: ID!) { space(id: $id) { title organization { title } } }';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CLIENT_SPAN = '00f067aa0ba902b7';

async function run(gateway: Gateway, headers: Record<string, string> = {}) {
  const response = await gateway.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}`, ...headers },
    body: JSON.stringify({ query: QUERY, variables: { id: spaceId } }),
  });
  return (await response.json()) as any;
}

/** A gateway (over `upstreamUrl`) whose every span is kept in memory, exported as it ends. */
function tracedGateway(upstreamUrl = proxy.url) {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const gateway = createGateway({
    upstreamUrl,
    graphiql: { enabled: false },
    tracing: useTracing(provider.getTracer('test')),
  });
  return { exporter, provider, gateway };
}

describe('traces', () => {
  it("makes a span per operation, step and upstream request, in the client's trace, and sends it upstream", async () => {
    const { exporter, provider, gateway } = tracedGateway();
    try {
      proxy.reset();
      const answer = await run(gateway, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` });
      expect(answer.errors).toBeUndefined();
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      const root = spans.find((span) => span.name === 'query SpaceWithOrganization')!;
      expect(root).toBeDefined();
      expect(root.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
      expect(root.attributes).toMatchObject({
        'graphql.operation.type': 'query',
        'graphql.operation.name': 'SpaceWithOrganization',
        'graphql.cost.upstream_requests': 2,
        'graphql.cost.max_upstream_requests': 2,
        'http.response.status_code': 200,
      });
      const children = spans.filter((span) => span !== root);
      expect(children.map((span) => span.name).sort()).toEqual([
        'GET /orgs/{organizationId}',
        'GET /spaces/{spaceId}',
        'graphql.execute',
        'graphql.parse',
        'graphql.validate',
      ]);
      for (const span of spans) expect(span.spanContext().traceId).toBe(TRACE_ID);
      for (const span of children) expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
      const upstream = children.find((span) => span.name === 'GET /spaces/{spaceId}')!;
      expect(upstream.attributes).toMatchObject({
        'http.response.status_code': 200,
        'url.template': '/spaces/{spaceId}',
      });
      // The platform's requests carry the operation's own trace context.
      expect(proxy.requests.map((one) => one.headers.traceparent)).toEqual([
        `00-${TRACE_ID}-${root.spanContext().spanId}-01`,
        `00-${TRACE_ID}-${root.spanContext().spanId}-01`,
      ]);
    } finally {
      await gateway.close();
    }
  });

  it('names a batch as one, with a span per operation holding its type, name and cost', async () => {
    const { exporter, provider, gateway } = tracedGateway();
    try {
      const response = await gateway.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${platform.adminToken}` },
        body: JSON.stringify([
          { query: QUERY, variables: { id: spaceId } },
          { query: 'query Viewer { viewer { id } }' },
        ]),
      });
      expect(((await response.json()) as any[]).map((answer) => answer.errors)).toEqual([undefined, undefined]);
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      const root = spans.find((span) => span.name === 'graphql batch')!;
      expect(root.attributes['graphql.batch.size']).toBe(2);
      const operations = spans.filter((span) => span.name.startsWith('query '));
      expect(
        operations
          .map((span) => [
            span.name,
            span.attributes['graphql.operation.name'],
            span.attributes['graphql.cost.upstream_requests'],
          ])
          .sort(),
      ).toEqual([
        ['query SpaceWithOrganization', 'SpaceWithOrganization', 2],
        ['query Viewer', 'Viewer', 1],
      ]);
      for (const span of spans.filter((one) => one !== root))
        expect(span.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    } finally {
      await gateway.close();
    }
  });

  it('makes only the root span of a trace the sampler drops, and still sends its context upstream, unsampled', async () => {
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({
      sampler: samplerFromEnv({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' }),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    const tracer = provider.getTracer('test');
    let started = 0;
    const counting: Tracer = {
      startSpan: (...args: Parameters<Tracer['startSpan']>) => {
        started += 1;
        return tracer.startSpan(...args);
      },
      startActiveSpan: tracer.startActiveSpan.bind(tracer),
    };
    const gateway = createGateway({
      upstreamUrl: proxy.url,
      graphiql: { enabled: false },
      tracing: useTracing(counting),
    });
    try {
      proxy.reset();
      // The client declined its trace (flags 00): parent-based sampling drops it.
      const answer = await run(gateway, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-00` });
      expect(answer.errors).toBeUndefined();
      await provider.forceFlush();
      expect(exporter.getFinishedSpans()).toEqual([]);
      // The request's own span, none for its steps or its 2 upstream requests.
      expect(started).toBe(1);
      const sent = proxy.requests.map((one) => one.headers.traceparent);
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(new RegExp(`^00-${TRACE_ID}-[0-9a-f]{16}-00$`));
      expect(sent[1]).toBe(sent[0]);
    } finally {
      await gateway.close();
    }
  });

  it('ends the span of a subscription its client ends as answered, not as a client gone', async () => {
    const { exporter, provider, gateway } = tracedGateway(platform.url);
    try {
      const abort = new AbortController();
      const response = await gateway.fetch(
        new Request('http://gateway.test/graphql', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'text/event-stream',
            authorization: `Bearer ${platform.adminToken}`,
          },
          body: JSON.stringify({
            query: 'subscription Followed($id: ID!) { spaceContentUpdated(spaceId: $id) { platformId } }',
            variables: { id: spaceId },
          }),
          signal: abort.signal,
        }),
      );
      for await (const payload of payloadsOf(response)) {
        expect((payload as any).data.spaceContentUpdated.platformId).toBeTruthy();
        break;
      }
      abort.abort();
      await until(() => exporter.getFinishedSpans().some((span) => span.name === 'subscription Followed'));
      const root = exporter.getFinishedSpans().find((span) => span.name === 'subscription Followed')!;
      expect(root.attributes['http.response.status_code']).toBe(200);
      expect(root.status.code).not.toBe(SpanStatusCode.ERROR);
    } finally {
      await gateway.close();
    }
  });

  it('sends nothing upstream without tracing', async () => {
    const gateway = createGateway({ upstreamUrl: proxy.url, graphiql: { enabled: false } });
    try {
      proxy.reset();
      await run(gateway, { traceparent: `00-${TRACE_ID}-${CLIENT_SPAN}-01` });
      expect(proxy.requests.map((one) => one.headers.traceparent)).toEqual([undefined, undefined]);
    } finally {
      await gateway.close();
    }
  });
});

describe('OTLP export', () => {
  let receiver: Server;
  const received: any[] = [];
  let endpoint: string;

  beforeAll(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        received.push({
          path: req.url,
          type: req.headers['content-type'],
          body: JSON.parse(Buffer.concat(chunks).toString()),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => receiver.close(resolve)));

  it('exports the spans to the collector the standard variables name', async () => {
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT = endpoint;
    process.env.OTEL_SERVICE_NAME = 'gateway-under-test';
    const { tracer, shutdown } = startOtlpTracing();
    delete process.env.OTEL_EXPORTER_OTLP_ENDPOINT;
    delete process.env.OTEL_SERVICE_NAME;
    const gateway = createGateway({
      upstreamUrl: platform.url,
      graphiql: { enabled: false },
      tracing: useTracing(tracer),
    });
    try {
      await run(gateway);
      await shutdown();
      expect(received.map((one) => [one.path, one.type])).toEqual([['/v1/traces', 'application/json']]);
      const [resourceSpans] = received[0].body.resourceSpans;
      expect(resourceSpans.resource.attributes).toContainEqual({
        key: 'service.name',
        value: { stringValue: 'gateway-under-test' },
      });
      const names = resourceSpans.scopeSpans.flatMap((scope: any) => scope.spans.map((span: any) => span.name));
      expect(names).toContain('query SpaceWithOrganization');
      expect(names).toContain('GET /spaces/{spaceId}');
    } finally {
      await gateway.close();
    }
  });
});

describe('sampling, as OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG say', () => {
  // 1,000 trace ids spread evenly over what the ratio sampler reads (their 32-bit parts XORed).
  const traceIds = Array.from(
    { length: 1000 },
    (_, index) =>
      `0000000100000001${'0'.repeat(8)}${Math.floor((index * 2 ** 32) / 1000)
        .toString(16)
        .padStart(8, '0')}`,
  );
  const sampled = (env: Record<string, string>, parent: 'none' | 'sampled' | 'declined') => {
    const sampler = samplerFromEnv(env);
    const context =
      parent === 'none'
        ? ROOT_CONTEXT
        : trace.setSpanContext(ROOT_CONTEXT, {
            traceId: TRACE_ID,
            spanId: CLIENT_SPAN,
            traceFlags: parent === 'sampled' ? TraceFlags.SAMPLED : TraceFlags.NONE,
            isRemote: true,
          });
    return traceIds.filter(
      (traceId) =>
        sampler.shouldSample(context, traceId, 'query Q', SpanKind.SERVER, {}, []).decision ===
        SamplingDecision.RECORD_AND_SAMPLED,
    ).length;
  };
  const production = { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' };

  it('keeps a tenth of new traces at parentbased_traceidratio 0.1, and follows the client where it decided', () => {
    expect(sampled(production, 'none')).toBe(100);
    expect(sampled(production, 'sampled')).toBe(1000);
    expect(sampled(production, 'declined')).toBe(0);
  });

  it('keeps every trace unset, and reads the other samplers and ratios', () => {
    expect(sampled({}, 'none')).toBe(1000);
    expect(sampled({}, 'declined')).toBe(0);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'always_off' }, 'sampled')).toBe(0);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'always_on' }, 'declined')).toBe(1000);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }, 'sampled')).toBe(250);
    expect(sampled({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' }, 'none')).toBe(0);
    // Not a ratio: 1, as the specification says.
    expect(sampled({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '2' }, 'none')).toBe(1000);
  });
});

import type { Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';

/**
 * Exports the gateway's traces over OTLP/HTTP, as the standard variables say
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`, `OTEL_EXPORTER_OTLP_HEADERS`,
 * `OTEL_SERVICE_NAME`, `OTEL_TRACES_SAMPLER` and `OTEL_TRACES_SAMPLER_ARG`). Loaded only when an endpoint is set.
 */
export function startOtlpTracing(): { tracer: Tracer; shutdown(): Promise<void> } {
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env.OTEL_SERVICE_NAME || 'docs-graphql-gateway' }),
    sampler: samplerFromEnv(process.env),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
  });
  return { tracer: provider.getTracer('docs-graphql-gateway'), shutdown: () => provider.shutdown() };
}

/**
 * The sampler the standard variables name: `OTEL_TRACES_SAMPLER` (`always_on`, `always_off`,
 * `traceidratio`, `parentbased_always_on`, `parentbased_always_off`, `parentbased_traceidratio`) with
 * the ratio in `OTEL_TRACES_SAMPLER_ARG` (0 to 1). The SDK this gateway uses no longer reads them
 * itself, and production samples a share of its traces. Unset or unknown, `parentbased_always_on`
 * (every trace a client did not decline); a ratio that is not a number in [0, 1] counts as 1, as
 * the specification says.
 */
export function samplerFromEnv(env: Record<string, string | undefined>): Sampler {
  const parsed = Number(env.OTEL_TRACES_SAMPLER_ARG ?? 'NaN');
  const ratio = Number.isFinite(parsed) && parsed >= 0 && parsed <= 1 ? parsed : 1;
  switch (env.OTEL_TRACES_SAMPLER?.trim().toLowerCase()) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

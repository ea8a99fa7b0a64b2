import { context, propagation, trace } from '@opentelemetry/api';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { traceFields, useTracing } from './plugins/tracing.js';
import { registerTraceHooks } from './trace-hooks.js';
import { SimpleSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace';

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** The resource's `service.name` unless `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` names another. */
export const DEFAULT_SERVICE_NAME = 'alerts-markets-gateway';

/**
 * Registers OpenTelemetry for the process through the SDK's own environment handling (`NodeSDK`), so
 * every standard variable works as operators know it from other services: `OTEL_TRACES_SAMPLER` /
 * `OTEL_TRACES_SAMPLER_ARG` (e.g. `parentbased_traceidratio` and `0.05`), `OTEL_SERVICE_NAME`,
 * `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_PROPAGATORS`, `OTEL_BSP_*`, `OTEL_TRACES_EXPORTER` and the
 * `OTEL_EXPORTER_OTLP_*` endpoint, protocol, headers and timeout. The undici instrumentation gives
 * every upstream request a client span and a `traceparent` continuing the operation's trace.
 *
 * Traces only: the gateway's metrics are Prometheus's (`/metrics`) and its logs pino's, on stdout, so
 * no metric reader or log processor is started whatever `OTEL_METRICS_EXPORTER` / `OTEL_LOGS_EXPORTER`
 * say. Tests pass an in-memory exporter, each span exported as it ends; the sampler still comes from
 * the environment.
 */
export function startTracing(options: { exporter?: SpanExporter } = {}): Tracing {
  const undici = new UndiciInstrumentation({ requireParentforSpans: true });
  const sdk = new NodeSDK({
    // The environment's resource attributes are merged over these.
    resource: defaultResource().merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME })),
    ...(options.exporter ? { spanProcessors: [new SimpleSpanProcessor({ exporter: options.exporter })] } : {}),
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [undici],
  });
  sdk.start();
  registerTraceHooks({ plugin: useTracing, logFields: traceFields });
  return {
    async shutdown() {
      await sdk.shutdown();
      // The SDK leaves its globals and instrumentations registered: a process (or a test file) may start tracing again.
      registerTraceHooks(null);
      undici.disable();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

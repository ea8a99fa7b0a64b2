import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { registerInstrumentations } from '@opentelemetry/instrumentation';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';

export interface Tracing {
  /** Flushes the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/**
 * Registers OpenTelemetry for the process: a tracer provider with the W3C trace-context propagator and
 * an async-hooks context manager, and the undici instrumentation, which gives every upstream request a
 * client span and a `traceparent` continuing the operation's trace. The OTLP/HTTP exporter reads the
 * standard `OTEL_EXPORTER_OTLP_*` variables itself; tests pass an in-memory exporter instead.
 */
export function startTracing(options: { exporter?: SpanExporter; serviceName?: string } = {}): Tracing {
  const exporter = options.exporter ?? new OTLPTraceExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': process.env['OTEL_SERVICE_NAME'] ?? options.serviceName ?? 'alerts-markets-gateway' }),
    // In-memory exporters (tests) want each span at once; a real collector gets batches.
    spanProcessors: [options.exporter ? new SimpleSpanProcessor({ exporter }) : new BatchSpanProcessor({ exporter })],
  });
  // What NodeTracerProvider.register() did before the 3.x SDK: the async-hooks context manager, the W3C
  // propagators and the global provider.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }));
  trace.setGlobalTracerProvider(provider);
  const unregister = registerInstrumentations({
    tracerProvider: provider,
    // The span's name is the method: URLs carry ids and query values.
    instrumentations: [new UndiciInstrumentation({ requireParentforSpans: true })],
  });
  return {
    async shutdown() {
      unregister();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

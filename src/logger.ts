import { context, createContextKey, isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { Config } from './config.js';

export type { Logger } from 'pino';

/** Where a request's `X-Request-Id` is held in its trace context (plugins/tracing.ts sets it). */
export const REQUEST_ID_KEY = createContextKey('gateway.request_id');

/**
 * What a line written within a request's trace carries: its trace and span ids (`trace_id`, `span_id`,
 * `trace_flags`, as OpenTelemetry's log data model and its pino instrumentation name them) and its
 * `requestId`, so a line leads to its trace and back. Nothing while tracing is off (no span is active).
 */
function traceFields(): Record<string, unknown> {
  const active = context.active();
  const span = trace.getSpan(active)?.spanContext();
  if (!span || !isSpanContextValid(span)) return {};
  const requestId = active.getValue(REQUEST_ID_KEY);
  return {
    trace_id: span.traceId,
    span_id: span.spanId,
    trace_flags: `0${span.traceFlags.toString(16)}`,
    ...(typeof requestId === 'string' ? { requestId } : {}),
  };
}

/**
 * Structured JSON logs. Credentials never reach a log: anything that looks like one is redacted even
 * if a future log line passes headers along by mistake.
 */
export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    level: config.logLevel,
    base: { service: 'gateway' },
    mixin: traceFields,
    redact: {
      paths: [
        'headers.authorization',
        'headers["x-service-client-key"]',
        'headers["x-service-api-key"]',
        '*.headers.authorization',
        '*.headers["x-service-client-key"]',
        '*.headers["x-service-api-key"]',
        'authorization',
        'token',
        'apiKey',
        'clientKey',
      ],
      censor: '[redacted]',
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

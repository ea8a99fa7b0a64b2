import type { Plugin } from 'graphql-yoga';

/**
 * What tracing adds to requests and log lines, registered by `tracing.ts` once it has started. Kept
 * apart from it so that a gateway without tracing never loads OpenTelemetry's API, which a heap
 * measurement showed holds live memory for good: the app and the logger read these hooks instead.
 */
export interface TraceHooks {
  /** The plugin that opens a span per request and operation (plugins/tracing.ts). */
  plugin(): Plugin;
  /** The fields a log line written inside a span carries. */
  logFields(): Record<string, unknown>;
}

let hooks: TraceHooks | null = null;

export function registerTraceHooks(registered: TraceHooks | null): void {
  hooks = registered;
}

/** The tracing plugin once tracing has started; none before, as no tracer could record a span. */
export function tracingPlugins(): Plugin[] {
  return hooks ? [hooks.plugin()] : [];
}

/** A pino mixin: nothing while tracing has not started. */
export function traceLogFields(): Record<string, unknown> {
  return hooks ? hooks.logFields() : {};
}

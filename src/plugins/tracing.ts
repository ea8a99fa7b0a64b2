import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context as TraceContext, type TextMapGetter } from '@opentelemetry/api';
import type { Plugin } from 'graphql-yoga';

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

type Wrapped = () => unknown;

/**
 * A span per HTTP request and per GraphQL operation, with its phases (parse, validate, context,
 * execute) as children. An incoming W3C `traceparent`/`tracestate` is continued; the upstream calls made
 * while executing become children of the execute span (the undici instrumentation starts them in the
 * active context). Only registered when tracing is on.
 */
export function useTracing(): Plugin {
  const tracer = trace.getTracer('alerts-markets-gateway');
  const byRequest = new WeakMap<Request, TraceContext>();
  const byContext = new WeakMap<object, TraceContext>();

  function inSpan(name: string, parent: TraceContext, wrapped: Wrapped, kind = SpanKind.INTERNAL, onContext?: (ctx: TraceContext) => void) {
    const span = tracer.startSpan(name, { kind }, parent);
    const ctx = trace.setSpan(parent, span);
    onContext?.(ctx);
    const fail = (error: unknown) => {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    };
    try {
      const result = context.with(ctx, wrapped);
      if (result instanceof Promise) return (result as Promise<unknown>).then((value) => (span.end(), value), fail);
      span.end();
      return result;
    } catch (error) {
      return fail(error);
    }
  }

  const phase = (name: string) => (payload: { context: object }, wrapped: Wrapped) =>
    inSpan(name, byContext.get(payload.context) ?? context.active(), wrapped) as never;

  return {
    instrumentation: {
      request({ request }, wrapped) {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
        const { pathname } = new URL(request.url);
        return inSpan(`${request.method} ${pathname}`, parent, wrapped, SpanKind.SERVER, (ctx) => byRequest.set(request, ctx)) as never;
      },
      operation({ context: graphqlContext, request }, wrapped) {
        return inSpan('graphql.operation', byRequest.get(request) ?? context.active(), wrapped, SpanKind.INTERNAL, (ctx) =>
          byContext.set(graphqlContext, ctx),
        ) as never;
      },
      parse: phase('graphql.parse'),
      validate: phase('graphql.validate'),
      context: phase('graphql.context'),
      execute: phase('graphql.execute'),
      subscribe: phase('graphql.subscribe'),
    },
    onExecute({ args }) {
      const span = trace.getSpan(context.active());
      const name = (args.operationName as string | null | undefined) ?? undefined;
      if (span && name) span.setAttribute('graphql.operation.name', name);
    },
  };
}

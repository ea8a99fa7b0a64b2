import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  createContextKey,
  isSpanContextValid,
  trace,
  type Context as TraceContext,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { getOperationAST, type DocumentNode, type GraphQLError } from 'graphql';
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga';
import { maskError } from '../errors.js';
import { STREAM_PATH } from './stream-path.js';
import { WEBHOOK_PATH } from './events-webhook.js';
import { requestIdOf } from '../request-id.js';

/** Where a request's `X-Request-Id` is held in its trace context (the request's span sets it). */
const REQUEST_ID_KEY = createContextKey('gateway.request_id');

/**
 * What a line written within a request's trace carries: its trace and span ids (`trace_id`, `span_id`,
 * `trace_flags`, as OpenTelemetry's log data model and its pino instrumentation name them) and its
 * `requestId`, so a line leads to its trace and back. Nothing while tracing is off (no span is active).
 */
export function traceFields(): Record<string, unknown> {
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

const headerGetter: TextMapGetter<Headers> = {
  keys: (headers) => [...headers.keys()],
  get: (headers, key) => headers.get(key) ?? undefined,
};

/**
 * The paths the gateway serves: a span's `http.route` and name. Any other path is the caller's choice,
 * so it stays out of span names (their cardinality) and is only the span's `url.path`.
 */
const ROUTES = new Set(['/graphql', STREAM_PATH, '/health', '/ready', '/metrics', WEBHOOK_PATH]);

type Wrapped = () => unknown;

/**
 * A span per HTTP request and per GraphQL operation, with its phases (parse, validate, context,
 * execute) as children. An incoming `traceparent` (or what `OTEL_PROPAGATORS` names) is continued; the
 * upstream calls made while executing become children of the execute span (the undici instrumentation
 * starts them in the active context). Attributes follow the semantic conventions: `http.request.method`,
 * `url.path`, `http.route`, `http.response.status_code` on the request's span, `graphql.operation.name`
 * and `graphql.operation.type` on the operation's; an operation answered with errors, and a 5xx answer,
 * mark their span as failed. Only registered when tracing is on.
 */
export function useTracing(): Plugin {
  const tracer = trace.getTracer('alerts-markets-gateway');
  const byRequest = new WeakMap<Request, TraceContext>();
  const byContext = new WeakMap<object, TraceContext>();

  function inSpan(name: string, parent: TraceContext, wrapped: Wrapped, kind = SpanKind.INTERNAL, onContext?: (ctx: TraceContext) => TraceContext) {
    const span = tracer.startSpan(name, { kind }, parent);
    let ctx = trace.setSpan(parent, span);
    if (onContext) ctx = onContext(ctx);
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
  const operationSpan = (graphqlContext: object): Span | undefined => {
    const ctx = byContext.get(graphqlContext);
    return ctx && trace.getSpan(ctx);
  };

  /** The operation's name and type, once its document is known. */
  function describe(graphqlContext: object, document: DocumentNode, operationName: string | null | undefined): void {
    const operation = getOperationAST(document, operationName);
    if (!operation) return;
    for (const span of [operationSpan(graphqlContext), trace.getSpan(context.active())]) {
      if (operation.name) span?.setAttribute('graphql.operation.name', operation.name.value);
      span?.setAttribute('graphql.operation.type', operation.operation);
    }
  }

  return {
    instrumentation: {
      request({ request }, wrapped) {
        const parent = propagation.extract(ROOT_CONTEXT, request.headers, headerGetter);
        const { pathname } = new URL(request.url);
        const route = ROUTES.has(pathname) ? pathname : undefined;
        return inSpan(route ? `${request.method} ${route}` : request.method, parent, wrapped, SpanKind.SERVER, (ctx) => {
          const span = trace.getSpan(ctx)!;
          span.setAttributes({ 'http.request.method': request.method, 'url.path': pathname });
          if (route) span.setAttribute('http.route', route);
          const requestId = requestIdOf(request);
          span.setAttribute('http.request.header.x-request-id', [requestId]);
          const held = ctx.setValue(REQUEST_ID_KEY, requestId);
          byRequest.set(request, held);
          return held;
        }) as never;
      },
      operation({ context: graphqlContext, request }, wrapped) {
        return inSpan('graphql.operation', byRequest.get(request) ?? context.active(), wrapped, SpanKind.INTERNAL, (ctx) => {
          byContext.set(graphqlContext, ctx);
          return ctx;
        }) as never;
      },
      parse: phase('graphql.parse'),
      validate: phase('graphql.validate'),
      context: phase('graphql.context'),
      execute: phase('graphql.execute'),
      subscribe: phase('graphql.subscribe'),
    },
    onResponse({ request, response }) {
      const ctx = byRequest.get(request);
      const span = ctx && trace.getSpan(ctx);
      if (!span) return;
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    },
    onParse({ context: graphqlContext }) {
      return ({ result }) => {
        if (result instanceof Error) failed(operationSpan(graphqlContext), [result]);
      };
    },
    onValidate({ context: graphqlContext }) {
      return ({ result }) => failed(operationSpan(graphqlContext), result);
    },
    onSubscribe({ args }) {
      describe(args.contextValue, args.document as DocumentNode, args.operationName as string | null | undefined);
    },
    onExecute({ args }) {
      describe(args.contextValue, args.document as DocumentNode, args.operationName as string | null | undefined);
      const span = operationSpan(args.contextValue);
      return {
        onExecuteDone: (payload) =>
          handleStreamOrSingleExecutionResult(payload, ({ result }) => {
            failed(span, result.errors);
            const incremental = (result as { incremental?: readonly { errors?: readonly GraphQLError[] }[] }).incremental;
            for (const part of incremental ?? []) failed(span, part.errors);
          }),
      };
    },
  };
}

/**
 * An operation answered with errors failed: its span's status is ERROR, described by the public code
 * its first error is answered with (the errors are seen here before they are masked).
 */
function failed(span: Span | undefined, errors: readonly Error[] | undefined): void {
  if (!span || !errors?.length) return;
  const code = (maskError(errors[0]!, 'Unexpected error.', false) as Partial<GraphQLError>).extensions?.['code'];
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'GraphQL error' });
}

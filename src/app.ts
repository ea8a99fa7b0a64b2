import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import type { GraphQLError } from 'graphql';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.js';
import type { RequestContext, ServerContext } from './context.js';
import { maskError } from './errors.js';
import { useNoRequestEcho } from './plugins/no-request-echo.js';
import { useGraphQLStreamPath } from './plugins/stream-path.js';
import { createRateLimit } from './plugins/rate-limit.js';
import { createStreamCaps, type StreamCaps } from './plugins/stream-caps.js';
import { useEventsWebhook } from './plugins/events-webhook.js';
import { boundedParseCache, MAX_DOCUMENT_BYTES, MAX_DOCUMENT_NESTING, nestsDeeperThan, useDocumentLimits } from './plugins/document-limits.js';
import { useJitExecution } from './plugins/jit.js';
import { createQueryCost, DEFAULT_MAX_QUERY_CALLS } from './plugins/query-cost.js';
import { createCollapse } from './plugins/collapse-inflight.js';
import { CompressionSlots, registerCompressionMetrics } from './plugins/compression.js';
import { createDirectPath } from './direct/path.js';
import type { FastPath } from './node-http.js';
import { createGatewayResponseCache } from './response-cache/plugin.js';
import { createHitPath, type CorsOptions, type HitPath, type HitPathOptions } from './fast-path/hits.js';
import type { Phase } from './plugins/readiness.js';
import { yogaLogging } from './plugins/error-log.js';
import { useExecutionResults } from './plugins/execution-results.js';
import { tracingPlugins } from './trace-hooks.js';
import { namedDocumentId, useTrustedDocuments } from './plugins/trusted-documents.js';
import { useWireEncoding } from './plugins/wire-encoding.js';
import { getsOwnAnswer, useRequestDecisions } from './plugins/request-decisions.js';
import { useVaryOrigin } from './plugins/vary-origin.js';
import { validatedDocuments } from './plugins/validated-documents.js';
import { useOperationMetrics } from './plugins/operation-metrics.js';
import { schema } from './schema/index.js';
import { operationCalls, type Holdings } from './schema/common/calls.js';
import { createResponseCacheStore } from './response-cache/store.js';
import type { RunRefresh } from './response-cache/refresh.js';
import type { Services } from './services.js';
import { createRequestContext } from './request-context.js';
import { renderGraphiQL } from './graphiql.js';
import { createYogaServer } from './yoga-server.js';

/**
 * Largest request body Yoga reads (413 beyond; Yoga's default is 25 MB). The largest real body is a
 * sendNotification to 10,000 wallet addresses in variables, about 0.5 MB.
 */
export const MAX_REQUEST_BODY_BYTES = 2 * 1024 * 1024;

export interface AppOptions {
  config: Readonly<Config>;
  services: Services;
  /** Extra Yoga plugins (e.g. the webhook receiver). */
  plugins?: Plugin[];
  /** What GraphiQL opens with in development. */
  graphiql?: { defaultQuery?: string; headers?: Record<string, string> };
  /** The cap and CPU budget of compressions (a test drives its own budget); by default compression.ts's. */
  compression?: CompressionSlots;
}

export interface App {
  yoga: YogaServerInstance<ServerContext, RequestContext>;
  /** Readiness turns 503 while draining on shutdown. */
  setDraining(draining: boolean): void;
  /** Readiness is 503 while `starting` (the entry point sets it until the services have started). */
  setPhase(phase: Phase): void;
  /** Open subscriptions and their caps (the WebSocket server caps its connections by the same number). */
  streams: StreamCaps;
  /** Cached hits answered at the HTTP listener (fast-path/hits.ts); none with the cache or tracing off. */
  hits?: HitPath;
  /** Executed requests of the common shape answered at the HTTP listener (direct/path.ts); none with tracing on. */
  direct?: FastPath;
}

/** Builds the gateway. Starts nothing and listens nowhere: `lifecycle.ts` does that. */
export function createApp(options: AppOptions): App {
  const { config, services } = options;
  let phase: Phase = 'ready';

  const trustedDocuments = useTrustedDocuments({
    manifestPath: config.persistedDocuments,
    allowArbitraryDocuments: config.allowArbitraryDocuments,
    apq: config.apq,
    apqMaxBytes: config.apqMaxBytes,
  });
  const parseCache = boundedParseCache();
  // Each document validated once, with every rule the plugins add: later requests get its result.
  const validated = validatedDocuments();
  const holdings: Holdings = { holdsAsset: (id) => services.assetCache.holds(id, 'price') };
  const streams = createStreamCaps({ perClient: config.maxStreamsPerClient, perProcess: config.maxStreams, registry: services.registry });
  // Browsers on the listed origins only (CORS_ORIGINS), credentials included; any other origin gets no
  // CORS headers, so its pages cannot read an answer. Yoga's default would reflect every origin.
  const corsFor = (origin: string): CorsOptions | false =>
    config.corsOrigins.includes(origin) ? { origin, credentials: true, exposedHeaders: ['ETag', 'Retry-After', 'X-Request-Id'], maxAge: 600 } : false;
  const rateLimit = createRateLimit({ perMinute: config.rateLimitPerMinute, redis: services.redis, logger: services.logger, services, registry: services.registry });
  const jit = useJitExecution({ compiled: (document) => parseCache.compiled(document) });
  const queryCost = createQueryCost({ maxCost: config.maxQueryCost, maxCalls: DEFAULT_MAX_QUERY_CALLS, countCalls: (args, maxNodes) => operationCalls(args, holdings, maxNodes) });
  const metrics = useOperationMetrics({ registry: services.registry, schema, registered: trustedDocuments.operationNames, endpoint: config.metricsPort === null ? '/metrics' : false });
  const collapse = createCollapse({ registry: services.registry, ownAnswer: getsOwnAnswer });
  // One cap on concurrent compressions for the pipeline's answers and the direct path's.
  const slots = options.compression ?? new CompressionSlots();
  registerCompressionMetrics(services.registry);
  const cache = config.responseCache ? responseCache(options, (request, serverContext) => yoga.fetch(request, serverContext)) : null;
  const yoga: YogaServerInstance<ServerContext, RequestContext> = createYogaServer<ServerContext, RequestContext>({
    schema,
    // The per-request root; the plugins before it hand it the caller and the deadline in the server context.
    context: (initial) => createRequestContext(initial, services),
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    cors: config.corsOrigins.length
      ? (request) => {
          const origin = request.headers.get('origin');
          return origin ? corsFor(origin) : false;
        }
      : false,
    landingPage: false,
    logging: yogaLogging(services.logger),
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    parserAndValidationCache: parseCache,
    // Masked in both modes; development adds the original error's details for debugging. Upstream
    // failures get their public codes here, once (errors.ts).
    maskedErrors: { isDev: !config.production, maskError },
    graphiql: config.production
      ? false
      : {
          title: 'Alerts & Markets gateway',
          defaultQuery: options.graphiql?.defaultQuery,
          headers: options.graphiql?.headers ? JSON.stringify(options.graphiql.headers, null, 2) : undefined,
          subscriptionsProtocol: 'SSE',
        },
    // GraphiQL's scripts and styles come from an npm package, not a CDN: the page works offline (graphiql.ts).
    renderGraphiQL: (graphiqlOptions) => renderGraphiQL(graphiqlOptions),
    plugins: [
      ...(config.tracing ? tracingPlugins() : []),
      // The request id, caller, Cache-Control, ledger and deadline decided once, the readiness probe, the
      // URL parameters, and before anything reads the parameters their shape: one plugin, few hooks.
      useRequestDecisions({
        config,
        deadline: { defaultMs: config.requestTimeoutDefaultMs, maxMs: config.requestTimeoutMaxMs },
        readiness: { endpoint: '/ready', phase: () => phase, upstreams: services.upstreamHealth, eventsListening: () => services.events.listening },
      }),
      validated.lookup,
      // A text the parse cache holds passed the limits when it was first parsed.
      validated.first(useDocumentLimits({ passed: (source) => parseCache.documentCache.has(source) })),
      useGraphQLStreamPath('/graphql', (request, serverContext) => yoga.fetch(request, serverContext)),
      // Without a secret nothing can be verified: the webhook path stays unknown (404).
      ...(config.webhookSecret ? [useEventsWebhook({ secret: config.webhookSecret, events: services.events, logger: services.logger })] : []),
      ...trustedDocuments.lookup,
      ...(config.production ? [useDisableIntrospection(), useNoRequestEcho()] : []),
      // Field errors logged before Yoga masks them, deferred parts' errors masked, the ledger added.
      useExecutionResults({ logger: services.logger, mask: (error) => maskError(error, 'Unexpected error.', !config.production) }),
      validated.first(useDeferStream()),
      jit,
      validated.first(EnvelopArmorPlugin({
        maxDepth: { n: 12, onReject: [tooComplex] },
        maxAliases: { n: 30, onReject: [tooComplex] },
        maxDirectives: { n: 50, onReject: [tooComplex] },
        maxTokens: { n: 5000, onReject: [tooComplex] },
        // Cost is measured with list sizes by useQueryCost instead.
        costLimit: { enabled: false },
        // Field suggestions leak the schema; keep them only where introspection is on anyway.
        blockFieldSuggestion: { enabled: config.production },
      })),
      // usePrometheus's series (HTTP duration by registered operation, execute time, errors,
      // deprecated fields), observed by the gateway's own hooks (operation-metrics.ts). With METRICS_PORT the scraper
      // reads them there (metrics-server.ts) and the public port answers 404.
      metrics,
      queryCost.plugin,
      // After every refusal before execution: a document registered by APQ is kept only once it passed them.
      trustedDocuments.register,
      rateLimit.plugin,
      // After every refusal: a subscription refused for another reason holds no stream.
      streams.plugin,
      // Concurrent misses of one cache key (and identical queries with the cache off) run once.
      collapse.plugin,
      // A stale answer's refresh: the same operation, run again through the whole gateway in the background.
      ...(cache ? [cache.plugin] : []),
      ...(options.plugins ?? []),
      // After every plugin that validates or changes the validation's errors: keeps what they made.
      validated.record,
      // Every answer may carry another origin's CORS headers: a shared cache must key on the origin.
      ...(config.corsOrigins.length ? [useVaryOrigin()] : []),
      // Last: compresses and tags what the hooks above produced (Cache-Control included).
      useWireEncoding({ slots }),
    ],
  });

  // With tracing on every request takes the pipeline, which traces it.
  const hits = cache && !config.tracing ? hitPath({ reader: cache.reader, persisted: trustedDocuments.persisted }, config, corsFor, rateLimit.countCachedAnswer) : undefined;
  const direct = config.tracing
    ? undefined
    : createDirectPath({
        schema,
        services,
        debugLedger: config.debugLedger,
        deadline: { defaultMs: config.requestTimeoutDefaultMs, maxMs: config.requestTimeoutMaxMs },
        arbitraryDocuments: !config.persistedDocuments || config.allowArbitraryDocuments,
        documentOf: (query) => parseCache.documentCache.get(query),
        passed: validated.passed,
        compiled: jit.compiledDocuments,
        costRefusal: queryCost.refusal,
        ...(rateLimit.admit ? { rateLimit: rateLimit.admit } : {}),
        collapse,
        observe: metrics.observeDirect,
        cache: cache?.reader ?? null,
        development: !config.production,
        ...(config.corsOrigins.length ? { cors: corsFor } : {}),
        slots,
      });
  return {
    yoga,
    setDraining: (draining) => (phase = draining ? 'draining' : 'ready'),
    setPhase: (next) => (phase = next),
    streams,
    ...(hits ? { hits } : {}),
    ...(direct ? { direct } : {}),
  };
}

function hitPath(lookups: Pick<HitPathOptions, 'reader' | 'persisted'>, config: Readonly<Config>, cors: (origin: string) => CorsOptions | false, countOperation: HitPathOptions['countOperation']): HitPath {
  return createHitPath({ ...lookups, debugLedger: config.debugLedger, ...(config.corsOrigins.length ? { cors } : {}), ...(countOperation ? { countOperation } : {}) });
}

/** The response cache, over a store in Redis when the replicas share one, else in process, bounded by bytes. */
function responseCache({ config, services }: AppOptions, refresh: RunRefresh) {
  const grace = { graceMs: config.responseCacheGraceMs, privateGraceMs: config.responseCachePrivateGraceMs };
  const { logger, redis, registry } = services;
  return createGatewayResponseCache({
    store: createResponseCacheStore({ logger, redis, maxBytes: config.responseCacheMaxBytes, ownerIndexTtlMs: config.responseCacheTtlMs.private + grace.privateGraceMs, ...grace }),
    ttlMs: config.responseCacheTtlMs,
    ...grace,
    // A document past the limits is refused at parse: the cache does not parse it first.
    admissible: (query) => query.length <= MAX_DOCUMENT_BYTES && !nestsDeeperThan(query, MAX_DOCUMENT_NESTING),
    refresh,
    registry,
    ownAnswer: getsOwnAnswer,
    namedDocumentId,
  });
}

/** Security limits reject during validation; give their errors the public code callers can branch on. */
function tooComplex(_context: unknown, error: GraphQLError): void {
  const extensions = error.extensions as Record<string, unknown>;
  extensions['code'] = 'QUERY_TOO_COMPLEX';
  // A whole-request refusal is HTTP 400 for application/json callers too, as the cost limit's.
  extensions['http'] = { status: 400 };
  error.message = error.message.replace(/^Syntax Error: /, '');
}

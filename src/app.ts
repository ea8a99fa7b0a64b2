import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor';
import { useDisableIntrospection } from '@graphql-yoga/plugin-disable-introspection';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { usePrometheus } from '@graphql-yoga/plugin-prometheus';
import type { GraphQLError } from 'graphql';
import { createYoga, useReadinessCheck, type Plugin, type YogaServerInstance } from 'graphql-yoga';
import type { Config } from './config.js';
import { createContext, type Context, type ServerContext } from './context.js';
import { useGraphQLStreamPath } from './events/stream-path.js';
import { useEventsWebhook } from './events/webhook.js';
import { useRequestId } from './plugins/request-id.js';
import { useTracing } from './plugins/tracing.js';
import { useTrustedDocuments } from './plugins/trusted-documents.js';
import { schema } from './schema/index.js';
import { CallBudget, withCallBudget } from './upstream/budget.js';
import type { Services } from './services.js';

export interface AppOptions {
  config: Readonly<Config>;
  services: Services;
  /** Extra Yoga plugins (e.g. the webhook receiver). */
  plugins?: Plugin[];
  /** What GraphiQL opens with in development. */
  graphiql?: { defaultQuery?: string; headers?: Record<string, string> };
}

export interface App {
  yoga: YogaServerInstance<ServerContext, Context>;
  /** Readiness turns 503 while draining on shutdown. */
  setDraining(draining: boolean): void;
}

/** Builds the gateway. Starts nothing and listens nowhere: `server.ts` does that. */
export function createApp(options: AppOptions): App {
  const { config, services } = options;
  let draining = false;

  const yoga: YogaServerInstance<ServerContext, Context> = createYoga<ServerContext, Context>({
    schema,
    context: (initial) => createContext(initial, services),
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/health',
    landingPage: false,
    logging: services.logger,
    // Masked in both modes; development adds the original error's details for debugging.
    maskedErrors: { isDev: !config.production },
    graphiql: config.production
      ? false
      : {
          title: 'Alerts & Markets gateway',
          defaultQuery: options.graphiql?.defaultQuery,
          headers: options.graphiql?.headers ? JSON.stringify(options.graphiql.headers, null, 2) : undefined,
          subscriptionsProtocol: 'SSE',
        },
    plugins: [
      ...(config.tracing ? [useTracing()] : []),
      useRequestId(),
      useReadinessCheck({ endpoint: '/ready', check: () => !draining }),
      useGraphQLStreamPath('/graphql', (request, serverContext) => yoga.fetch(request, serverContext)),
      // Without a secret nothing can be verified: the webhook path stays unknown (404).
      ...(config.webhookSecret ? [useEventsWebhook({ secret: config.webhookSecret, events: services.events, logger: services.logger })] : []),
      ...useTrustedDocuments({
        manifestPath: config.persistedDocuments,
        allowArbitraryDocuments: config.allowArbitraryDocuments,
        apq: config.apq,
      }),
      ...(config.production ? [useDisableIntrospection()] : []),
      useDeferStream(),
      EnvelopArmorPlugin({
        maxDepth: { n: 12, onReject: [tooComplex] },
        maxAliases: { n: 30, onReject: [tooComplex] },
        maxDirectives: { n: 50, onReject: [tooComplex] },
        maxTokens: { n: 5000, onReject: [tooComplex] },
        costLimit: { maxCost: 50_000, onReject: [tooComplex] },
        // Field suggestions leak the schema; keep them only where introspection is on anyway.
        blockFieldSuggestion: { enabled: config.production },
      }),
      usePrometheus({
        endpoint: '/metrics',
        // The services' own registry (one per build, so tests can build several apps).
        registry: services.registry,
        // Operation names and paths are chosen by callers: as labels they would grow without bound.
        labels: { operationName: false, path: false },
        metrics: {
          graphql_yoga_http_duration: true,
          graphql_envelop_request_duration: true,
          graphql_envelop_phase_execute: true,
          graphql_envelop_error_result: true,
          graphql_envelop_deprecated_field: true,
        },
      }),
      useCallBudget(config.upstreamCallBudget),
      ...(options.plugins ?? []),
    ],
  });

  return { yoga, setDraining: (value) => (draining = value) };
}

/**
 * Counts every upstream call a query or mutation makes, however deep in the resolvers; past the
 * budget the fields that need more calls fail with QUERY_TOO_COMPLEX. Subscriptions are not counted:
 * they live long and make calls per event.
 */
function useCallBudget(limit: number): Plugin {
  return { instrumentation: { execute: (_payload, wrapped) => withCallBudget(new CallBudget(limit), wrapped) } };
}

/** Security limits reject during validation; give their errors the public code callers can branch on. */
function tooComplex(_context: unknown, error: GraphQLError): void {
  (error.extensions as Record<string, unknown>)['code'] = 'QUERY_TOO_COMPLEX';
}

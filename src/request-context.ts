import type { YogaInitialContext } from 'graphql-yoga';
import { freshnessBound, readCacheControl } from './cache-control.js';
import type { Config } from './config.js';
import type { RequestContext, ServerContext } from './context.js';
import { readCredentials } from './credentials.js';
import type { Services } from './services.js';
import { AlertsSource } from './sources/alerts.js';
import { AssetsSource } from './sources/assets.js';
import { MarketsSource } from './sources/markets.js';
import { requestIdOf } from './request-id.js';
import { CallBudget, type CallScope, OperationDeadline, UpstreamLedger } from './operation/index.js';

/**
 * The per-request root: builds what one operation's resolvers get (Yoga's `context`, app.ts). It
 * reads what the plugins handed on through the server context (`ServerContext`: the caller, the
 * deadline) and imports none of them. One request is one operation (over WebSocket too: each gets a
 * request of its own). A subscription's events are not counted: each starts with its sources renewed
 * without the budget (`startEvent`, sources/index.ts).
 */
export function createRequestContext(initial: YogaInitialContext & ServerContext, services: Services): RequestContext {
  const { request } = initial;
  const { config } = services;
  // Read by `useRequestDecisions` over HTTP and by ws.ts over WebSocket; read here for any other caller of Yoga.
  const credentials = initial.credentials ?? readCredentials(request.headers);
  // Decided once per HTTP request by `useRequestDecisions`; read here for any other caller of Yoga (WebSocket).
  const freshness = freshnessBound(initial.cacheControl ?? readCacheControl(request.headers.get('cache-control')));
  // Built field by field: the optional members are set only when present, with no spread objects per request.
  const scope: { -readonly [K in keyof CallScope]: CallScope[K] } = {
    signal: request.signal,
    budget: new CallBudget(config.upstreamCallBudget),
    // Counted from the request's arrival (`useRequestDecisions`); an operation over WebSocket gets the default from now.
    deadline: initial.deadline ?? new OperationDeadline(config.requestTimeoutDefaultMs),
    requestId: requestIdOf(request),
  };
  if (initial.ledger ?? ledgerAsked(request, config)) scope.ledger = new UpstreamLedger();
  if (freshness) scope.freshness = freshness;
  return {
    services,
    credentials,
    scope,
    // A refresh of a cached answer asks the alerts service again who the token is: a revoked token ends its answers.
    alerts: new AlertsSource(services, credentials, scope, initial.cacheRefresh === true ? VERIFY : UNVERIFIED),
    assets: new AssetsSource(services, scope),
    markets: new MarketsSource(services, scope),
  };
}

const VERIFY = { verify: true };
const UNVERIFIED = { verify: false };
const LEDGER_HEADER = 'x-gateway-debug';

/**
 * Whether a request gets the upstream ledger: it sends `X-Gateway-Debug: 1` and the configuration
 * allows it (`DEBUG_LEDGER`: on in development, off in production unless turned on). The operation's
 * `CallScope` then gets a ledger; otherwise none is allocated.
 */
export function ledgerAsked(request: Request, config: Pick<Config, 'debugLedger'>): boolean {
  return config.debugLedger && request.headers.get(LEDGER_HEADER)?.trim() === '1';
}

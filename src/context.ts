import type { YogaInitialContext } from 'graphql-yoga';
import { freshnessBound, readCacheControl } from './cache-control.js';
import { readCredentials, type Credentials } from './credentials.js';
import { createLoaders, type Loaders } from './loaders/index.js';
import type { Config } from './config.js';
import type { Services } from './services.js';
import { deadlineOf } from './plugins/request-deadline.js';
import { CallBudget } from './upstream/budget.js';
import { OperationDeadline } from './upstream/deadline.js';
import { UpstreamLedger } from './upstream/ledger.js';
import type { CallScope } from './upstream/scope.js';

/** What the HTTP server adds to each request's context (node's req/res under `createServer(yoga)`). */
export type ServerContext = Record<string, unknown>;

export interface Context extends YogaInitialContext {
  services: Services;
  credentials: Credentials;
  /**
   * What every upstream call made for this operation carries: the request's signal, the operation's
   * call budget and deadline, its ledger when the client asked for one, and the client's freshness bound.
   */
  scope: CallScope;
  /** Per-request DataLoaders: created here for every request, never shared. */
  loaders: Loaders;
}

export function createContext(initial: YogaInitialContext, services: Services): Context {
  const credentials = readCredentials(initial.request.headers);
  // One request is one operation (over WebSocket too: each gets a request of its own). A subscription's
  // events are not counted: each gets loaders of its own without the budget (schema/events/event.ts).
  const freshness = freshnessBound(readCacheControl(initial.request.headers.get('cache-control')));
  // The deadline counts from the request's arrival; an operation over WebSocket gets the default from now.
  const { config } = services;
  const deadline = deadlineOf(initial.request) ?? new OperationDeadline(config.requestTimeoutDefaultMs);
  const scope: CallScope = {
    signal: initial.request.signal,
    budget: new CallBudget(config.upstreamCallBudget),
    deadline,
    ...(ledgerAsked(initial.request, config) ? { ledger: new UpstreamLedger() } : {}),
    ...(freshness ? { freshness } : {}),
  };
  return { ...initial, services, credentials, scope, loaders: createLoaders(services, credentials, scope) };
}

const LEDGER_HEADER = 'x-gateway-debug';

/**
 * Whether a request gets the upstream ledger: it sends `X-Gateway-Debug: 1` and the configuration
 * allows it (`DEBUG_LEDGER`: on in development, off in production unless turned on). `createContext`
 * then gives the operation's `CallScope` a ledger; otherwise none is allocated.
 */
export function ledgerAsked(request: Request, config: Pick<Config, 'debugLedger'>): boolean {
  return config.debugLedger && request.headers.get(LEDGER_HEADER)?.trim() === '1';
}

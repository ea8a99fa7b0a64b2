import type { YogaInitialContext } from 'graphql-yoga';
import type { RequestCacheControl } from './cache-control.js';
import type { Credentials } from './credentials.js';
import type { Services } from './services.js';
import type { DataSources } from './sources/index.js';
import type { CallScope, OperationDeadline } from './operation/index.js';

/**
 * The per-request values plugins hand on before the operation runs, in the server context. Yoga
 * builds the operation's context on that very object, so a value a plugin sets in `onRequest` or
 * `onParams` is there when the per-request root builds the context, whatever the order of the plugins.
 */
export interface PluginValues {
  /** The caller, read from the headers once per request (plugins/credentials.ts; ws.ts over WebSocket). */
  credentials?: Credentials;
  /** The operation's deadline, counted from the request's arrival (plugins/request-deadline.ts). */
  deadline?: OperationDeadline;
  /** The request's `Cache-Control`, parsed once (plugins/request-decisions.ts). */
  cacheControl?: RequestCacheControl;
  /** Whether the request gets the upstream ledger, decided once (plugins/request-decisions.ts). */
  ledger?: boolean;
  /** The response cache's own refresh of a stale answer: set by the cache in the server context it runs the refresh with. */
  cacheRefresh?: boolean;
  /** The response cache answered this request: it never reaches execution (response-cache/plugin.ts). */
  servedFromCache?: boolean;
}

/**
 * What each request's context starts as: what the HTTP server hands to Yoga (node's `req` and `res`;
 * `req` and `socket` over WebSocket, ws.ts), and the values the plugins hand on.
 */
export type ServerContext = Record<string, unknown> & PluginValues;

/** What the per-request root (request-context.ts) adds to it. */
export interface RequestContext extends DataSources {
  services: Services;
  /** The caller's credentials; only the data sources pass them on, and only to the alerts service. */
  credentials: Credentials;
  /**
   * What every upstream call made for this operation carries: the request's signal, the operation's
   * call budget and deadline, its ledger when the client asked for one, and the client's freshness
   * bound. Held by the data sources, which pass it to every call.
   */
  scope: CallScope;
}

/** The context every resolver and execution hook sees. */
export type Context = YogaInitialContext & PluginValues & RequestContext;

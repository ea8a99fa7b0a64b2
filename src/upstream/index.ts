import type { Dispatcher } from 'undici';
import { createAlertsClient } from './alerts/client.js';
import type { AlertsClient } from './alerts/client-types.js';
import { createAssetsClient, type AssetsClient } from './assets/client.js';
import { DEFAULT_INFLIGHT_MAX_BYTES, InFlightBytes } from './body.js';
import {
  createAgent,
  createHttpClient,
  DEFAULT_TIMEOUT_MS,
  type AgentOptions,
  type BreakerOptions,
  type BreakerState,
  type HttpClient,
  type RequestInfo,
  type RetryOptions,
  type ServiceName,
} from './http.js';
import { createMarketsClient, type MarketsClient } from './markets/client.js';

export interface UpstreamConfig {
  alertsUrl: string;
  marketsUrl: string;
  assetsUrl: string;
  /** A second assets service with the same contract, for metadata when the first fails. */
  assetsFallbackUrl?: string | null;
  /** The gateway's own `X-Service-Client-Key` for markets, positions and assets calls (never alerts). */
  serviceClientKey?: string | null;
  /** Timeout of one upstream call, retry included. Default `DEFAULT_TIMEOUT_MS` (transport/timeout.ts). */
  timeoutMs?: number;
  /** Per-service timeouts overriding `timeoutMs`. */
  serviceTimeoutMs?: Partial<Record<ServiceName | 'assetsFallback', number>>;
  /** Options of the shared pool (connect, headers and body timeouts, sockets per origin). */
  agentOptions?: AgentOptions;
  /** Use this dispatcher instead of building one (tests pass a `MockAgent`); it is then not closed by `close()`. */
  agent?: Dispatcher;
  /** `false` disables the circuit breakers. */
  breaker?: BreakerOptions | false;
  /** `false` disables the one connection-level retry of GETs. */
  retry?: RetryOptions | false;
  /** Upstream body bytes all calls together may be reading at once; past it, calls fail fast (body.ts). Default 64 MiB. */
  inFlightMaxBytes?: number;
  /** Called once per upstream call (metrics, logs). */
  onRequest?: (info: RequestInfo) => void;
  onBreakerStateChange?: (service: ServiceName, state: BreakerState) => void;
}

export interface Upstream {
  alerts: AlertsClient;
  markets: MarketsClient;
  assets: AssetsClient;
  /** Present when `assetsFallbackUrl` is configured. */
  assetsFallback: AssetsClient | null;
  /** The ceiling of upstream body bytes being read at once, shared by every client. */
  inFlight: InFlightBytes;
  /** Stops the breakers and closes the shared pool (when this module built it). */
  close(): Promise<void>;
}

/** Builds every upstream client over one shared keep-alive pool. */
export function createUpstream(config: UpstreamConfig): Upstream {
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ownAgent = config.agent === undefined;
  const agent =
    config.agent ??
    createAgent({
      headersTimeoutMs: Math.max(timeoutMs, 1_000),
      bodyTimeoutMs: Math.max(timeoutMs, 1_000),
      ...config.agentOptions,
    });

  const gatewayKey: Record<string, string> = config.serviceClientKey ? { 'x-service-client-key': config.serviceClientKey } : {};
  const inFlight = new InFlightBytes(config.inFlightMaxBytes ?? DEFAULT_INFLIGHT_MAX_BYTES);
  const https: HttpClient[] = [];
  const http = (service: ServiceName, baseUrl: string, defaultHeaders: Record<string, string>, timeout: number | undefined) => {
    const client = createHttpClient({
      service,
      baseUrl,
      agent,
      defaultHeaders,
      timeoutMs: timeout ?? timeoutMs,
      inFlight,
      ...(config.breaker !== undefined ? { breaker: config.breaker } : {}),
      ...(config.retry !== undefined ? { retry: config.retry } : {}),
      ...(config.onRequest ? { onRequest: config.onRequest } : {}),
      ...(config.onBreakerStateChange ? { onBreakerStateChange: config.onBreakerStateChange } : {}),
    });
    https.push(client);
    return client;
  };

  const t = config.serviceTimeoutMs ?? {};
  // The alerts client has no default credentials: each subscriber call carries the caller's own.
  const alerts = createAlertsClient(http('alerts', config.alertsUrl, {}, t.alerts));
  const markets = createMarketsClient(http('markets', config.marketsUrl, gatewayKey, t.markets));
  const assets = createAssetsClient(http('assets', config.assetsUrl, gatewayKey, t.assets));
  // The fallback has its own breaker (its own HttpClient), reported under the same service name.
  const assetsFallback = config.assetsFallbackUrl
    ? createAssetsClient(http('assets', config.assetsFallbackUrl, gatewayKey, t.assetsFallback))
    : null;

  return {
    alerts,
    markets,
    assets,
    assetsFallback,
    inFlight,
    async close() {
      for (const client of https) client.close();
      if (ownAgent) await agent.close();
    },
  };
}

export { DEFAULT_TIMEOUT_MS, UpstreamError } from './http.js';
export { InFlightBytes, ROUTE_BODY_LIMITS } from './body.js';
export type {
  AgentOptions,
  BreakerOptions,
  BreakerState,
  HttpClient,
  HttpClientOptions,
  RequestInfo,
  RetryOptions,
  ServiceName,
  UpstreamErrorKind,
} from './http.js';
export type { AlertsClient, AppCredentials, SubscriberCredentials, SubscriptionChange, InboxParams } from './alerts/client-types.js';
export type { MarketsClient, ListMarketsParams, MarketHistoryParams, PositionsParams, PositionHistoryParams } from './markets/client.js';
export { MAX_HISTORY_MARKETS, MAX_POSITION_WALLETS } from './markets/client.js';
export type { AssetsClient, SearchAssetsParams, PriceHistoryParams } from './assets/client.js';

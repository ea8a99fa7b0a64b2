import { Gauge, type Registry } from 'prom-client';
import type { BreakerState, RequestInfo, ServiceName } from '../upstream/index.js';

/** What readiness and `/metrics` say about one upstream service. */
export interface UpstreamStatus {
  /** The circuit breaker's last reported state (`closed` until it reports otherwise). */
  breaker: BreakerState;
  /** When a call to this service last succeeded (ISO 8601), or `null` if none has yet. */
  lastSuccessAt: string | null;
}

/**
 * The upstreams' health as the upstream layer reports it through its callbacks (`onRequest`,
 * `onBreakerStateChange`): it never looks inside the breakers, so it holds whatever breaker library the
 * upstream layer uses. Also exported as two gauges per service:
 * `gateway_upstream_breaker_state` (0 closed, 1 half-open, 2 open) and
 * `gateway_upstream_last_success_timestamp_seconds` (0 until a call succeeds).
 */
export interface UpstreamHealth {
  onRequest(info: RequestInfo): void;
  onBreakerStateChange(service: ServiceName, state: BreakerState): void;
  snapshot(): Record<ServiceName, UpstreamStatus>;
}

const BREAKER_GAUGE_VALUE: Record<BreakerState, number> = { closed: 0, halfOpen: 1, open: 2 };
const SERVICES: readonly ServiceName[] = ['alerts', 'markets', 'assets'];

export function createUpstreamHealth(registry: Registry, now: () => number = Date.now): UpstreamHealth {
  const breakerGauge = new Gauge({
    name: 'gateway_upstream_breaker_state',
    help: 'Circuit breaker state per upstream service: 0 closed, 1 half-open, 2 open.',
    labelNames: ['service'],
    registers: [registry],
  });
  const state = new Map<ServiceName, { breaker: BreakerState; lastSuccessMs: number | null }>();
  // Set when scraped, from `state`: a successful call (several a request) writes a number, not a labelled gauge.
  const lastSuccessGauge: Gauge = new Gauge({
    name: 'gateway_upstream_last_success_timestamp_seconds',
    help: 'Unix time of the last successful call per upstream service (0: none yet).',
    labelNames: ['service'],
    registers: [registry],
    collect() {
      for (const [service, { lastSuccessMs }] of state) lastSuccessGauge.set({ service }, (lastSuccessMs ?? 0) / 1000);
    },
  });
  for (const service of SERVICES) {
    state.set(service, { breaker: 'closed', lastSuccessMs: null });
    breakerGauge.set({ service }, 0);
    lastSuccessGauge.set({ service }, 0);
  }
  const entry = (service: ServiceName) => {
    let current = state.get(service);
    if (!current) state.set(service, (current = { breaker: 'closed', lastSuccessMs: null }));
    return current;
  };

  return {
    onRequest(info) {
      if (info.errorKind !== undefined) return;
      entry(info.service).lastSuccessMs = now();
    },
    onBreakerStateChange(service, breaker) {
      entry(service).breaker = breaker;
      breakerGauge.set({ service }, BREAKER_GAUGE_VALUE[breaker]);
    },
    snapshot() {
      const out = {} as Record<ServiceName, UpstreamStatus>;
      for (const [service, { breaker, lastSuccessMs }] of state) {
        out[service] = { breaker, lastSuccessAt: lastSuccessMs === null ? null : new Date(lastSuccessMs).toISOString() };
      }
      return out;
    },
  };
}

import type { Plugin } from 'graphql-yoga';
import type { UpstreamHealth } from '../stores/upstream-health.js';

/** Where the process is in its life: readiness is 200 only while `ready`. */
export type Phase = 'starting' | 'ready' | 'draining';

export interface ReadinessOptions {
  /** Path of the readiness probe. Default `/ready`. */
  endpoint?: string;
  /** The process's phase, read on every probe. */
  phase: () => Phase;
  /** The upstreams' breaker states and last successes, reported in the body (never a reason for 503). */
  upstreams: UpstreamHealth;
  /** Whether this replica hears the events channel (with Redis, verified by a probe); 503 while it does not. */
  eventsListening?: () => boolean;
}

/**
 * Readiness (`GET /ready`): 200 once started and until shutdown begins, 503 while starting or draining,
 * and while this replica does not hear the events channel (`events-not-listening`: being re-subscribed).
 * The JSON body tells the truth about the upstreams (`{ status, upstreams: { alerts: { breaker,
 * lastSuccessAt } ... } }`) without making it a reason to leave rotation: an upstream outage hits every
 * replica alike, and taking them all out would turn degraded answers into none.
 */
export function useReadiness(options: ReadinessOptions): Plugin {
  const endpoint = options.endpoint ?? '/ready';
  // Yoga's useReadinessCheck does this too, but tests every other request against a URLPattern first:
  // a path comparison is all a fixed endpoint needs.
  return {
    onRequest(payload) {
      if (payload.url.pathname !== endpoint) return;
      const { fetchAPI } = payload;
      const phase = options.phase();
      const events = options.eventsListening?.() ?? true;
      // A replica deaf to the events channel would accept streams that never receive anything.
      const status = phase === 'ready' && !events ? 'events-not-listening' : phase;
      const body = JSON.stringify({ status, upstreams: options.upstreams.snapshot() });
      payload.endResponse(
        new fetchAPI.Response(body, {
          status: status === 'ready' ? 200 : 503,
          headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
        }),
      );
    },
  };
}

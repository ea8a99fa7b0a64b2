import type { UpstreamHealth } from '../stores/upstream-health.js';

/** Where the process is in its life: readiness is 200 only while `ready`. */
export type Phase = 'starting' | 'ready' | 'draining';

/** What the readiness probe answers from (plugins/request-decisions.ts answers it, on its path). */
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
 * replica alike, and taking them all out would turn degraded answers into none. A path comparison
 * finds the probe: Yoga's useReadinessCheck would test every other request against a URLPattern.
 */
export function readinessAnswer(options: ReadinessOptions, fetchAPI: { Response: typeof Response }): Response {
  const phase = options.phase();
  const events = options.eventsListening?.() ?? true;
  // A replica deaf to the events channel would accept streams that never receive anything.
  const status = phase === 'ready' && !events ? 'events-not-listening' : phase;
  const body = JSON.stringify({ status, upstreams: options.upstreams.snapshot() });
  return new fetchAPI.Response(body, {
    status: status === 'ready' ? 200 : 503,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

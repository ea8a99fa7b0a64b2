import type { RequestInfo } from './transport/ledger.js';

/** The two tallies (src/metrics.ts) every upstream call is recorded in: a count by service, route and status, a duration by service and route. */
export interface CallTallies {
  calls: { series: (service: string, route: string, status: string) => () => void };
  durations: { series: (service: string, route: string) => (seconds: number) => void };
}

/** One service and route's series: its duration's, and its count's by status (undefined: no answer). */
interface RouteSeries {
  observe: (seconds: number) => void;
  counts: Map<number | undefined, () => void>;
}

/**
 * The `onRequest` hook that records each call in `tallies`. Each call finds its series by its service
 * and route (strings the clients hold, hashed once) and its status, instead of a label key joined per
 * call; the series are as many as the tallies' own (the routes are templates, the statuses the upstream's).
 */
export function recordCalls(tallies: CallTallies): (info: RequestInfo) => void {
  const byService = new Map<string, Map<string, RouteSeries>>();
  return (info) => {
    let routes = byService.get(info.service);
    if (!routes) byService.set(info.service, (routes = new Map<string, RouteSeries>()));
    let route = routes.get(info.route);
    if (!route) routes.set(info.route, (route = { observe: tallies.durations.series(info.service, info.route), counts: new Map<number | undefined, () => void>() }));
    let count = route.counts.get(info.status);
    if (!count) {
      count = tallies.calls.series(info.service, info.route, info.status === undefined ? 'error' : String(info.status));
      route.counts.set(info.status, count);
    }
    count();
    route.observe(info.durationMs / 1000);
  };
}

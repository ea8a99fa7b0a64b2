import { Counter, Gauge, type Registry } from 'prom-client';
import type { RoundOutcome } from './poller.js';
import type { FanoutCounters } from './watchers.js';

/** The live price feed's metrics: live assets, subscribers, polls, ticks fanned out and drops. */
export function livePriceMetrics(registry: Registry, sizes: { assets: () => number; subscribers: () => number }) {
  new Gauge({
    name: 'gateway_live_price_assets',
    help: 'Distinct assets somebody watches live on this replica (each polled once per interval by the cluster).',
    registers: [registry],
    collect() {
      this.set(sizes.assets());
    },
  });
  new Gauge({
    name: 'gateway_live_price_subscribers',
    help: 'Live price and wallet value subscriptions open on this replica.',
    registers: [registry],
    collect() {
      this.set(sizes.subscribers());
    },
  });
  const polls = new Counter({
    name: 'gateway_live_price_polls_total',
    help: 'Live feed reads by this replica: upstream (the assets service asked), cached (a copy read moments before), failed (stale served).',
    labelNames: ['result'],
    registers: [registry],
  });
  const lastRound = new Gauge({
    name: 'gateway_live_price_round_polls',
    help: "Assets this replica read in its last polling round (its share of the cluster's polls per interval).",
    registers: [registry],
  });
  const ticks = new Counter({
    name: 'gateway_live_price_ticks_total',
    help: 'Price ticks handed to subscribers on this replica (one per asset changed per subscriber).',
    registers: [registry],
  });
  const drops = new Counter({
    name: 'gateway_live_price_subscribers_dropped_total',
    help: 'Live price subscriptions closed because they fell too far behind.',
    registers: [registry],
  });
  const fanout: FanoutCounters = { delivered: (n) => ticks.inc(n), dropped: () => drops.inc() };
  return {
    fanout,
    round(outcome: RoundOutcome, read: number) {
      polls.inc({ result: 'upstream' }, outcome.upstream);
      polls.inc({ result: 'cached' }, outcome.cached);
      polls.inc({ result: 'failed' }, outcome.failed);
      lastRound.set(read);
    },
  };
}

import { Counter, type Registry } from 'prom-client';
import type { FreshnessSource } from '../../models/index.js';

/** What a lookup needed fresh (the asset cache's `AssetNeed`). */
type Need = 'metadata' | 'price';

/**
 * `gateway_asset_lookups_total`, counted for every token of every screen (hundreds a request on the
 * markets page): one number per need and source, added to the counter when it is collected, so a
 * lookup costs an increment (no label list to join and look up per lookup).
 */
export function assetLookupCounter(registry: Registry): (need: Need, source: FreshnessSource) => void {
  const counts: Record<Need, Partial<Record<FreshnessSource, number>>> = { metadata: {}, price: {} };
  new Counter({
    name: 'gateway_asset_lookups_total',
    help: 'Asset lookups through the shared asset cache, by what they needed fresh and the metadata source served.',
    labelNames: ['need', 'source'] as const,
    registers: [registry],
    collect() {
      for (const need of ['metadata', 'price'] as const) {
        for (const [source, n] of Object.entries(counts[need])) if (n) this.inc({ need, source }, n);
        counts[need] = {};
      }
    },
  });
  return (need, source) => {
    const byNeed = counts[need];
    byNeed[source] = (byNeed[source] ?? 0) + 1;
  };
}

import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { tallyCounter, tallyHistogram } from '../src/metrics.js';

describe('a tallied counter', () => {
  it('shows every count on a scrape, by label values, and keeps adding after it', async () => {
    const registry = new Registry();
    const lookups = tallyCounter({ name: 'lookups_total', help: 'h', labelNames: ['need', 'source'] as const, registers: [registry] });
    for (let i = 0; i < 3; i++) lookups.count('price', 'CACHE');
    lookups.count('metadata', 'PRIMARY');
    const first = await registry.metrics();
    expect(first).toContain('lookups_total{need="price",source="CACHE"} 3');
    expect(first).toContain('lookups_total{need="metadata",source="PRIMARY"} 1');

    lookups.count('price', 'CACHE');
    expect(await registry.metrics()).toContain('lookups_total{need="price",source="CACHE"} 4');
    // Read through the metric itself too (as a test of another module would).
    const values = (await lookups.counter.get()).values;
    expect(values.find((v) => v.labels['source'] === 'CACHE')?.value).toBe(4);
  });
});

describe('a tallied histogram', () => {
  it("scrapes exactly as prom-client's own histogram given the same observations, text and JSON", async () => {
    const config = { name: 'call_seconds', help: 'h', labelNames: ['service', 'route'], buckets: [0.005, 0.01, 0.1, 1, 5] };
    const [own, theirs] = [new Registry(), new Registry()];
    const reference = new Histogram({ ...config, registers: [theirs] });
    const tallied = tallyHistogram({ ...config, registers: [own] });
    const observations = [
      [0.004, 'alerts', 'GET /v2/auth'],
      [0.01, 'alerts', 'GET /v2/auth'],
      [7, 'markets', 'GET /v0/markets'],
      [0.3, 'alerts', 'GET /v2/auth'],
    ] as const;
    for (const [seconds, service, route] of observations) {
      reference.observe({ service, route }, seconds);
      tallied.observe(seconds, service, route);
    }
    const text = await own.metrics();
    expect(text).toContain('call_seconds_bucket{le="0.01",service="alerts",route="GET /v2/auth"} 2');
    expect(text).toContain('call_seconds_bucket{le="+Inf",service="markets",route="GET /v0/markets"} 1');
    expect(text).toBe(await theirs.metrics());
    expect(await own.getMetricsAsJSON()).toEqual(await theirs.getMetricsAsJSON());
  });
});

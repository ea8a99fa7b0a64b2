import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { tallyCounter, tallyHistogram } from '../src/metrics.js';
import { recordCalls } from '../src/upstream/call-metrics.js';

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

describe('the upstream calls recorded by service, route and status', () => {
  it('count and observe as the label-keyed tallies do, on after a scrape and a reset', async () => {
    const registry = new Registry();
    const calls = tallyCounter({ name: 'calls_total', help: 'h', labelNames: ['service', 'route', 'status'] as const, registers: [registry] });
    const durations = tallyHistogram({ name: 'call_seconds', help: 'h', labelNames: ['service', 'route'], buckets: [0.01, 1], registers: [registry] });
    const record = recordCalls({ calls, durations });
    const info = { service: 'alerts', method: 'GET', route: 'GET /v2/auth', attempts: 1 } as const;
    record({ ...info, status: 200, durationMs: 5 });
    record({ ...info, status: 200, durationMs: 500 });
    record({ ...info, durationMs: 2_000, errorKind: 'UNAVAILABLE' });
    let text = await registry.metrics();
    expect(text).toContain('calls_total{service="alerts",route="GET /v2/auth",status="200"} 2');
    expect(text).toContain('calls_total{service="alerts",route="GET /v2/auth",status="error"} 1');
    expect(text).toContain('call_seconds_bucket{le="0.01",service="alerts",route="GET /v2/auth"} 1');
    expect(text).toContain('call_seconds_count{service="alerts",route="GET /v2/auth"} 3');

    record({ ...info, status: 200, durationMs: 5 });
    text = await registry.metrics();
    expect(text).toContain('calls_total{service="alerts",route="GET /v2/auth",status="200"} 3');
    expect(text).toContain('call_seconds_count{service="alerts",route="GET /v2/auth"} 4');

    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain('call_seconds_count');
    record({ ...info, status: 200, durationMs: 5 });
    text = await registry.metrics();
    expect(text).toContain('calls_total{service="alerts",route="GET /v2/auth",status="200"} 1');
    expect(text).toContain('call_seconds_count{service="alerts",route="GET /v2/auth"} 1');
  });
});

import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { tallyCounter } from '../src/metrics.js';

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

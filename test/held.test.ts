import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LRUCache } from 'lru-cache';
import { countedCache, heldBytes, heldLru, registerHeldGauges, setWithin } from '../src/held.js';
import { createResponseCacheStore } from '../src/response-cache/store.js';
import { createLogger } from '../src/logger.js';
import { createVerifiedCallers } from '../src/stores/verified-callers.js';
import { createPositionsStore, POSITION_BYTES } from '../src/stores/positions.js';

/** The value of `metric{structure="<structure>"}` in the registry's exposition, or undefined. */
async function scraped(registry: Registry, metric: string, structure: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${metric}{structure="${structure}"}`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('memory held beyond a request: bounded in bytes, reported on /metrics', () => {
  it('a counted cache holds at most its entries, so at most max × entryBytes, and allocates nothing for the entries it does not hold', () => {
    const cache = countedCache<string, true>({ name: 'test_counted', max: 100_000, entryBytes: 300 });
    // lru-cache sizes its index arrays by `max` when given one: this cache is not given one.
    expect(cache.max).toBe(0);
    expect(heldBytes().get('test_counted')).toEqual({ bytes: 0, maxBytes: 30_000_000 });

    const small = countedCache<string, true>({ name: 'test_small', max: 3, entryBytes: 100 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) small.set(key, true);
    expect([...small.keys()].sort()).toEqual(['c', 'd', 'e']);
    expect(heldBytes().get('test_small')).toEqual({ bytes: 300, maxBytes: 300 });
  });

  it('an LRU bounded in bytes reports what its size calculation counts, and its bound', () => {
    const cache = heldLru('test_lru', new LRUCache<string, string>({ maxSize: 100, sizeCalculation: (value) => value.length }));
    for (const key of ['a', 'b', 'c']) cache.set(key, 'x'.repeat(40));
    expect(heldBytes().get('test_lru')).toEqual({ bytes: 80, maxBytes: 100 });
  });

  it('the gauges report each structure: bytes held now and the bound', async () => {
    const registry = new Registry();
    registerHeldGauges(registry);
    const callers = createVerifiedCallers({ ttlMs: 60_000, max: 1_000 });
    callers.rememberIdentity('hash-1', { walletAddress: 'wallet-1' });
    callers.rememberIdentity('hash-2', { walletAddress: 'wallet-2' });
    const store = createResponseCacheStore({ maxBytes: 10_000, logger: createLogger({ logLevel: 'silent' }), redis: null, ownerIndexTtlMs: 1000 });
    await store.set('public.q', { data: { hello: 'world' } }, 60_000);

    // Other tests' structures in this process count too: these are at least what this test holds.
    expect(await scraped(registry, 'gateway_held_bytes', 'verified_identities')).toBeGreaterThanOrEqual(2 * 320);
    expect(await scraped(registry, 'gateway_held_max_bytes', 'verified_identities')).toBeGreaterThanOrEqual(1_000 * 320);
    expect(await scraped(registry, 'gateway_held_bytes', 'response_cache')).toBeGreaterThanOrEqual(JSON.stringify({ data: { hello: 'world' } }).length);
    expect(await scraped(registry, 'gateway_held_max_bytes', 'response_cache')).toBeGreaterThanOrEqual(10_000);
    expect(callers.identity('hash-1')).toEqual({ walletAddress: 'wallet-1' });
  });

  it('the response cache never holds more than its bound in bytes', async () => {
    const store = createResponseCacheStore({ maxBytes: 2_000, logger: createLogger({ logLevel: 'silent' }), redis: null, ownerIndexTtlMs: 1000 });
    const before = heldBytes().get('response_cache')?.bytes ?? 0;
    for (let i = 0; i < 100; i++) await store.set(`public.q${i}`, { data: { value: 'x'.repeat(100), i } }, 60_000);
    const added = (heldBytes().get('response_cache')?.bytes ?? 0) - before;
    expect(added).toBeGreaterThan(1_000);
    expect(added).toBeLessThanOrEqual(2_000);
  });

  it('shared positions: the oldest copies go once their estimated bytes pass the bound, and the gauge reports what is held', async () => {
    const calls: string[][] = [];
    const markets = {
      getPositions: ({ walletAddresses }: { walletAddresses: readonly string[] }) => {
        calls.push([...walletAddresses]);
        return Promise.resolve(walletAddresses.flatMap((owner) => Array.from({ length: 10 }, (_, i) => ({ ownerAddress: owner, positionId: `${owner}-${i}`, market: null }))));
      },
    };
    const registry = new Registry();
    registerHeldGauges(registry);
    const store = createPositionsStore({ upstream: { markets } as never, config: { positionsShareTtlMs: 60_000 }, registry: new Registry() }, { maxBytes: 3 * 10 * POSITION_BYTES });
    for (const wallet of ['w1', 'w2', 'w3', 'w4', 'w5']) {
      await store.load([wallet]);
      await new Promise((r) => setImmediate(r));
    }
    expect(calls).toEqual([['w1'], ['w2'], ['w3'], ['w4'], ['w5']]);
    expect(await scraped(registry, 'gateway_held_bytes', 'shared_positions')).toBeGreaterThanOrEqual(30 * POSITION_BYTES);
    // w5 is still held (no call); w1 was dropped for w4 and w5 (one call).
    await store.load(['w5']);
    await store.load(['w1']);
    expect(calls).toEqual([['w1'], ['w2'], ['w3'], ['w4'], ['w5'], ['w1']]);
  });
});

describe('setWithin', () => {
  it('keeps a byte-bounded cache within a count, dropping the least recently used, and replaces a held key in place', () => {
    const cache = new LRUCache<string, string>({ maxSize: 1_000, sizeCalculation: () => 1 });
    setWithin(cache, 2, 'a', '1');
    setWithin(cache, 2, 'b', '2');
    cache.get('a');
    setWithin(cache, 2, 'c', '3');
    expect([...cache.keys()].sort()).toEqual(['a', 'c']);
    setWithin(cache, 2, 'a', '4');
    expect([...cache.entries()].sort()).toEqual([['a', '4'], ['c', '3']]);
  });
});

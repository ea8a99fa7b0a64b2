import { describe, expect, test, vi } from 'vitest';
import { AssetsSource } from '../../src/sources/assets.js';
import { CallBudget } from '../../src/operation/index.js';
import { SOL, ASSET_ROUTE, ASSET, PRICED, METADATA, calls, sources, worldIds, gateway, simulator, fakeClock, tokenRecord, closeAfterEachTest } from '../helpers/asset-cache.js';

closeAfterEachTest();

describe('metadataSource and the call budget', () => {
  test('PRIMARY when fetched for the request, then CACHE within the price TTL with no call', async () => {
    const gw = await gateway();
    const first = await gw.execute(ASSET, { id: SOL });
    expect(first.data!['asset'].metadataSource).toBe('PRIMARY');
    const again = await gw.execute(ASSET, { id: SOL });
    expect(again.data!['asset']).toEqual({ ...first.data!['asset'], metadataSource: 'CACHE' });
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });

  test('concurrent requests for one id share one call', async () => {
    const gw = await gateway();
    gw.sim.controls.setLatency({ service: 'assets' }, { fixedMs: 100 });
    const results = await Promise.all([gw.execute(ASSET, { id: SOL }), gw.execute(ASSET, { id: SOL }), gw.execute(ASSET, { id: SOL })]);
    expect(results.map((r) => r.data!['asset'].metadataSource)).toEqual(['PRIMARY', 'PRIMARY', 'PRIMARY']);
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });

  test('a query over K assets selecting price: K calls cold, none within the price TTL, exactly K past it', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const ids = worldIds(gw, 3);
    // Each id twice: the metadata and the price of one asset cost one call, however often it appears.
    const variables = { ids: [...ids, ...ids] };

    const cold = await gw.execute(PRICED, variables);
    expect(cold.errors).toBeUndefined();
    expect(sources(cold)).toEqual(Array(6).fill('PRIMARY'));
    for (const asset of cold.data!['assets']) expect(asset.price.usd).toBeGreaterThan(0);
    expect(calls(gw)).toBe(3);

    clock.advance(999);
    const warm = await gw.execute(PRICED, variables);
    expect(warm.data!['assets']).toEqual(cold.data!['assets'].map((a: any) => ({ ...a, metadataSource: 'CACHE' })));
    expect(calls(gw)).toBe(3);

    // Past the price TTL the prices are fetched again; the metadata is still within its own TTL.
    clock.advance(2);
    const later = await gw.execute(PRICED, variables);
    expect(later.errors).toBeUndefined();
    expect(sources(later)).toEqual(Array(6).fill('CACHE'));
    expect(calls(gw)).toBe(6);
  });

  test('a metadata-only query makes no call past the price TTL until the metadata TTL ends; selecting price then costs K calls', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, metadataTtlMs: 60_000, staleWhileRevalidateMs: 0 } });
    const ids = [SOL, ...worldIds(gw, 2)];

    const cold = await gw.execute(METADATA, { ids });
    expect(sources(cold)).toEqual(['PRIMARY', 'PRIMARY', 'PRIMARY']);
    expect(calls(gw)).toBe(3);

    clock.advance(30_000);
    const cached = await gw.execute(METADATA, { ids });
    expect(cached.data!['assets']).toEqual(cold.data!['assets'].map((a: any) => ({ ...a, metadataSource: 'CACHE' })));
    // A market's or position's token is metadata too.
    expect(await new AssetsSource(gw.services).token(tokenRecord(gw, SOL))).toMatchObject({ assetId: SOL, freshness: { source: 'CACHE' } });
    expect(calls(gw)).toBe(3);

    const priced = await gw.execute(PRICED, { ids });
    expect(priced.errors).toBeUndefined();
    expect(sources(priced)).toEqual(['CACHE', 'CACHE', 'CACHE']);
    for (const asset of priced.data!['assets']) expect(asset.price.usd).toBeGreaterThan(0);
    expect(calls(gw)).toBe(6);

    // Fetching the prices refreshed the whole copies: the metadata TTL counts from then.
    clock.advance(59_999);
    await gw.execute(METADATA, { ids });
    expect(calls(gw)).toBe(6);
    clock.advance(2);
    expect(sources(await gw.execute(METADATA, { ids }))).toEqual(['PRIMARY', 'PRIMARY', 'PRIMARY']);
    expect(calls(gw)).toBe(9);
  });

  test('a lookup is judged by the TTL of what it needs: the metadata, or the price', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 10_000 } });
    const cache = gw.services.assetCache;
    expect(await cache.get(SOL, 'price')).toMatchObject({ asset: { freshness: { source: 'ORIGIN' } }, asked: true });

    clock.advance(5_000);
    gw.sim.controls.setLatency({ service: 'assets' }, { fixedMs: 150 });
    expect(await cache.get(SOL, 'metadata')).toMatchObject({ asset: { freshness: { source: 'CACHE' } }, asked: false });
    expect(calls(gw)).toBe(1);
    // Within the revalidation window: the copy at once, refreshed in the background.
    expect(await cache.get(SOL, 'price')).toMatchObject({ asset: { freshness: { source: 'STALE' } }, asked: false });
    await vi.waitFor(async () => expect(await cache.get(SOL, 'price')).toMatchObject({ asset: { freshness: { source: 'CACHE' } } }));
    expect(calls(gw)).toBe(2);

    // Past the window the lookup waits for the service.
    clock.advance(20_000);
    expect(await cache.get(SOL, 'metadata')).toMatchObject({ asset: { freshness: { source: 'CACHE' } }, asked: false });
    expect(await cache.get(SOL, 'price')).toMatchObject({ asset: { freshness: { source: 'ORIGIN' } }, asked: true });
    expect(calls(gw)).toBe(3);
  });

  test('the price is looked up once per loaded asset: again only when the asset is loaded again (a subscription\'s next event)', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const source = new AssetsSource(gw.services);
    const first = (await source.asset(SOL))!;
    // Fetched for this request: its price is used as is.
    expect(await source.price(first)).toBe(first);
    expect(calls(gw)).toBe(1);

    clock.advance(5_000);
    expect(await source.price(first)).toBe(first);
    expect(calls(gw)).toBe(1);

    source.startEvent();
    const reloaded = (await source.asset(SOL))!;
    expect(reloaded.freshness.source).toBe('CACHE');
    const priced = await source.price(reloaded);
    expect(priced).toMatchObject({ assetId: SOL, freshness: { source: 'ORIGIN' } });
    expect(await source.price(reloaded)).toBe(priced);
    expect(calls(gw)).toBe(2);
  });

  test('an unknown id is remembered briefly: null again without a call, then asked again', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, notFoundTtlMs: 5_000 } });
    const id = 'solana:NotAMint11111111111111111111111111111111';
    for (let i = 0; i < 2; i++) {
      const res = await gw.execute(ASSET, { id });
      expect(res.errors).toBeUndefined();
      expect(res.data!['asset']).toBeNull();
    }
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
    clock.advance(5_001);
    await gw.execute(ASSET, { id });
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(2);
  });

  test('stale-while-revalidate: the copy at once as STALE, one background refresh for all requests and both needs, then CACHE', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, metadataTtlMs: 1_000, staleWhileRevalidateMs: 10_000 } });
    const first = await gw.execute(ASSET, { id: SOL });
    expect(first.data!['asset'].metadataSource).toBe('PRIMARY');

    clock.advance(5_000);
    gw.sim.controls.setLatency({ service: 'assets' }, { fixedMs: 150 });
    const stale = await Promise.all([gw.execute(ASSET, { id: SOL }), gw.execute(ASSET, { id: SOL })]);
    for (const res of stale) expect(res.data!['asset']).toEqual({ ...first.data!['asset'], metadataSource: 'STALE' });

    await vi.waitFor(() => expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(2));
    await vi.waitFor(async () => expect((await gw.execute(ASSET, { id: SOL })).data!['asset'].metadataSource).toBe('CACHE'));
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(2);

    // Past the revalidation window the request waits for a fresh copy.
    clock.advance(20_000);
    expect((await gw.execute(ASSET, { id: SOL })).data!['asset'].metadataSource).toBe('PRIMARY');
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(3);
  });
});

describe('the call budget and the shared asset cache', () => {
  test('an operation past its budget fails alone: a request asking for the same id at once gets the asset from one call', async () => {
    const second = await simulator();
    const gw = await gateway({ config: { assetsFallbackUrl: second.urls.assets } });
    const { assetCache } = gw.services;

    // Both lookups start in the same tick: the second would join a shared call the first had started.
    const over = assetCache.get(SOL, 'metadata', { budget: new CallBudget(0) });
    const within = assetCache.get(SOL, 'metadata', { budget: new CallBudget(10) });

    await expect(over).rejects.toMatchObject({ kind: 'TOO_MANY_CALLS' });
    expect((await within).asset).toMatchObject({ assetId: SOL, freshness: { source: 'ORIGIN' } });
    expect(calls(gw)).toBe(1);
    // Past the budget is not an outage: the second assets service is not asked.
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(0);
  });
});

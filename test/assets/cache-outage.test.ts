import { describe, expect, test } from 'vitest';
import type { TestGateway, TestGatewayOptions } from '../helpers/gateway.js';
import { SOL, ASSET_ROUTE, ETH, ASSET, PRICED, calls, worldIds, gateway, simulator, fakeClock, tokenRecord, closeAfterEachTest } from '../helpers/asset-cache.js';

closeAfterEachTest();

/**
 * Each way the assets service can fail. `start` builds a gateway whose assets service `fail()` breaks.
 */
const faults: Record<string, (options: TestGatewayOptions) => Promise<{ gw: TestGateway; fail: () => Promise<void> }>> = {
  '503': async (options) => {
    const gw = await gateway(options);
    return { gw, fail: () => Promise.resolve(gw.sim.controls.setFault({ service: 'assets' }, { status: 503 })) };
  },
  timeout: async (options) => {
    const gw = await gateway({ ...options, config: { upstreamTimeoutMs: 150, assetsTimeoutMs: 150 } });
    return { gw, fail: () => Promise.resolve(gw.sim.controls.setFault({ service: 'assets' }, { hang: true })) };
  },
  'connection refused': async (options) => {
    // Its own assets service, closed to fail: its port then refuses connections.
    const assets = await simulator();
    const gw = await gateway({ ...options, upstream: { assetsUrl: assets.urls.assets } });
    return { gw, fail: () => assets.close() };
  },
};

describe.each(Object.keys(faults))('when the assets service fails (%s)', (fault) => {
  const start = faults[fault]!;

  /** SOL read with the service up, then read again 60 s later with it failing; prices live 1 s. */
  async function readThenReadFailing(assetCache: TestGatewayOptions['assetCache']) {
    const clock = fakeClock();
    const { gw, fail } = await start({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0, ...assetCache } });
    const warm = await gw.execute(ASSET, { id: SOL });
    await fail();
    clock.advance(60_000);
    return { warm, res: await gw.execute(ASSET, { id: SOL }) };
  }

  test('a warm cache serves the last good copy as STALE, price included, without an error', async () => {
    const { warm, res } = await readThenReadFailing({ metadataTtlMs: 1_000 });
    expect(warm.data!['asset'].metadataSource).toBe('PRIMARY');
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toEqual({ ...warm.data!['asset'], metadataSource: 'STALE' });
  });

  test('a price past its TTL is the last good copy\'s, without an error, while the metadata is within its TTL', async () => {
    const { warm, res } = await readThenReadFailing({});
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toEqual({ ...warm.data!['asset'], metadataSource: 'CACHE' });
  });

  test('a cold cache serves the remembered token record as FALLBACK; only price errs, with UPSTREAM_UNAVAILABLE', async () => {
    const { gw, fail } = await start({});
    const record = tokenRecord(gw, SOL);
    gw.services.assetCache.rememberTokens([record]);
    await fail();

    const res = await gw.execute(`query($id: String!) { asset(id: $id) { assetId name symbol decimals imageUrl type metadataSource price { usd } } }`, {
      id: SOL,
    });
    expect(res.data!['asset']).toEqual({
      assetId: SOL,
      name: record.name,
      symbol: record.symbol,
      decimals: record.decimals,
      imageUrl: record.icon,
      type: 'UNKNOWN',
      metadataSource: 'FALLBACK',
      price: null,
    });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({
      path: ['asset', 'price'],
      extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'assets', retryable: true },
    });
  });

  test('with nothing to fall back on, the asset is null with UPSTREAM_UNAVAILABLE and the rest of the response arrives', async () => {
    const { gw, fail } = await start({});
    const known = gw.sim.world.assets[5]!.id;
    gw.services.assetCache.rememberTokens([tokenRecord(gw, known)]);
    await fail();

    const res = await gw.execute(`query($a: String!, $b: String!) { a: asset(id: $a) { symbol } b: asset(id: $b) { symbol } }`, {
      a: ETH,
      b: known,
    });
    expect(res.data).toEqual({ a: null, b: { symbol: gw.sim.world.assets[5]!.symbol } });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['a'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'assets' } });
  });
});

describe('while the assets service fails, each id is asked once per request, for the metadata and the price together', () => {
  test('past both TTLs: the last good copies as STALE, prices included, K calls for K assets', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, metadataTtlMs: 10_000, staleWhileRevalidateMs: 0 } });
    const ids = worldIds(gw, 3);
    const warm = await gw.execute(PRICED, { ids: [...ids, ...ids] });

    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    gw.sim.controls.resetCounts();
    clock.advance(60_000);
    const res = await gw.execute(PRICED, { ids: [...ids, ...ids] });
    expect(res.errors).toBeUndefined();
    expect(res.data!['assets']).toEqual(warm.data!['assets'].map((a: any) => ({ ...a, metadataSource: 'STALE' })));
    expect(calls(gw)).toBe(3);
  });

  test('a cold cache: the token record, its price null with UPSTREAM_UNAVAILABLE, after one call', async () => {
    const gw = await gateway();
    gw.services.assetCache.rememberTokens([tokenRecord(gw, SOL)]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.data!['asset']).toMatchObject({ symbol: 'SOL', metadataSource: 'FALLBACK', price: null });
    expect(res.errors).toMatchObject([{ path: ['asset', 'price'], extensions: { code: 'UPSTREAM_UNAVAILABLE' } }]);
    expect(calls(gw)).toBe(1);
  });
});

test('with the circuit breaker open, copies are still served as STALE without calling the failing service', async () => {
  const clock = fakeClock();
  const gw = await gateway({
    // Four good calls then two failures: 33 % of the window, over the threshold.
    upstream: { breaker: { volumeThreshold: 2, errorThresholdPercentage: 30, resetTimeoutMs: 60_000 } },
    assetCache: { now: clock.now, priceTtlMs: 1_000, metadataTtlMs: 1_000, staleWhileRevalidateMs: 0 },
  });
  const ids = gw.sim.world.assets.slice(0, 4).map((a) => a.id);
  for (const id of ids) await gw.execute(ASSET, { id });

  gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
  gw.sim.controls.resetCounts();
  clock.advance(60_000);
  for (const id of ids) {
    const res = await gw.execute(ASSET, { id });
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toMatchObject({ assetId: id, metadataSource: 'STALE' });
  }
  // Two failures open the circuit: the other two lookups fail fast.
  expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(2);
});

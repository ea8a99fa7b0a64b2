import { createServer } from 'node:net';
import { afterEach, describe, expect, test, vi } from 'vitest';
import { AssetsSource } from '../../src/sources/assets.js';
import type { TokenRef } from '../../src/models/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { CallBudget } from '../../src/operation/index.js';
import { startTestGateway, type GraphQLResponse, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';

const SOL = 'solana:So11111111111111111111111111111111111111112';
const ASSET_ROUTE = 'GET /v0/assets/:id';
/** Not on Solana, so no market listing carries a token record of it. */
const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

const ASSET = `query($id: String!) { asset(id: $id) { assetId name symbol decimals imageUrl metadataSource price { usd updatedAt } } }`;
const PRICED = `query($ids: [String!]!) { assets(ids: $ids) { assetId symbol metadataSource price { usd updatedAt } } }`;
const METADATA = `query($ids: [String!]!) { assets(ids: $ids) { assetId symbol imageUrl metadataSource } }`;

const calls = (gw: TestGateway) => gw.sim.controls.count('assets', ASSET_ROUTE);
const sources = (res: GraphQLResponse) => res.data!['assets'].map((a: any) => a.metadataSource);
/** Ids of world assets other than SOL. */
const worldIds = (gw: TestGateway, n: number) =>
  gw.sim.world.assets
    .map((a) => a.id)
    .filter((id) => id !== SOL)
    .slice(0, n);

/** Everything a test started, closed after it. */
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

async function gateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const gw = await startTestGateway(options);
  open.push(gw);
  return gw;
}

async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({ seed: 42 });
  open.push(sim);
  return sim;
}

/** A fake clock for the asset cache: TTLs pass when the test says so. */
function fakeClock() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** The token record the markets service would carry for a world asset. */
function tokenRecord(gw: TestGateway, assetId: string): TokenRef {
  const asset = gw.sim.world.assetAt(assetId)!;
  return { assetId, address: asset.address!, symbol: asset.symbol, decimals: asset.decimals!, icon: asset.imageUrl, name: asset.name };
}

async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/assets`;
}

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

  test('a warm cache serves the last good copy as STALE, price included, without an error', async () => {
    const clock = fakeClock();
    const { gw, fail } = await start({ assetCache: { now: clock.now, priceTtlMs: 1_000, metadataTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const warm = await gw.execute(ASSET, { id: SOL });
    expect(warm.data!['asset'].metadataSource).toBe('PRIMARY');

    await fail();
    clock.advance(60_000);
    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toEqual({ ...warm.data!['asset'], metadataSource: 'STALE' });
  });

  test('a price past its TTL is the last good copy\'s, without an error, while the metadata is within its TTL', async () => {
    const clock = fakeClock();
    const { gw, fail } = await start({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const warm = await gw.execute(ASSET, { id: SOL });

    await fail();
    clock.advance(60_000);
    const res = await gw.execute(ASSET, { id: SOL });
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

describe('the second assets service', () => {
  async function withSecond() {
    const second = await simulator();
    // Configured as a deployment would: the upstream layer takes it from the configuration.
    const gw = await gateway({ config: { assetsFallbackUrl: second.urls.assets } });
    return { gw, second };
  }

  test('is asked before the token records when the first fails, and its answer is kept', async () => {
    const { gw, second } = await withSecond();
    gw.services.assetCache.rememberTokens([tokenRecord(gw, SOL)]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toMatchObject({ assetId: SOL, symbol: 'SOL', decimals: 9, metadataSource: 'FALLBACK' });
    expect(res.data!['asset'].price.usd).toBeGreaterThan(0);
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);

    const again = await gw.execute(ASSET, { id: SOL });
    expect(again.data!['asset']).toEqual(res.data!['asset']);
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });

  test('is not asked while the first answers', async () => {
    const { gw, second } = await withSecond();
    expect((await gw.execute(ASSET, { id: SOL })).data!['asset'].metadataSource).toBe('PRIMARY');
    expect(second.controls.count('assets')).toBe(0);
  });

  test('when it fails too, the token records answer', async () => {
    const { gw, second } = await withSecond();
    gw.services.assetCache.rememberTokens([tokenRecord(gw, SOL)]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    second.controls.setFault({ service: 'assets' }, { status: 500 });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.data!['asset']).toMatchObject({ symbol: 'SOL', metadataSource: 'FALLBACK', price: null });
    expect(res.errors?.map((e) => e.path)).toEqual([['asset', 'price']]);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });
});

describe('token(ref): the asset of a market or position token', () => {
  test('the asset when the assets service has it', async () => {
    const gw = await gateway();
    const asset = await new AssetsSource(gw.services).token(tokenRecord(gw, SOL));
    expect(asset).toMatchObject({ assetId: SOL, type: 'TOKEN', freshness: { source: 'ORIGIN' }, description: expect.any(String) });
    expect(asset!.price).not.toBeNull();
  });

  test('the record itself, price unknown but not an outage, when the service does not know the token', async () => {
    const gw = await gateway();
    const ref: TokenRef = { assetId: 'solana:NewMint1111111111111111111111111111111111', address: 'NewMint1111111111111111111111111111111111', symbol: 'NEW', decimals: 6, icon: null, name: null };
    const asset = await new AssetsSource(gw.services).token(ref);
    expect(asset).toMatchObject({ assetId: ref.assetId, symbol: 'NEW', name: 'NEW', decimals: 6, freshness: { source: 'FALLBACK' }, price: null });
    expect(asset!.priceUnavailable).toBe(false);
  });

  test('the record, remembered for later lookups by id, when the service fails', async () => {
    const gw = await gateway();
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const record = tokenRecord(gw, SOL);
    const asset = await new AssetsSource(gw.services).token(record);
    expect(asset).toMatchObject({ symbol: 'SOL', freshness: { source: 'FALLBACK' }, price: null, priceUnavailable: true });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.data!['asset']).toMatchObject({ symbol: 'SOL', metadataSource: 'FALLBACK', price: null });
  });

  test('is reached when the assets URL refuses connections from the start', async () => {
    const gw = await gateway({ upstream: { assetsUrl: await closedPortUrl() } });
    const asset = await new AssetsSource(gw.services).token(tokenRecord(gw, SOL));
    expect(asset).toMatchObject({ symbol: 'SOL', freshness: { source: 'FALLBACK' }, priceUnavailable: true });
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

describe('held assets answer at once', () => {
  test('a held token and its price come back without a promise, once per request, with no call; an unheld one waits on one call', async () => {
    const clock = fakeClock();
    const gw = await gateway({ assetCache: { now: clock.now, priceTtlMs: 1_000, staleWhileRevalidateMs: 0 } });
    const cold = new AssetsSource(gw.services);
    const pending = cold.token(tokenRecord(gw, SOL));
    expect(pending).toBeInstanceOf(Promise);
    const fetched = (await pending)!;
    expect(fetched).toMatchObject({ assetId: SOL, freshness: { source: 'ORIGIN' } });
    expect(calls(gw)).toBe(1);

    const warm = new AssetsSource(gw.services);
    const held = warm.token(tokenRecord(gw, SOL));
    expect(held).not.toBeInstanceOf(Promise);
    expect(held).toMatchObject({ assetId: SOL, freshness: { source: 'CACHE' } });
    // One answer per id and request, the same object, and its price at once within the price TTL.
    expect(warm.token(tokenRecord(gw, SOL))).toBe(held);
    const priced = warm.price(held as NonNullable<typeof fetched>);
    expect(priced).not.toBeInstanceOf(Promise);
    expect((priced as typeof fetched).price!.usd).toBeGreaterThan(0);
    expect(calls(gw)).toBe(1);

    // Past the price TTL the price waits on one call.
    clock.advance(1_001);
    const later = new AssetsSource(gw.services);
    const repriced = later.price(later.token(tokenRecord(gw, SOL)) as NonNullable<typeof fetched>);
    expect(repriced).toBeInstanceOf(Promise);
    await repriced;
    expect(calls(gw)).toBe(2);
  });
});

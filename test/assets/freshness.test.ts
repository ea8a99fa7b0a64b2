import { afterEach, describe, expect, test } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { startTestGateway, type TestGatewayOptions } from '../helpers/gateway.js';

const SOL = 'solana:So11111111111111111111111111111111111111112';
const ROUTE = 'GET /v0/assets/:id';
const FRESHNESS = 'freshness { source asOf stale }';
const ASSETS = `query ($ids: [String!]!) { assets(ids: $ids) { assetId ${FRESHNESS} price { usd ${FRESHNESS} } } }`;

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** A gateway whose asset cache runs on a clock the test moves (TTLs: price 30 s, metadata 6 h; no stale-while-revalidate). */
async function gateway(options: TestGatewayOptions = {}) {
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => void (now += ms), iso: () => new Date(now).toISOString() };
  const gw = await startTestGateway({ ...options, assetCache: { now: clock.now, staleWhileRevalidateMs: 0 } });
  open.push(gw);
  const ids = [SOL, ...gw.sim.world.assets.map((a) => a.id).filter((id) => id !== SOL && id.startsWith('solana:')).slice(0, 2)];
  return { gw, clock, ids, calls: () => gw.sim.controls.count('assets', ROUTE) };
}

/** Each asset's metadata and price freshness, in order. */
const freshness = (res: any): unknown[] => res.data.assets.flatMap((a: any) => [a.freshness, a.price?.freshness ?? null]);
const all = (n: number, f: unknown) => Array(2 * n).fill(f);

describe('Asset.freshness and AssetPrice.freshness', () => {
  test('ORIGIN as of the call when fetched for the request, then CACHE as of that call, with no call', async () => {
    const { gw, clock, ids, calls } = await gateway();
    const fetchedAt = clock.iso();
    const cold: any = await gw.execute(ASSETS, { ids: [...ids, ids[0]] });
    expect(cold.errors).toBeUndefined();
    expect(freshness(cold)).toEqual(all(4, { source: 'ORIGIN', asOf: fetchedAt, stale: false }));
    expect(calls()).toBe(3);

    clock.advance(10_000);
    const warm: any = await gw.execute(ASSETS, { ids });
    expect(freshness(warm)).toEqual(all(3, { source: 'CACHE', asOf: fetchedAt, stale: false }));
    expect(calls()).toBe(3);
  });

  test('past the TTL with the assets service down: STALE, flagged, as of the last good call', async () => {
    const { gw, clock, ids, calls } = await gateway();
    const fetchedAt = clock.iso();
    await gw.execute(ASSETS, { ids });
    clock.advance(7 * 60 * 60_000); // past both TTLs
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const res: any = await gw.execute(ASSETS, { ids });
    expect(res.errors).toBeUndefined();
    expect(freshness(res)).toEqual(all(3, { source: 'STALE', asOf: fetchedAt, stale: true }));
    expect(calls()).toBe(6);
  });

  test('FALLBACK from the token records, as of when the record was seen', async () => {
    const { gw, clock } = await gateway();
    const sol = gw.sim.world.assetAt(SOL)!;
    const seenAt = clock.iso();
    gw.services.assetCache.rememberTokens([{ assetId: SOL, address: sol.address!, symbol: sol.symbol, decimals: sol.decimals!, icon: null, name: sol.name }]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const res: any = await gw.execute(`query ($id: String!) { asset(id: $id) { symbol ${FRESHNESS} } }`, { id: SOL });
    expect(res.data.asset).toEqual({ symbol: 'SOL', freshness: { source: 'FALLBACK', asOf: seenAt, stale: false } });
  });

  test('FALLBACK from the second assets service, price included, then kept', async () => {
    const second: Simulator = await startSimulator({ seed: 42 });
    open.push(second);
    const { gw, clock, calls } = await gateway({ config: { assetsFallbackUrl: second.urls.assets } });
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const fetchedAt = clock.iso();
    const res: any = await gw.execute(ASSETS, { ids: [SOL] });
    expect(freshness(res)).toEqual(all(1, { source: 'FALLBACK', asOf: fetchedAt, stale: false }));
    clock.advance(1_000);
    expect(freshness(await gw.execute(ASSETS, { ids: [SOL] }))).toEqual(all(1, { source: 'FALLBACK', asOf: fetchedAt, stale: false }));
    expect([calls(), second.controls.count('assets', ROUTE)]).toEqual([1, 1]);
  });
});

describe('Cache-Control bounds the age of cached assets', () => {
  for (const header of ['max-age=0', 'no-cache']) {
    test(`${header}: one call per distinct asset, ORIGIN; with the service down, the copies flagged STALE`, async () => {
      const { gw, clock, ids, calls } = await gateway();
      const fetchedAt = clock.iso();
      await gw.execute(ASSETS, { ids });
      expect(calls()).toBe(3);

      clock.advance(1);
      const refetchedAt = clock.iso();
      const res: any = await gw.execute(ASSETS, { ids: [...ids, ...ids] }, { 'cache-control': header });
      expect(res.errors).toBeUndefined();
      expect(freshness(res)).toEqual(all(6, { source: 'ORIGIN', asOf: refetchedAt, stale: false }));
      expect(calls()).toBe(6);

      clock.advance(1);
      gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
      const down: any = await gw.execute(ASSETS, { ids }, { 'cache-control': header });
      expect(down.errors).toBeUndefined();
      expect(freshness(down)).toEqual(all(3, { source: 'STALE', asOf: refetchedAt, stale: true }));
      expect(calls()).toBe(9);
      expect(fetchedAt).not.toBe(refetchedAt);
    });
  }

  test('max-age=N refetches only the copies older than N seconds', async () => {
    const { gw, clock, ids, calls } = await gateway();
    const [old, young] = ids as [string, string];
    await gw.execute(ASSETS, { ids: [old] });
    clock.advance(10_000);
    const youngAt = clock.iso();
    await gw.execute(ASSETS, { ids: [young] });
    clock.advance(5_000);
    const res: any = await gw.execute(ASSETS, { ids: [old, young] }, { 'cache-control': 'max-age=8' });
    expect(res.data.assets.map((a: any) => a.freshness)).toEqual([
      { source: 'ORIGIN', asOf: clock.iso(), stale: false },
      { source: 'CACHE', asOf: youngAt, stale: false },
    ]);
    expect(calls()).toBe(3);
  });

  test('max-age=3600 within the TTLs makes no call', async () => {
    const { gw, clock, ids, calls } = await gateway();
    const fetchedAt = clock.iso();
    await gw.execute(ASSETS, { ids });
    clock.advance(20_000);
    const res: any = await gw.execute(ASSETS, { ids }, { 'cache-control': 'max-age=3600' });
    expect(freshness(res)).toEqual(all(3, { source: 'CACHE', asOf: fetchedAt, stale: false }));
    expect(calls()).toBe(3);
  });
});

describe('Asset.metadataSource, deprecated for Asset.freshness.source', () => {
  const BOTH = `query ($ids: [String!]!) { assets(ids: $ids) { metadataSource freshness { source } } }`;
  const pairs = (res: any) => res.data.assets.map((a: any) => [a.metadataSource, a.freshness.source]);

  test('is marked deprecated, pointing at freshness.source', async () => {
    const { gw } = await gateway();
    const res: any = await gw.execute(`{ __type(name: "Asset") { fields(includeDeprecated: true) { name isDeprecated deprecationReason } } }`);
    const field = res.data.__type.fields.find((f: any) => f.name === 'metadataSource');
    expect(field).toMatchObject({ isDeprecated: true, deprecationReason: expect.stringContaining('freshness.source') });
  });

  test('keeps answering in its own words: PRIMARY where freshness says ORIGIN, the same word otherwise', async () => {
    const { gw, clock, ids } = await gateway();
    expect(pairs(await gw.execute(BOTH, { ids }))).toEqual(Array(3).fill(['PRIMARY', 'ORIGIN']));
    clock.advance(10_000);
    expect(pairs(await gw.execute(BOTH, { ids }))).toEqual(Array(3).fill(['CACHE', 'CACHE']));
    clock.advance(7 * 60 * 60_000);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    expect(pairs(await gw.execute(BOTH, { ids }))).toEqual(Array(3).fill(['STALE', 'STALE']));
  });
});

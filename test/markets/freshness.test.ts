import { afterEach, describe, expect, test } from 'vitest';
import { INDEX_PAGE_SIZE } from '../../src/stores/market-index.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';
import { richWallet } from '../wallets/helpers.js';
import { LISTING, listingCalls, totalCalls } from './helpers.js';

const FRESHNESS = 'freshness { source asOf stale }';
const PAGE_AND_ONE = `query ($id: String!) {
  markets(first: 3) { edges { node { marketId ${FRESHNESS} } } }
  market(id: $id) { marketId ${FRESHNESS} }
}`;

/** The markets' freshness of a PAGE_AND_ONE answer, page first. */
const freshnessOf = (res: any): unknown[] => [...res.data.markets.edges.map((e: any) => e.node.freshness), res.data.market.freshness];

const open: TestGateway[] = [];
afterEach(async () => {
  while (open.length > 0) await open.pop()!.close();
});

/** A gateway whose market index runs on a clock the test moves. */
async function gateway(options: TestGatewayOptions['marketIndex'] = {}) {
  let now = Date.now();
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const gw = await startTestGateway({ marketIndex: { now: clock.now, ...options } });
  open.push(gw);
  const builtAt = gw.services.marketIndex.info().asOf!.toISOString();
  const pages = Math.ceil(gw.sim.world.markets.length / INDEX_PAGE_SIZE);
  return { gw, clock, builtAt, pages, id: gw.sim.world.markets[0]!.id };
}

const failListing = (gw: TestGateway) => gw.sim.controls.setFault({ service: 'markets', route: LISTING }, { status: 503 });

describe('Market.freshness', () => {
  test('a fresh index: CACHE as of its build, not stale, with no call', async () => {
    const { gw, clock, builtAt, id } = await gateway();
    clock.advance(30_000);
    const res: any = await gw.execute(PAGE_AND_ONE, { id });
    expect(res.errors).toBeUndefined();
    expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'CACHE', asOf: builtAt, stale: false }));
    expect(totalCalls(gw)).toBe(0);
  });

  test('past its staleness after failed refreshes: STALE, flagged, as of the last good build', async () => {
    const { gw, clock, builtAt, id } = await gateway({ staleAfterMs: 120_000 });
    failListing(gw);
    await expect(gw.services.marketIndex.refresh()).rejects.toThrow();
    clock.advance(120_001);
    const res: any = await gw.execute(PAGE_AND_ONE, { id });
    expect(res.errors).toBeUndefined();
    expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'STALE', asOf: builtAt, stale: true }));
  });

  test("a market embedded in a position: ORIGIN, as of the request's positions call", async () => {
    const { gw } = await gateway();
    const before = Date.now();
    const res: any = await gw.execute(
      `query ($address: String!) { wallet(address: $address) { positions(first: 5) { edges { node { market { marketId ${FRESHNESS} } } } } } }`,
      { address: richWallet(gw) },
    );
    const after = Date.now();
    expect(res.errors).toBeUndefined();
    const freshness = res.data.wallet.positions.edges.map((e: any) => e.node.market.freshness);
    expect(freshness.length).toBeGreaterThan(0);
    // All of them as of the one positions call this request made.
    expect(new Set(freshness.map((f: any) => f.asOf)).size).toBe(1);
    expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(1);
    for (const f of freshness) {
      expect(f).toMatchObject({ source: 'ORIGIN', stale: false });
      expect(Date.parse(f.asOf)).toBeGreaterThanOrEqual(before - 1);
      expect(Date.parse(f.asOf)).toBeLessThanOrEqual(after);
    }
    expect(listingCalls(gw)).toBe(0);
  });
});

describe('Cache-Control bounds the age of the market index', () => {
  for (const header of ['max-age=0', 'no-cache', 'max-age=10']) {
    test(`${header} on an index older than that: one re-read (one call per listing page) for the whole request, ORIGIN`, async () => {
      const { gw, clock, builtAt, pages, id } = await gateway();
      clock.advance(11_000);
      const res: any = await gw.execute(PAGE_AND_ONE, { id }, { 'cache-control': header });
      expect(res.errors).toBeUndefined();
      const asOf = gw.services.marketIndex.info().asOf!.toISOString();
      expect(asOf).not.toBe(builtAt);
      expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'ORIGIN', asOf, stale: false }));
      expect(listingCalls(gw)).toBe(pages);
      expect(totalCalls(gw)).toBe(pages);
    });
  }

  test('concurrent requests with no-cache join one re-read', async () => {
    const { gw, clock, pages, id } = await gateway();
    clock.advance(5_000);
    gw.sim.controls.setLatency({ service: 'markets' }, { fixedMs: 50 });
    const results: any[] = await Promise.all([1, 2, 3].map(() => gw.execute(PAGE_AND_ONE, { id }, { 'cache-control': 'no-cache' })));
    for (const res of results) expect(freshnessOf(res).every((f: any) => f.source === 'ORIGIN')).toBe(true);
    expect(listingCalls(gw)).toBe(pages);
  });

  test('with the markets service down: the held index, flagged STALE, after one failed call', async () => {
    const { gw, clock, builtAt, id } = await gateway();
    clock.advance(5_000);
    failListing(gw);
    const res: any = await gw.execute(PAGE_AND_ONE, { id }, { 'cache-control': 'max-age=0' });
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges).toHaveLength(3);
    expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'STALE', asOf: builtAt, stale: true }));
    expect(listingCalls(gw)).toBe(1);
  });

  test("the re-read is paid from the operation's call budget, whole: a budget too small for it gets the held index flagged STALE and no call", async () => {
    let now = Date.now();
    const gw = await startTestGateway({ config: { upstreamCallBudget: 1 }, marketIndex: { now: () => now } });
    open.push(gw);
    const builtAt = gw.services.marketIndex.info().asOf!.toISOString();
    expect(Math.ceil(gw.sim.world.markets.length / INDEX_PAGE_SIZE)).toBeGreaterThan(1);
    now += 5_000;
    const res: any = await gw.execute(PAGE_AND_ONE, { id: gw.sim.world.markets[0]!.id }, { 'cache-control': 'no-cache' });
    expect(res.errors).toBeUndefined();
    expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'STALE', asOf: builtAt, stale: true }));
    // A partial read would fail for every caller joining it: it is not started.
    expect(listingCalls(gw)).toBe(0);
  });

  test('max-age=3600 on a younger index, a malformed max-age, unknown directives: no call, CACHE', async () => {
    const { gw, clock, builtAt, id } = await gateway();
    clock.advance(60_000);
    for (const header of ['max-age=3600', 'max-age=abc', 'max-age=1e3', 'max-age=-1', 'max-stale, foo="bar"']) {
      const res: any = await gw.execute(PAGE_AND_ONE, { id }, { 'cache-control': header });
      expect(res.errors).toBeUndefined();
      expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'CACHE', asOf: builtAt, stale: false }));
    }
    expect(totalCalls(gw)).toBe(0);
  });

  test('an index younger than a second is not re-read, whatever clients ask (one listing read per second at most)', async () => {
    const { gw, clock, builtAt, id } = await gateway();
    clock.advance(999);
    const res: any = await gw.execute(PAGE_AND_ONE, { id }, { 'cache-control': 'no-cache' });
    expect(freshnessOf(res)).toEqual(Array(4).fill({ source: 'CACHE', asOf: builtAt, stale: false }));
    expect(totalCalls(gw)).toBe(0);
  });
});

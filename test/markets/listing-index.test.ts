import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { MarketStatus, MarketType } from '../../src/models/index.js';
import { INDEX_PAGE_SIZE, type ListingFilter } from '../../src/stores/market-index.js';
import { operation, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { richWallet } from '../wallets/helpers.js';
import { indexOver, listingCalls, rawListing, totalCalls, type IndexUnderTest } from './helpers.js';

const MarketsPage = operation('MarketsPage');
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** Every market id the markets service itself lists for a filter, page by page: the reference. */
async function upstreamIds(gw: TestGateway, filter: ListingFilter): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const page = await gw.services.upstream.markets.listMarkets({ ...filter, cursor, limit: 200 });
    ids.push(...page.markets.map((m) => m.marketId));
    cursor = page.cursor;
  } while (cursor !== null);
  return ids;
}

/** Every market id the index lists for a filter, `first` at a time, resuming after the last market of each page. */
async function indexIds(under: IndexUnderTest, filter: ListingFilter, first: number): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page = (await under.index.listing(filter, { after, first }))!;
    ids.push(...page.markets.map((m) => m.marketId));
    if (!page.hasNextPage) return ids;
    after = ids.at(-1)!;
  }
}

const types = (...t: MarketType[]) => t;
const statuses = (...s: MarketStatus[]) => s;

describe('markets served from the shared market index', () => {
  let gw: TestGateway;
  let under: IndexUnderTest | null = null;

  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());
  beforeEach(() => gw.sim.controls.reset());
  afterEach(() => {
    under?.index.stop();
    under = null;
  });

  const filters: [string, ListingFilter][] = [
    ['no filter (prediction markets OPEN by default)', {}],
    ['one type', { types: types('LENDING') }],
    ['types: OR within the field', { types: types('LOOP', 'PERPETUAL', 'REWARD') }],
    ['providers, one unknown', { providers: ['drift', 'kamino', 'no-such-provider'] }],
    ['an asset (token, tokenA or tokenB)', { assets: [USDC] }],
    ['types AND providers AND assets', { types: types('LENDING', 'YIELD', 'LOOP'), providers: ['kamino', 'marginfi'], assets: [USDC] }],
    ['prediction statuses', { types: types('PREDICTION'), predictionStatus: statuses('CLOSED', 'SETTLED') }],
    ['prediction statuses with no type (other kinds unaffected)', { predictionStatus: statuses('SETTLED') }],
    ['providers AND prediction statuses', { providers: ['dflow', 'kamino'], predictionStatus: statuses('OPEN', 'CLOSED', 'SETTLED') }],
  ];

  for (const [name, filter] of filters) {
    it(`answers exactly what the markets service lists, in its order: ${name}`, async () => {
      const expected = await upstreamIds(gw, filter);
      expect(expected.length).toBeGreaterThan(7); // more than one page of 7
      under = indexOver(gw);
      await under.index.start();
      gw.sim.controls.resetCounts();
      expect(await indexIds(under, filter, 7)).toEqual(expected);
      expect(await indexIds(under, filter, 200)).toEqual(expected);
      expect(totalCalls(gw)).toBe(0);
    });
  }

  it('serves a warm page of 100 markets of every kind with 0 upstream calls, flagged fresh', async () => {
    const query = `{ markets(first: 100, filter: { predictionStatus: [OPEN, CLOSED] }) { edges { node { __typename marketId productName provider { name }
      ... on LendingMarket { depositApy borrowApy limits { maxLtv } } ... on YieldMarket { depositApy } ... on LoopMarket { maxLeverage }
      ... on PerpetualMarket { liquidity { longUsd } } ... on RewardMarket { rewardApy } ... on PredictionMarket { title status } } } } }`;
    const res: any = await gw.execute(query);
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges).toHaveLength(100);
    expect(totalCalls(gw)).toBe(0);
    const page = (await gw.services.marketIndex.listing({}, { after: null, first: 1 }))!;
    expect(page.stale).toBe(false);
    expect(page.asOf).toEqual(gw.services.marketIndex.info().asOf);
  });

  it('answers market(id:) and providers with 0 upstream calls', async () => {
    const [a, b] = rawListing(gw, { types: ['loop'] });
    const res: any = await gw.execute(`query ($a: String!, $b: String!) { a: market(id: $a) { marketId provider { id name } } b: market(id: $b) { marketId } }`, {
      a: a!.id,
      b: b!.id,
    });
    expect(res.errors).toBeUndefined();
    expect([res.data.a.marketId, res.data.b.marketId]).toEqual([a!.id, b!.id]);
    const provider: any = await gw.execute(`query ($id: ID!) { node(id: $id) { ... on Provider { providerId } } }`, { id: res.data.a.provider.id });
    expect(provider.data.node.providerId).toBe(a!.provider.id);
    expect(totalCalls(gw)).toBe(0);
  });

  it("resolves positions' markets with 0 markets listing calls: 1 positions call in all", async () => {
    const res: any = await gw.execute(operation('WalletPositions'), { address: richWallet(gw), first: 50 });
    expect(res.errors).toBeUndefined();
    const markets = res.data.wallet.positions.edges.map((e: any) => e.node.market);
    expect(markets.length).toBeGreaterThan(5);
    expect(markets.every((m: any) => m === null || typeof m.marketId === 'string')).toBe(true);
    expect(listingCalls(gw)).toBe(0);
    expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(1);
  });

  it('refreshes with exactly the listing calls (every page, 200 markets each) and nothing else', async () => {
    const pages = Math.ceil(gw.sim.world.markets.length / INDEX_PAGE_SIZE);
    await gw.services.marketIndex.refresh();
    expect(listingCalls(gw)).toBe(pages);
    expect(totalCalls(gw)).toBe(pages);
  });

  it('keeps serving markets pages from the index while the markets service hangs, then flags them stale', async () => {
    let clock = Date.now();
    under = indexOver(gw, { refreshIntervalMs: 1_000, staleAfterMs: 5_000, now: () => clock });
    await under.index.start();
    const asOf = under.index.info().asOf!;
    gw.sim.controls.setFault({ service: 'markets' }, { hang: true });
    const refreshing = under.index.refresh().catch(() => undefined);
    expect(under.index.info().refreshing).toBe(true);

    const fresh = (await under.index.listing({ types: ['LENDING'] }, { after: null, first: 5 }))!;
    expect(fresh.markets.map((m) => m.marketId)).toEqual(rawListing(gw, { types: ['lending'] }).slice(0, 5).map((m) => m.id));
    expect(fresh).toMatchObject({ asOf, stale: false });

    clock += 10_000; // past staleAfterMs: still served, flagged stale
    const stale = (await under.index.listing({ types: ['LENDING'] }, { after: null, first: 5 }))!;
    expect(stale.markets).toEqual(fresh.markets);
    expect(stale).toMatchObject({ asOf, stale: true });
    expect(under.index.info()).toMatchObject({ asOf, stale: true });

    // The gateway's own index too: a page arrives while its refresh hangs.
    const gatewayRefresh = gw.services.marketIndex.refresh().catch(() => undefined);
    const res: any = await gw.execute(MarketsPage, { first: 3, filter: { types: ['LENDING'] } });
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(fresh.markets.slice(0, 3).map((m) => m.marketId));

    under.index.stop(); // aborts the hanging refresh
    await refreshing;
    gw.sim.controls.reset();
    gw.services.marketIndex.stop(); // aborts the gateway's hanging refresh ...
    await gatewayRefresh;
    await gw.services.marketIndex.start(); // ... and starts its timer again
  });
});

describe('markets cursors across a refresh of the index', () => {
  let gw: TestGateway;

  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());
  beforeEach(() => gw.sim.controls.reset());

  /** Takes a market out of the simulator's listing; returns how to put it back. */
  function unlist(id: string): () => void {
    const markets = gw.sim.world.markets;
    const at = markets.findIndex((m) => m.id === id);
    const [removed] = markets.splice(at, 1);
    return () => markets.splice(at, 0, removed!);
  }

  const filter = { types: ['LENDING'] };
  const ids = (res: any): string[] => res.data.markets.edges.map((e: any) => e.node.marketId);

  it('resumes right after its market when markets before it left the listing (an offset would skip one)', async () => {
    const first: any = await gw.execute(MarketsPage, { first: 10, filter });
    const listed = rawListing(gw, { types: ['lending'] }).map((m) => m.id);
    expect(ids(first)).toEqual(listed.slice(0, 10));

    const restore = unlist(listed[2]!);
    try {
      await gw.services.marketIndex.refresh();
      const next: any = await gw.execute(MarketsPage, { first: 5, after: first.data.markets.pageInfo.endCursor, filter });
      expect(next.errors).toBeUndefined();
      expect(ids(next)).toEqual(listed.slice(10, 15));
    } finally {
      restore();
      await gw.services.marketIndex.refresh();
    }
  });

  it('refuses, with BAD_USER_INPUT and no upstream call, a cursor whose market left the listing', async () => {
    const first: any = await gw.execute(MarketsPage, { first: 4, filter });
    const anchor = ids(first).at(-1)!;
    const restore = unlist(anchor);
    try {
      await gw.services.marketIndex.refresh();
      gw.sim.controls.resetCounts();
      const next: any = await gw.execute(MarketsPage, { first: 5, after: first.data.markets.pageInfo.endCursor, filter });
      expect(next.data.markets).toBeNull();
      expect(next.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
      expect(next.errors[0].message).toMatch(/no longer listed.*start again without `after`/);
      expect(totalCalls(gw)).toBe(0);
    } finally {
      restore();
      await gw.services.marketIndex.refresh();
    }
    // Listed again: the same cursor works again.
    const again: any = await gw.execute(MarketsPage, { first: 2, after: first.data.markets.pageInfo.endCursor, filter });
    expect(again.errors).toBeUndefined();
    expect(ids(again)).toEqual(rawListing(gw, { types: ['lending'] }).slice(4, 6).map((m) => m.id));
  });
});

import type { GraphQLObjectType } from 'graphql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { cursorKeys, deriveCursorKey } from '../../src/stores/cursor-signer.js';
import { marketTokens, type AssetView } from '../../src/models/index.js';
import { AssetsSource } from '../../src/sources/assets.js';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { listingCalls, totalCalls } from './helpers.js';

const MarketsPage = operation('MarketsPage');
const FIRST = 50;

interface Page {
  markets: {
    pageInfo: { hasNextPage: boolean; endCursor: string };
    edges: { cursor: string; node: { marketId: string; token?: { assetId: string; price: { usd: number } | null } } }[];
  };
}

/**
 * What a page of markets costs the gateway per request, counted: the work a page shares with every
 * request for it is done once per page, not once per edge and request.
 */
describe('a page of markets read again', () => {
  const gw = useTestGateway({ resetControls: true });
  afterEach(() => vi.restoreAllMocks());

  const page = async (variables: Record<string, unknown>) => {
    const res = await gw.execute<Page>(MarketsPage, variables);
    expect(res.errors).toBeUndefined();
    return res.data!.markets;
  };

  it('reads every field of a market but its tokens and id inline (no resolver to call), and answers compiled as graphql-js did', async () => {
    const { schema } = gw.app.yoga.getEnveloped({});
    const resolved = (type: string) => Object.values((schema.getType(type) as GraphQLObjectType).getFields()).filter((f) => f.resolve).map((f) => f.name);
    expect(resolved('LendingMarket').sort()).toEqual(['additionalData', 'apyHistory', 'borrowToken', 'freshness', 'id', 'token']);
    for (const type of ['LendingMarketActions', 'ApyAverages', 'MarketLimits', 'PerpetualLiquidity']) expect(resolved(type), type).toEqual([]);

    // A document of its own: its first run is graphql-js's, the next ones graphql-jit's compiled function.
    const document = MarketsPage.replace('query MarketsPage', 'query MarketsPageCompiled');
    const variables = { first: FIRST, filter: { types: ['LENDING', 'LOOP', 'PERPETUAL', 'PREDICTION'] } };
    await page(variables); // the assets held, so that every run is served the same copies
    const interpreted = await gw.execute(document, variables);
    expect(interpreted.errors).toBeUndefined();
    expect(await gw.execute(document, variables)).toEqual(interpreted);
    expect(await gw.execute(document, variables)).toEqual(interpreted);
  });

  it('signs its cursors once per page and listing held: the same page again, by any caller, signs none', async () => {
    const sign = vi.spyOn(gw.services.cursors, 'sign');
    const first = await page({ first: FIRST });
    expect(first.edges).toHaveLength(FIRST);
    expect(sign).toHaveBeenCalledTimes(FIRST);

    sign.mockClear();
    gw.sim.controls.resetCounts();
    const again = await page({ first: FIRST });
    expect(sign).toHaveBeenCalledTimes(0);
    expect(again.edges.map((e) => e.cursor)).toEqual(first.edges.map((e) => e.cursor));
    expect(again.pageInfo).toEqual(first.pageInfo);
    expect(totalCalls(gw)).toBe(0);

    // The next page: its own cursors, once; it resumes right after the first page.
    const next = await page({ first: FIRST, after: first.pageInfo.endCursor });
    expect(sign).toHaveBeenCalledTimes(next.edges.length);
    expect(next.edges[0]!.node.marketId).not.toBe(first.edges.at(-1)!.node.marketId);
    expect(listingCalls(gw)).toBe(0);
  });

  it('signs anew for another filter over the same markets, and after a refresh of the listing: the cursors stay the same strings', async () => {
    const sign = vi.spyOn(gw.services.cursors, 'sign');
    const lendingFirst = await page({ first: 5, filter: { types: ['YIELD', 'LENDING'] } });
    expect(sign).toHaveBeenCalledTimes(5);
    sign.mockClear();
    // The same markets (open prediction markets are the default), bound to another filter: other cursors.
    const named = await page({ first: 5, filter: { types: ['LENDING', 'YIELD'], predictionStatus: ['OPEN'] } });
    expect(sign).toHaveBeenCalledTimes(5);
    expect(named.edges.map((e) => e.node.marketId)).toEqual(lendingFirst.edges.map((e) => e.node.marketId));
    expect(named.edges[0]!.cursor).not.toBe(lendingFirst.edges[0]!.cursor);

    await gw.services.marketIndex.refresh();
    expect(listingCalls(gw)).toBeGreaterThan(0);
    gw.sim.controls.resetCounts();
    sign.mockClear();
    const refreshed = await page({ first: 5, filter: { types: ['LENDING', 'YIELD'] } });
    expect(sign).toHaveBeenCalledTimes(5);
    expect(refreshed.edges.map((e) => e.cursor)).toEqual(lendingFirst.edges.map((e) => e.cursor));
    expect(totalCalls(gw)).toBe(0);
  });

  it('signs with the new key once the keys change: the page held is not served with cursors of the old key', async () => {
    const before = await page({ first: 3 });
    const { cursors } = gw.services;
    cursors.setKeys({ current: deriveCursorKey('another key'), verifyOnly: [] });
    try {
      const after = await page({ first: 3 });
      expect(after.edges.map((e) => e.node.marketId)).toEqual(before.edges.map((e) => e.node.marketId));
      expect(after.edges[0]!.cursor).not.toBe(before.edges[0]!.cursor);
      // The old key's cursor is refused; the new one pages on.
      const refused = await gw.execute(MarketsPage, { first: 3, after: before.pageInfo.endCursor });
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'after' });
      expect((await page({ first: 3, after: after.pageInfo.endCursor })).edges).toHaveLength(3);
      expect(totalCalls(gw)).toBe(0);
    } finally {
      cursors.setKeys(cursorKeys(gw.config));
    }
  });

  it("looks each distinct token up once per request: its record remembered, its held copy and price found, its price's object shared", async () => {
    const warm = await page({ first: FIRST });
    const tokens = warm.edges.flatMap((e) => (e.node.token ? [e.node.token.assetId] : []));
    const distinct = new Set(tokens).size;
    // The page repeats tokens (markets of one token on several providers): the counts below tell the two apart.
    expect(distinct).toBeLessThan(tokens.length);

    const { assetCache } = gw.services;
    const remember = vi.spyOn(assetCache, 'rememberTokens');
    const held = vi.spyOn(assetCache, 'held');
    gw.sim.controls.resetCounts();
    const again = await page({ first: FIRST });
    expect(again.edges.map((e) => e.node.token?.price?.usd)).toEqual(warm.edges.map((e) => e.node.token?.price?.usd));
    expect(remember).toHaveBeenCalledTimes(distinct);
    // The metadata and the price of each, once.
    expect(held).toHaveBeenCalledTimes(2 * distinct);
    expect(totalCalls(gw)).toBe(0);

    // Two requests served the same held copy are handed the same price object.
    const [one, two] = [new AssetsSource(gw.services), new AssetsSource(gw.services)];
    const market = (await gw.services.marketIndex.markets([warm.edges[0]!.node.marketId]))[0]!;
    const ref = marketTokens(market)[0]!;
    const a = one.token(ref) as AssetView;
    const b = two.token(ref) as AssetView;
    expect(a).toBe(b);
    expect(one.priceView(a)).not.toBeNull();
    expect(one.priceView(a)).toBe(two.priceView(b));
  });
});

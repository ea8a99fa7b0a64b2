import { describe, expect, it } from 'vitest';
import { operation, useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { listingCalls, rawById, rawListing, totalCalls, type RawFilter } from './helpers.js';

const MarketsPage = operation('MarketsPage');

/** Every market of a filter, page by page through `endCursor`. */
async function pageThrough(gw: TestGateway, filter: Record<string, unknown> | undefined, first: number) {
  const ids: string[] = [];
  let after: string | null = null;
  let pages = 0;
  for (;;) {
    const res: any = await gw.execute(MarketsPage, { first, after, filter });
    expect(res.errors).toBeUndefined();
    const { edges, pageInfo } = res.data.markets;
    pages++;
    ids.push(...edges.map((e: any) => e.node.marketId));
    if (!pageInfo.hasNextPage) break;
    expect(edges).toHaveLength(first);
    expect(pageInfo.endCursor).toBe(edges.at(-1).cursor);
    after = pageInfo.endCursor;
  }
  return { ids, pages };
}

describe('markets', () => {
  const gw = useTestGateway({ resetControls: true });

  it('runs MarketsPage unchanged: the first page in upstream order, from the index (0 listing calls)', async () => {
    const res: any = await gw.execute(MarketsPage, { first: 5 });
    expect(res.errors).toBeUndefined();
    const expected = rawListing(gw).slice(0, 5);
    const edges = res.data.markets.edges;
    expect(edges.map((e: any) => e.node.marketId)).toEqual(expected.map((m) => m.id));
    const first = edges[0].node;
    const raw = rawById(gw, first.marketId);
    expect(first.__typename).toBe('LendingMarket');
    expect(first.type).toBe('LENDING');
    expect(first.provider).toMatchObject({ name: raw.provider.name, icon: raw.provider.icon });
    expect(first.token.assetId).toBe(`solana:${(raw as any).token.address}`);
    expect(res.data.markets.pageInfo.hasNextPage).toBe(true);
    expect(listingCalls(gw)).toBe(0);
  });

  it('pages through the whole default listing to the end with no duplicates (prediction markets: OPEN only)', async () => {
    const expected = rawListing(gw).map((m) => m.id);
    const { ids, pages } = await pageThrough(gw, undefined, 200);
    expect(ids).toEqual(expected);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil(expected.length / 200));
    expect(listingCalls(gw)).toBe(0);
  });

  const filters: [string, Record<string, unknown>, (gw: TestGateway) => RawFilter, number?][] = [
    ['types', { types: ['PERPETUAL', 'LOOP'] }, () => ({ types: ['perpetual', 'loop'] })],
    ['providers', { providers: ['drift', 'kamino'] }, () => ({ providers: ['drift', 'kamino'] })],
    [
      'assets',
      { assets: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] },
      () => ({ assets: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] }),
    ],
    [
      'predictionStatus',
      { types: ['PREDICTION'], predictionStatus: ['SETTLED', 'CLOSED'] },
      () => ({ types: ['prediction'], statuses: ['closed', 'settled'] }),
    ],
    [
      'every field at once (AND across fields, OR within)',
      { types: ['LENDING', 'YIELD'], providers: ['kamino', 'marginfi'], assets: ['solana:EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] },
      () => ({ types: ['lending', 'yield'], providers: ['kamino', 'marginfi'], assets: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'] }),
      2,
    ],
  ];

  for (const [name, filter, raw, first = 7] of filters) {
    it(`filters by ${name}, paging to the end without duplicates`, async () => {
      const expected = rawListing(gw, raw(gw)).map((m) => m.id);
      expect(expected.length).toBeGreaterThan(first);
      const { ids, pages } = await pageThrough(gw, filter, first);
      expect(ids).toEqual(expected);
      expect(new Set(ids).size).toBe(ids.length);
      expect(pages).toBe(Math.ceil(expected.length / first));
      expect(listingCalls(gw)).toBe(0);
    });
  }

  const Counted = /* GraphQL */ `
    query Counted($first: Int, $after: String, $filter: MarketFilter) {
      markets(first: $first, after: $after, filter: $filter) {
        totalCount
        edges { node { marketId } }
        pageInfo { hasNextPage endCursor }
      }
    }
  `;

  it.each([['no filter (the default listing)', undefined, () => ({})] as const, ...filters.map(([name, filter, raw]) => [name, filter, raw] as const)])(
    'counts the markets a filter matches in totalCount, on every page, with no upstream call: %s',
    async (_name, filter, raw) => {
      const expected = rawListing(gw, raw(gw)).length;
      expect(expected).toBeGreaterThan(3);
      gw.sim.controls.resetCounts();
      const page: any = await gw.execute(Counted, { first: 3, filter });
      expect(page.errors).toBeUndefined();
      expect(page.data.markets.totalCount).toBe(expected);
      expect(page.data.markets.edges).toHaveLength(3);
      const next: any = await gw.execute(Counted, { first: 3, after: page.data.markets.pageInfo.endCursor, filter });
      expect(next.data.markets.totalCount).toBe(expected);
      // Counted from the index the page came from: the same calls as a page without the count, none.
      expect(totalCalls(gw)).toBe(0);
    },
  );

  it('lists the prediction statuses asked for, and status is the prediction status', async () => {
    const res: any = await gw.execute(MarketsPage, { first: 200, filter: { types: ['PREDICTION'], predictionStatus: ['SETTLED'] } });
    expect(res.errors).toBeUndefined();
    const nodes = res.data.markets.edges.map((e: any) => e.node);
    expect(nodes.length).toBe(rawListing(gw, { types: ['prediction'], statuses: ['settled'] }).length);
    for (const node of nodes) {
      expect(node.__typename).toBe('PredictionMarket');
      expect(node.status).toBe('SETTLED');
    }
  });

  it('resumes after a mid-page edge cursor right after that edge', async () => {
    const filter = { types: ['LENDING'] };
    const reference: any = await gw.execute(MarketsPage, { first: 15, filter });
    const all = reference.data.markets.edges.map((e: any) => e.node.marketId);

    const page: any = await gw.execute(MarketsPage, { first: 10, filter });
    const middle = page.data.markets.edges[4].cursor;
    gw.sim.controls.resetCounts();
    const resumed: any = await gw.execute(MarketsPage, { first: 10, after: middle, filter });
    expect(resumed.errors).toBeUndefined();
    expect(resumed.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(all.slice(5, 15));
    expect(listingCalls(gw)).toBe(0);

    // And the end cursor of that page continues where it ended.
    const next: any = await gw.execute(MarketsPage, { first: 3, after: resumed.data.markets.pageInfo.endCursor, filter });
    const expected = rawListing(gw, { types: ['lending'] }).slice(15, 18).map((m) => m.id);
    expect(next.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(expected);
  });

  it('after a mid-page cursor with a large `first`, returns a full page and then continues', async () => {
    const expected = rawListing(gw).map((m) => m.id);
    const page: any = await gw.execute(MarketsPage, { first: 200 });
    const cursor = page.data.markets.edges[149].cursor;
    gw.sim.controls.resetCounts();
    const rest: any = await gw.execute(MarketsPage, { first: 200, after: cursor });
    expect(rest.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(expected.slice(150, 350));
    expect(rest.data.markets.pageInfo.hasNextPage).toBe(true);
    const next: any = await gw.execute(MarketsPage, { first: 5, after: rest.data.markets.pageInfo.endCursor });
    expect(next.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(expected.slice(350, 355));
    expect(listingCalls(gw)).toBe(0);
  });
});

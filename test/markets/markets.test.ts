import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operation, startTestGateway, useTestGateway, type TestGateway } from '../helpers/gateway.js';
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

  it('reaches every kind of market with its own fields', async () => {
    const query = /* GraphQL */ `
      query Kinds($filter: MarketFilter) {
        markets(first: 8, filter: $filter) {
          edges {
            node {
              __typename
              marketId
              type
              status
              additionalData
              provider { providerId name icon }
              ... on YieldMarket {
                depositApy baseDepositApy totalDeposit totalDepositUsd
                apyAverages { deposit30d deposit90d deposit180d borrow30d }
                rewards { side apy token { assetId } }
                actions { deposit withdraw claimRewards }
                token { assetId symbol }
              }
              ... on LendingMarket {
                depositApy baseDepositApy borrowApy baseBorrowApy totalDeposit totalDepositUsd totalBorrow totalBorrowUsd
                apyAverages { deposit30d deposit90d deposit180d borrow30d borrow90d borrow180d }
                limits { maxDeposit maxBorrow maxLtv liquidationLtv liquidationPenalty }
                rewards { side apy token { assetId } }
                actions { deposit withdraw borrow repay repayWithCollateral claimRewards }
                token { assetId } borrowToken { assetId }
              }
              ... on LoopMarket {
                depositApy maxLeverage apyAverages { deposit30d } limits { maxLtv liquidationLtv maxBorrow }
                actions { setup deposit withdraw } tokenA { assetId } tokenB { assetId }
              }
              ... on PerpetualMarket {
                maxLeverage liquidity { longUsd shortUsd } actions { setup openPosition closePosition }
                tokenA { assetId } tokenB { assetId }
              }
              ... on RewardMarket { rewardApy endsAt actions { claimRewards } token { assetId } }
              ... on PredictionMarket {
                title subtitle result volume openInterest yesBid yesAsk noBid noAsk openTime closeTime expirationTime
                yesToken { assetId } noToken { assetId }
              }
            }
          }
        }
      }
    `;
    const seen = new Set<string>();
    for (const type of ['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION']) {
      const res: any = await gw.execute(query, { filter: { types: [type], predictionStatus: ['OPEN', 'CLOSED', 'SETTLED'] } });
      expect(res.errors).toBeUndefined();
      for (const { node } of res.data.markets.edges) {
        expect(node.type).toBe(type);
        const raw: any = rawById(gw, node.marketId);
        expect(node.provider).toEqual({ providerId: raw.provider.id, name: raw.provider.name, icon: raw.provider.icon });
        seen.add(node.__typename);
        switch (node.__typename) {
          case 'YieldMarket':
            expect(node).toMatchObject({ depositApy: raw.depositApy, baseDepositApy: raw.baseDepositApy, status: null });
            expect(node.apyAverages.deposit30d).toBe(raw.baseDepositApy30d ?? null);
            expect(node.apyAverages.borrow30d).toBeNull();
            expect(node.actions.deposit).toBe(raw.actions.deposit?.blinkUrl ?? null);
            expect(node.token.assetId).toBe(`solana:${raw.token.address}`);
            expect(node.rewards).toHaveLength(raw.rewards?.length ?? 0);
            break;
          case 'LendingMarket':
            expect(node.limits).toEqual({
              maxDeposit: raw.maxDeposit ?? null,
              maxBorrow: raw.maxBorrow,
              maxLtv: raw.maxLtv ?? null,
              liquidationLtv: raw.liquidationLtv ?? null,
              liquidationPenalty: raw.liquidationPenalty ?? null,
            });
            expect(node.apyAverages.borrow180d).toBe(raw.baseBorrowApy180d ?? null);
            expect(node.actions.repayWithCollateral).toBe(raw.actions.repayWithCollateral?.blinkUrl ?? null);
            expect(node.borrowToken?.assetId ?? null).toBe(raw.borrowToken ? `solana:${raw.borrowToken.address}` : null);
            expect(node.rewards.map((r: any) => r.side)).toEqual((raw.rewards ?? []).map((r: any) => r.type.toUpperCase()));
            expect(node.additionalData).toEqual(raw.additionalData ?? null);
            break;
          case 'LoopMarket':
            expect(node).toMatchObject({ depositApy: raw.depositApy, maxLeverage: raw.maxLeverage });
            expect(node.limits).toEqual({ maxLtv: raw.maxLtv, liquidationLtv: raw.liquidationLtv, maxBorrow: null });
            expect(node.tokenB.assetId).toBe(`solana:${raw.tokenB.address}`);
            break;
          case 'PerpetualMarket':
            expect(node.liquidity).toEqual(raw.liquidity);
            expect(node.actions.openPosition).toBe(raw.actions.openPosition?.blinkUrl ?? null);
            break;
          case 'RewardMarket':
            expect(node.rewardApy).toBe(raw.rewardApy);
            expect(node.endsAt).toBe(raw.endsAt ? new Date(raw.endsAt).toISOString() : null);
            break;
          case 'PredictionMarket':
            expect(node.title).toBe(raw.title);
            expect(node.status).toBe(raw.status.toUpperCase());
            expect(node.closeTime).toBe(raw.closeTime ? new Date(raw.closeTime * 1000).toISOString() : null);
            expect(node.yesToken?.assetId ?? null).toBe(raw.yesToken ? `solana:${raw.yesToken.address}` : null);
            expect(node.yesAsk).toBe(raw.yesAsk ?? null);
            break;
        }
      }
    }
    expect([...seen].sort()).toEqual(['LendingMarket', 'LoopMarket', 'PerpetualMarket', 'PredictionMarket', 'RewardMarket', 'YieldMarket']);
  });

  it('gives a field the same type on every market kind, so one query can select it in fragments on several kinds', async () => {
    const kinds = ['YieldMarket', 'LendingMarket', 'LoopMarket', 'PerpetualMarket', 'RewardMarket', 'PredictionMarket'];
    const res: any = await gw.execute(
      `{ ${kinds.map((k) => `${k}: __type(name: "${k}") { fields { name type { ...T } } }`).join(' ')} }
       fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const typeOf = new Map<string, string>();
    for (const kind of kinds) {
      for (const field of res.data[kind].fields) {
        // Object types may differ (each kind has its own actions type); nullability, lists and leaf types may not.
        const shape = JSON.stringify(field.type, (key, value) => (key === 'name' && value?.endsWith?.('Actions') ? 'Actions' : value));
        expect(typeOf.get(field.name) ?? shape, `${kind}.${field.name}`).toBe(shape);
        typeOf.set(field.name, shape);
      }
    }
  });

  it('finds markets by id and by global id, and providers by global id; unknown ids give null', async () => {
    const lending = rawListing(gw, { types: ['lending'] })[0]!;
    const settled = rawListing(gw, { types: ['prediction'], statuses: ['settled'] })[0]!;
    const res: any = await gw.execute(
      /* GraphQL */ `
        query ($a: String!, $b: String!) {
          a: market(id: $a) { id marketId __typename provider { id providerId } }
          b: market(id: $b) { id marketId status ... on PredictionMarket { title } }
          unknown: market(id: "kamino.lend.doesNotExist") { id }
        }
      `,
      { a: lending.id, b: settled.id },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data.a).toMatchObject({ marketId: lending.id, __typename: 'LendingMarket' });
    expect(res.data.b).toMatchObject({ marketId: settled.id, status: 'SETTLED', title: (settled as any).title });
    expect(res.data.unknown).toBeNull();

    const nodes: any = await gw.execute(
      /* GraphQL */ `
        query ($market: ID!, $provider: ID!, $unknownProvider: ID!, $wrongKind: ID!) {
          market: node(id: $market) { id ... on LendingMarket { marketId depositApy } }
          provider: node(id: $provider) { id ... on Provider { providerId name icon } }
          unknownProvider: node(id: $unknownProvider) { id }
          wrongKind: node(id: $wrongKind) { id }
          both: nodes(ids: [$market, $provider]) { id }
        }
      `,
      {
        market: res.data.a.id,
        provider: res.data.a.provider.id,
        unknownProvider: Buffer.from('Provider:no-such-provider').toString('base64'),
        wrongKind: Buffer.from(`YieldMarket:${lending.id}`).toString('base64'),
      },
    );
    expect(nodes.errors).toBeUndefined();
    expect(nodes.data.market).toEqual({ id: res.data.a.id, marketId: lending.id, depositApy: (lending as any).depositApy });
    expect(nodes.data.provider).toMatchObject({ id: res.data.a.provider.id, providerId: lending.provider.id, name: lending.provider.name });
    expect(nodes.data.unknownProvider).toBeNull();
    expect(nodes.data.wrongKind).toBeNull();
    expect(nodes.data.both.map((n: any) => n.id)).toEqual([res.data.a.id, res.data.a.provider.id]);
    expect(listingCalls(gw)).toBe(0);
  });

  it('keeps serving the listing and lookups from the index while the markets service fails', async () => {
    const listing = rawListing(gw).slice(0, 3).map((m) => m.id);
    gw.sim.controls.setFault({ service: 'markets' }, { status: 503 });
    await expect(gw.services.marketIndex.refresh()).rejects.toMatchObject({ service: 'markets' });
    const res: any = await gw.execute(`query ($id: String!) { markets(first: 3) { edges { node { marketId } } } market(id: $id) { marketId } }`, {
      id: listing[0],
    });
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(listing);
    expect(res.data.market).toEqual({ marketId: listing[0] });
    expect(listingCalls(gw)).toBe(1); // the failed refresh only
  });
});

describe('markets input checks', () => {
  let gw: TestGateway;
  let lendingCursor: string;
  const someId = () => rawListing(gw)[0]!.id;

  beforeAll(async () => {
    gw = await startTestGateway();
    const res: any = await gw.execute(MarketsPage, { first: 2, filter: { types: ['LENDING'] } });
    lendingCursor = res.data.markets.pageInfo.endCursor;
  });
  afterAll(() => gw.close());
  beforeEach(() => gw.sim.controls.reset());

  const refused = async (query: string, variables: Record<string, unknown>, says: RegExp) => {
    const res: any = await gw.execute(query, variables);
    expect(res.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    expect(res.errors[0].message).toMatch(says);
    expect(totalCalls(gw)).toBe(0);
    return res;
  };

  it('refuses first above 200 or below 1', async () => {
    await refused(MarketsPage, { first: 201 }, /between 1 and 200/);
    await refused(MarketsPage, { first: 0 }, /between 1 and 200/);
    await refused(MarketsPage, { first: -5 }, /between 1 and 200/);
  });

  it('refuses provider ids and asset addresses that are not well formed, and over-long lists', async () => {
    await refused(MarketsPage, { filter: { providers: ['Kamino'] } }, /provider id/);
    await refused(MarketsPage, { filter: { providers: ['kamino,drift'] } }, /provider id/);
    await refused(MarketsPage, { filter: { providers: ['a'.repeat(65)] } }, /provider id/);
    await refused(MarketsPage, { filter: { assets: ['not-an-address'] } }, /Solana token address/);
    await refused(MarketsPage, { filter: { assets: ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v&x=1'] } }, /Solana token address/);
    await refused(MarketsPage, { filter: { assets: ['ethereum:0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'] } }, /Solana token address/);
    await refused(MarketsPage, { filter: { providers: Array.from({ length: 51 }, (_, i) => `p${i}`) } }, /at most 50/);
  });

  it('refuses a cursor reused with another filter, and a cursor it did not issue', async () => {
    await refused(MarketsPage, { first: 2, after: lendingCursor, filter: { types: ['YIELD'] } }, /different `filter`/);
    await refused(MarketsPage, { first: 2, after: lendingCursor }, /different `filter`/);
    await refused(MarketsPage, { first: 2, after: 'bm90LWEtY3Vyc29y' }, /not a cursor/);
    const forged = Buffer.from(JSON.stringify({ v: 1, c: 'x y', o: 0, f: 'abc' })).toString('base64url');
    await refused(MarketsPage, { first: 2, after: forged }, /not a cursor/);

    // The same cursor with its own filter works.
    const ok: any = await gw.execute(MarketsPage, { first: 2, after: lendingCursor, filter: { types: ['LENDING'] } });
    expect(ok.errors).toBeUndefined();
    expect(ok.data.markets.edges).toHaveLength(2);
  });

  it('refuses apyHistory resolutions other than ONE_HOUR and ONE_DAY, and a window that ends before it starts', async () => {
    const query = `query ($id: String!, $r: Resolution, $from: DateTime!, $to: DateTime) {
      market(id: $id) { marketId apyHistory(from: $from, to: $to, resolution: $r) { timestamp } }
    }`;
    const res = await refused(query, { id: someId(), r: 'ONE_MINUTE', from: '2025-11-01T00:00:00Z' }, /ONE_HOUR, ONE_DAY/);
    expect(res.data.market.marketId).toBe(someId());
    expect(res.data.market.apyHistory).toBeNull();
    await refused(query, { id: someId(), r: 'FIVE_MINUTES', from: '2025-11-01T00:00:00Z' }, /ONE_HOUR, ONE_DAY/);
    await refused(query, { id: someId(), from: '2025-11-02T00:00:00Z', to: '2025-11-01T00:00:00Z' }, /must not be after/);
  });

  it('treats a filter as a set: order and repeats do not change the listing or invalidate its cursors', async () => {
    const a: any = await gw.execute(MarketsPage, { first: 3, filter: { types: ['YIELD', 'LENDING'], providers: ['kamino'] } });
    const b: any = await gw.execute(MarketsPage, {
      first: 3,
      after: a.data.markets.pageInfo.endCursor,
      filter: { types: ['LENDING', 'YIELD', 'LENDING'], providers: ['kamino', 'kamino'] },
    });
    expect(b.errors).toBeUndefined();
    const expected = rawListing(gw, { types: ['lending', 'yield'], providers: ['kamino'] }).slice(3, 6).map((m) => m.id);
    expect(b.data.markets.edges.map((e: any) => e.node.marketId)).toEqual(expected);
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { operation, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { rawListing, totalCalls } from './helpers.js';

const MarketsPage = operation('MarketsPage');

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

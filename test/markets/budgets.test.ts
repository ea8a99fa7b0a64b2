import { describe, expect, it } from 'vitest';
import { operation, useTestGateway } from '../helpers/gateway.js';
import { ASSET, HISTORY, listingCalls, rawListing, totalCalls } from './helpers.js';

const MarketsPage = operation('MarketsPage');

describe('upstream call budgets of the markets domain', () => {
  // These tests count upstream calls: 60 markets with a year of daily APY history each is past the
  // default MAX_QUERY_COST (test/plugins/query-cost.test.ts holds the limit's own cases).
  const gw = useTestGateway({ resetControls: true, config: { maxQueryCost: 1_000_000 } });


  // First test on this gateway: the shared asset cache is still cold.
  it('serves a page of 100 markets from the index: 0 listing calls and 1 asset call per distinct token it shows', async () => {
    const page = rawListing(gw).slice(0, 100);
    // MarketsPage selects LendingMarket.token and LoopMarket.tokenA/tokenB.
    const tokens = new Set<string>();
    for (const m of page) {
      if (m.type === 'lending') tokens.add(m.token.address);
      if (m.type === 'loop') tokens.add(m.tokenA.address).add(m.tokenB.address);
    }
    expect(tokens.size).toBe(62);

    const res: any = await gw.execute(MarketsPage, { first: 100 });
    expect(res.errors).toBeUndefined();
    expect(res.data.markets.edges).toHaveLength(100);
    expect(listingCalls(gw)).toBe(0);
    expect(gw.sim.controls.count('assets', ASSET)).toBe(tokens.size);
    expect(totalCalls(gw)).toBe(tokens.size);
    const shown = new Set(res.data.markets.edges.map((e: any) => e.node.token?.assetId).filter(Boolean));
    expect(shown).toEqual(new Set([...tokens].map((a) => `solana:${a}`)));
  });

  it('answers market(id:) for several ids from the index built at start: 0 listing calls', async () => {
    const ids = rawListing(gw, { statuses: ['open', 'closed', 'settled'] })
      .filter((_, i) => i % 97 === 0)
      .map((m) => m.id);
    expect(ids.length).toBeGreaterThanOrEqual(6);
    const query = `query { ${ids.map((id, i) => `m${i}: market(id: ${JSON.stringify(id)}) { marketId type productName provider { name } }`).join('\n')} }`;
    const res: any = await gw.execute(query);
    expect(res.errors).toBeUndefined();
    expect(ids.map((_, i) => res.data[`m${i}`].marketId)).toEqual(ids);
    expect(totalCalls(gw)).toBe(0);
  });

  it('fetches apyHistory of 60 markets with exactly 2 history calls (50 ids per call)', async () => {
    const res: any = await gw.execute(
      `query ($from: DateTime!) {
        markets(first: 60) { edges { node { marketId apyHistory(from: $from) { timestamp depositApy borrowApy totalDeposit totalDepositUsd } } } }
      }`,
      { from: '2025-11-01T00:00:00Z' },
    );
    expect(res.errors).toBeUndefined();
    const nodes = res.data.markets.edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(60);
    for (const node of nodes) {
      expect(node.apyHistory.length).toBeGreaterThan(10);
      expect(typeof node.apyHistory[0].depositApy).toBe('number');
      // Daily buckets by default.
      const [a, b] = node.apyHistory;
      expect(Date.parse(b.timestamp) - Date.parse(a.timestamp)).toBe(86_400_000);
    }
    expect(gw.sim.controls.count('markets', HISTORY)).toBe(2);
    expect(listingCalls(gw)).toBe(0);
    expect(totalCalls(gw)).toBe(2);
  });

  it('batches each (from, to, resolution) window separately', async () => {
    const res: any = await gw.execute(
      `query ($from: DateTime!, $to: DateTime!) {
        markets(first: 60) { edges { node {
          daily: apyHistory(from: $from, to: $to) { timestamp }
          hourly: apyHistory(from: $from, to: $to, resolution: ONE_HOUR) { timestamp }
        } } }
      }`,
      { from: '2025-11-01T00:00:00Z', to: '2025-11-03T00:00:00Z' },
    );
    expect(res.errors).toBeUndefined();
    const node = res.data.markets.edges[0].node;
    expect(node.daily).toHaveLength(3);
    expect(node.hourly).toHaveLength(49);
    expect(gw.sim.controls.count('markets', HISTORY)).toBe(4);
    expect(totalCalls(gw)).toBe(4);
  });

  it('nulls only apyHistory, with UPSTREAM_UNAVAILABLE, when the history call fails', async () => {
    gw.sim.controls.setFault({ service: 'markets', route: HISTORY }, { status: 503 });
    const res: any = await gw.execute(
      `query ($from: DateTime!) { markets(first: 3) { edges { node { marketId apyHistory(from: $from) { timestamp } } } } }`,
      { from: '2025-11-01T00:00:00Z' },
    );
    const nodes = res.data.markets.edges.map((e: any) => e.node);
    expect(nodes.map((n: any) => n.marketId)).toEqual(rawListing(gw).slice(0, 3).map((m) => m.id));
    expect(nodes.every((n: any) => n.apyHistory === null)).toBe(true);
    expect(res.errors).toHaveLength(3);
    expect(res.errors[0].extensions).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', upstream: 'markets' });
    expect(gw.sim.controls.count('markets', HISTORY)).toBe(1);
  });
});

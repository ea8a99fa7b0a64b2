import { describe, expect, test } from 'vitest';
import { operation, type GraphQLResponse } from '../helpers/gateway.js';
import { SOL, gw, calls, expectNear, useAssetsGateway } from '../helpers/assets-gateway.js';

useAssetsGateway();

describe('SearchAssets', () => {
  const matches = (query: string) =>
    gw.sim.world.assets
      .filter((a) => [a.symbol, a.name, ...a.tags].some((s) => s.toLowerCase().includes(query)))
      .map((a) => a.id);

  async function pageAll(query: string, first: number, types?: string[]) {
    const ids: string[] = [];
    let after: string | null = null;
    let pages = 0;
    for (;;) {
      const res: GraphQLResponse = await gw.execute(
        `query($query: String!, $first: Int, $after: String, $types: [AssetType!]) {
          searchAssets(query: $query, first: $first, after: $after, types: $types) {
            pageInfo { hasNextPage endCursor } edges { cursor node { assetId type } } } }`,
        { query, first, after, types },
      );
      expect(res.errors).toBeUndefined();
      const conn: any = res.data!['searchAssets'];
      ids.push(...conn.edges.map((e: any) => e.node.assetId));
      pages += 1;
      if (!conn.pageInfo.hasNextPage) return { ids, pages };
      after = conn.pageInfo.endCursor;
    }
  }

  test('the operation returns summaries of the matching assets, best match first', async () => {
    const res = await gw.execute(operation('SearchAssets'), { query: 'SOL', first: 5 });
    expect(res.errors).toBeUndefined();
    const edges = res.data!['searchAssets'].edges;
    expect(edges).toHaveLength(5);
    expect(edges[0].node).toMatchObject({ assetId: SOL, chain: 'solana', type: 'TOKEN', name: 'Solana', symbol: 'SOL' });
    expect(Buffer.from(edges[0].node.id, 'base64').toString()).toBe(`Asset:${SOL}`);
    expect(res.data!['searchAssets'].pageInfo.hasNextPage).toBe(true);
    // Summary fields need no asset lookups.
    expect(calls('GET /v0/search')).toBe(1);
    expect(calls('GET /v0/assets/:id')).toBe(0);
  });

  test('pages to the end without duplicates, one call per page, whatever the page size', async () => {
    const expected = matches('sol');
    const small = await pageAll('sol', 7);
    expect(small.ids).toHaveLength(expected.length);
    expect(new Set(small.ids)).toEqual(new Set(expected));
    expect(small.pages).toBe(Math.ceil(expected.length / 7));
    expect(calls('GET /v0/search')).toBe(small.pages);

    const large = await pageAll('sol', 100);
    expect(large.ids).toEqual(small.ids);
  });

  test('an edge cursor from the middle of a page continues right after that edge', async () => {
    const { ids } = await pageAll('sol', 100);
    const res = await gw.execute(`query { searchAssets(query: "sol", first: 5) { edges { cursor } } }`);
    const third = res.data!['searchAssets'].edges[2].cursor;
    const next = await gw.execute(`query($after: String) { searchAssets(query: "sol", first: 4, after: $after) { edges { node { assetId } } } }`, {
      after: third,
    });
    expect(next.data!['searchAssets'].edges.map((e: any) => e.node.assetId)).toEqual(ids.slice(3, 7));
  });

  test('types filters by asset type', async () => {
    const { ids } = await pageAll('', 100, ['STOCK']);
    const stocks = gw.sim.world.assets.filter((a) => a.type === 'stock').map((a) => a.id);
    expect(stocks.length).toBeGreaterThan(0);
    expect(new Set(ids)).toEqual(new Set(stocks));
  });

  test('fields beyond the summary are loaded for the results that ask for them', async () => {
    const res = await gw.execute(
      `query { searchAssets(query: "meme", first: 3) { edges { node { assetId decimals description price { usd } } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const nodes = res.data!['searchAssets'].edges.map((e: any) => e.node);
    expect(nodes).toHaveLength(3);
    for (const node of nodes) {
      const world = gw.sim.world.assetAt(node.assetId)!;
      expect(node).toMatchObject({ decimals: world.decimals, description: world.description ?? null });
      expectNear(node.price.usd, world.price!.usd);
    }
    expect(calls('GET /v0/assets/:id')).toBe(3);
  });
});

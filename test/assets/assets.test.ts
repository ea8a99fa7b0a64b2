import { afterAll, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { operation, startTestGateway, type GraphQLResponse, type TestGateway } from '../helpers/gateway.js';

const HOUR = 3_600_000;
const SOL = 'solana:So11111111111111111111111111111111111111112';
const UNKNOWN = 'solana:UnknownMint1111111111111111111111111111';

let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway();
});
afterAll(async () => {
  await gw.close();
});
beforeEach(() => {
  gw.sim.controls.reset();
});

const calls = (route?: string) => gw.sim.controls.count('assets', route);

/** Prices move between two reads: within 1 %. */
function expectNear(actual: number, expected: number) {
  expect(Math.abs(actual - expected) / expected).toBeLessThan(0.01);
}

describe('AssetDetail', () => {
  test('returns the asset as the assets service describes it, with its price and an hourly series', async () => {
    const from = new Date(Date.now() - 6 * HOUR);
    const res = await gw.execute(operation('AssetDetail'), { id: SOL, from: from.toISOString() });
    expect(res.errors).toBeUndefined();
    const asset = res.data!['asset'];
    const world = gw.sim.world.assetAt(SOL)!;

    expect(asset).toMatchObject({
      assetId: SOL,
      chain: 'solana',
      address: world.address,
      type: 'TOKEN',
      name: world.name,
      symbol: world.symbol,
      decimals: world.decimals,
      imageUrl: world.imageUrl,
      tags: world.tags,
      metadataSource: 'PRIMARY',
    });
    expect(Buffer.from(asset.id, 'base64').toString()).toBe(`Asset:${SOL}`);
    expectNear(asset.price.usd, world.price!.usd);
    expect(asset.price.change24h).toBeTypeOf('number');
    expect(Date.parse(asset.price.updatedAt)).not.toBeNaN();

    const points = asset.priceHistory.edges.map((e: any) => e.node);
    expect(points).toHaveLength(6);
    for (const p of points) {
      expect(Date.parse(p.timestamp) % HOUR).toBe(0);
      expect(p.priceUsd).toBeCloseTo(gw.sim.world.priceAt(SOL, Date.parse(p.timestamp))!, 3);
    }
    expect(asset.priceHistory.pageInfo.hasNextPage).toBe(false);
    expect(calls('GET /v0/assets/:id')).toBe(1);
    expect(calls('GET /v0/assets/:id/history')).toBe(1);
  });

  test('pages priceHistory to the end without gaps or duplicates, one series call per request', async () => {
    const from = new Date(Date.now() - 3 * 24 * HOUR).toISOString();
    const whole = await gw.execute(
      `query($id: String!, $from: DateTime!) { asset(id: $id) { priceHistory(from: $from) { totalCount edges { node { timestamp } } } } }`,
      { id: SOL, from },
    );
    const all = whole.data!['asset'].priceHistory.edges.map((e: any) => e.node.timestamp);
    expect(all.length).toBeGreaterThanOrEqual(72);
    expect(whole.data!['asset'].priceHistory.totalCount).toBe(all.length);

    gw.sim.controls.resetCounts();
    const seen: string[] = [];
    let after: string | null = null;
    let requests = 0;
    for (;;) {
      const res: GraphQLResponse = await gw.execute(operation('AssetDetail'), { id: SOL, from, first: 10, after });
      expect(res.errors).toBeUndefined();
      const history: any = res.data!['asset'].priceHistory;
      seen.push(...history.edges.map((e: any) => e.node.timestamp));
      requests += 1;
      if (!history.pageInfo.hasNextPage) break;
      after = history.pageInfo.endCursor;
    }
    expect(seen).toEqual(all);
    expect(new Set(seen).size).toBe(seen.length);
    expect(requests).toBe(Math.ceil(all.length / 10));
    expect(calls('GET /v0/assets/:id/history')).toBe(requests);
  });

  test('pages a range longer than one call answers: each page asks the upstream for its own steps only', async () => {
    const FIVE_MINUTES = 5 * 60_000;
    const from = new Date(Date.now() - 30 * 24 * HOUR).toISOString();
    const query = `query($id: String!, $from: DateTime!, $first: Int, $after: String, $last: Int) { asset(id: $id) {
      priceHistory(from: $from, resolution: FIVE_MINUTES, first: $first, after: $after, last: $last) {
        totalCount pageInfo { hasNextPage hasPreviousPage endCursor } edges { node { timestamp priceUsd } }
      } } }`;
    const page = async (variables: Record<string, unknown>) => {
      const res = await gw.execute(query, { id: SOL, from, ...variables });
      expect(res.errors).toBeUndefined();
      return res.data!['asset'].priceHistory;
    };
    const one = await page({ first: 4 });
    expect(one.totalCount).toBeGreaterThan(8000);
    const two = await page({ first: 4, after: one.pageInfo.endCursor });
    const stamps = [...one.edges, ...two.edges].map((e: any) => Date.parse(e.node.timestamp));
    expect(stamps[0]! - Date.parse(from)).toBeLessThan(FIVE_MINUTES);
    expect(stamps).toEqual(stamps.map((_, i) => stamps[0]! + i * FIVE_MINUTES));
    expect([one.pageInfo.hasPreviousPage, one.pageInfo.hasNextPage, two.pageInfo.hasPreviousPage]).toEqual([false, true, true]);

    // The last points of the range, up to now.
    const tail = await page({ last: 3 });
    const tailStamps = tail.edges.map((e: any) => Date.parse(e.node.timestamp));
    expect(tailStamps).toHaveLength(3);
    expect(Date.now() - tailStamps[2]!).toBeLessThan(2 * FIVE_MINUTES);
    expect([tail.pageInfo.hasPreviousPage, tail.pageInfo.hasNextPage]).toEqual([true, false]);
    expect(calls('GET /v0/assets/:id/history')).toBe(3);
    for (const { node } of [...one.edges, ...tail.edges]) {
      expect(node.priceUsd).toBeCloseTo(gw.sim.world.priceAt(SOL, Date.parse(node.timestamp))!, 3);
    }
  });

  test('the same series asked for twice in one request is fetched once', async () => {
    const res = await gw.execute(
      `query($id: String!, $from: DateTime!) { asset(id: $id) {
        a: priceHistory(from: $from, resolution: ONE_DAY) { totalCount }
        b: priceHistory(from: $from, resolution: ONE_DAY, first: 1) { edges { node { priceUsd } } }
        c: priceHistory(from: $from, resolution: FIVE_MINUTES, first: 1) { totalCount }
      } }`,
      { id: SOL, from: new Date(Date.now() - 5 * 24 * HOUR).toISOString() },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset'].a.totalCount).toBeGreaterThanOrEqual(4);
    expect(calls('GET /v0/assets/:id/history')).toBe(2);
  });

  test('an unknown id is null without an error', async () => {
    const res = await gw.execute(`query($id: String!) { asset(id: $id) { assetId } }`, { id: UNKNOWN });
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toBeNull();
  });

  test('node(id:) and nodes(ids:) resolve assets by global id', async () => {
    const asset = gw.sim.world.assets[40]!;
    const id = Buffer.from(`Asset:${asset.id}`).toString('base64');
    const unknown = Buffer.from(`Asset:${UNKNOWN}2`).toString('base64');
    const res = await gw.execute(
      `query($id: ID!, $ids: [ID!]!) { node(id: $id) { id ... on Asset { symbol } } nodes(ids: $ids) { ... on Asset { assetId } } }`,
      { id, ids: [id, unknown] },
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!['node']).toEqual({ id, symbol: asset.symbol });
    expect(res.data!['nodes']).toEqual([{ assetId: asset.id }, null]);
    expect(calls('GET /v0/assets/:id')).toBe(2);
  });
});

describe('assets(ids:)', () => {
  test('one entry per id in order; each distinct id fetched once, none again within the price TTL', async () => {
    const [a, b, c] = gw.sim.world.assets.slice(30, 33).map((x) => x.id) as [string, string, string];
    const unknown = `${UNKNOWN}3`;
    const ids = [a, b, a, unknown, c, b, a, unknown];
    const query = `query($ids: [String!]!) { assets(ids: $ids) { assetId metadataSource price { usd } } }`;

    const first = await gw.execute(query, { ids });
    expect(first.errors).toBeUndefined();
    expect(first.data!['assets'].map((x: any) => x?.assetId ?? null)).toEqual(ids.map((id) => (id === unknown ? null : id)));
    expect(calls('GET /v0/assets/:id')).toBe(4);

    gw.sim.controls.resetCounts();
    const again = await gw.execute(query, { ids });
    expect(again.data).toEqual({
      assets: first.data!['assets'].map((x: any) => x && { ...x, metadataSource: 'CACHE' }),
    });
    expect(calls()).toBe(0);
  });
});

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

describe('bad input is refused before any upstream call', () => {
  const badIds = ['solana:..', 'SOL ANA:x', 'a:b/c', `solana:${'a'.repeat(200)}`, 'solana', 'solana:', ':x', 'solana:.hidden'];

  function expectBadInput(res: Awaited<ReturnType<TestGateway['execute']>>, path: string[], allowed: RegExp) {
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]!.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(res.errors![0]!.path).toEqual(path);
    expect(res.errors![0]!.message).toMatch(allowed);
  }

  test.each(badIds)('asset(id: %j)', async (id) => {
    const res = await gw.execute(`query($id: String!) { asset(id: $id) { assetId } }`, { id });
    expectBadInput(res, ['asset'], /<chain>:<rest>/);
    expect(calls()).toBe(0);
  });

  test.each(badIds)('assets(ids: [valid, %j])', async (id) => {
    const res = await gw.execute(`query($ids: [String!]!) { assets(ids: $ids) { assetId } }`, { ids: [SOL, id] });
    expectBadInput(res, ['assets'], /<chain>:<rest>/);
    expect(calls()).toBe(0);
  });

  test('more than 100 ids', async () => {
    const ids = gw.sim.world.assets.slice(0, 101).map((a) => a.id);
    const res = await gw.execute(`query($ids: [String!]!) { assets(ids: $ids) { assetId } }`, { ids });
    expectBadInput(res, ['assets'], /at most 100/);
    expect(calls()).toBe(0);
  });

  const history = (args: string) => `query($id: String!) { asset(id: $id) { symbol priceHistory(${args}) { totalCount } } }`;
  const daysAgo = (n: number) => new Date(Date.now() - n * 24 * HOUR).toISOString();

  test.each([
    ['ONE_MINUTE resolution', `from: "${daysAgo(1)}", resolution: ONE_MINUTE`, /FIVE_MINUTES, ONE_HOUR, ONE_DAY/],
    ['too many points for the range', `from: "${daysAgo(30)}", resolution: FIVE_MINUTES`, /at most 2000/],
    ['from after to', `from: "${daysAgo(1)}", to: "${daysAgo(2)}"`, /from must be before to/],
    ['first above its maximum', `from: "${daysAgo(1)}", first: 2001`, /1 to 2000/],
    ['a cursor that is not one', `from: "${daysAgo(1)}", after: "bm90LWEtY3Vyc29y"`, /not a cursor/],
  ])('priceHistory: %s', async (_name, args, allowed) => {
    const res = await gw.execute(history(args), { id: SOL });
    expectBadInput(res, ['asset', 'priceHistory'], allowed);
    expect(res.data!['asset'].symbol).toBe('SOL');
    expect(calls('GET /v0/assets/:id/history')).toBe(0);
  });

  const search = (args: string) => `query { searchAssets(${args}) { edges { node { assetId } } } }`;

  test.each([
    ['first: 101', 'query: "sol", first: 101', /1 to 100/],
    ['first: 0', 'query: "sol", first: 0', /1 to 100/],
    ['a query over 100 characters', `query: "${'x'.repeat(101)}"`, /at most 100 characters/],
    ['types: [UNKNOWN]', 'query: "sol", types: [UNKNOWN]', /TOKEN, STOCK and RWA/],
    ['a cursor that is not one', 'query: "sol", after: "garbage"', /not a cursor/],
  ])('searchAssets: %s', async (_name, args, allowed) => {
    const res = await gw.execute(search(args));
    expectBadInput(res, ['searchAssets'], allowed);
    expect(calls()).toBe(0);
  });

  test('searchAssets: a cursor of another search', async () => {
    const res = await gw.execute(`query { searchAssets(query: "sol", first: 2) { pageInfo { endCursor } } }`);
    const after = res.data!['searchAssets'].pageInfo.endCursor;
    gw.sim.controls.resetCounts();
    const other = await gw.execute(`query($after: String) { searchAssets(query: "usd", first: 2, after: $after) { edges { cursor } } }`, { after });
    expectBadInput(other, ['searchAssets'], /another search/);
    expect(calls()).toBe(0);
  });
});

import { describe, expect, test } from 'vitest';
import { operation, type GraphQLResponse } from '../helpers/gateway.js';
import { HOUR, SOL, UNKNOWN, gw, calls, expectNear, useAssetsGateway } from '../helpers/assets-gateway.js';

useAssetsGateway();

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

import { describe, expect, test } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { HOUR, SOL, gw, calls, useAssetsGateway } from '../helpers/assets-gateway.js';

useAssetsGateway();

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

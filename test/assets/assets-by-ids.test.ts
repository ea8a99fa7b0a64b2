import { describe, expect, test } from 'vitest';
import { UNKNOWN, gw, calls, useAssetsGateway } from '../helpers/assets-gateway.js';

useAssetsGateway();

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

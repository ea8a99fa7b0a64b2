import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';

const METADATA = `query($ids: [String!]!) { assets(ids: $ids) { assetId symbol metadataSource } }`;
const PRICED = `query($ids: [String!]!) { assets(ids: $ids) { assetId price { usd } } }`;

/** `gateway_asset_lookups_total` counts each lookup once, by its need and the source that served it. */
describe('asset lookups counted', () => {
  const gw = useTestGateway();

  async function counts(): Promise<Record<string, number>> {
    const metric = gw.services.registry.getSingleMetric('gateway_asset_lookups_total')!;
    const { values } = await metric.get();
    return Object.fromEntries(values.map((v) => [`${v.labels['need']} ${v.labels['source']}`, v.value]));
  }

  it('by need and source, across collections', async () => {
    const ids = gw.sim.world.assets.slice(0, 3).map((a) => a.id);
    const before = await counts();
    const delta = async () => {
      const now = await counts();
      return Object.fromEntries(Object.entries(now).map(([k, v]) => [k, v - (before[k] ?? 0)]).filter(([, v]) => v !== 0));
    };
    expect((await gw.execute(METADATA, { ids })).errors).toBeUndefined();
    expect(await delta()).toEqual({ 'metadata ORIGIN': 3 });
    expect((await gw.execute(METADATA, { ids })).errors).toBeUndefined();
    expect(await delta()).toEqual({ 'metadata ORIGIN': 3, 'metadata CACHE': 3 });
    // The price of an asset this request was served: from the copy its view was made of, fresh for the price too.
    expect((await gw.execute(PRICED, { ids })).errors).toBeUndefined();
    expect(await delta()).toEqual({ 'metadata ORIGIN': 3, 'metadata CACHE': 6, 'price CACHE': 3 });
    expect(gw.sim.controls.count('assets')).toBe(3);
  });
});

import { describe, expect, it } from 'vitest';
import { mapAsset } from '../../src/upstream/assets/map.js';
import { mapMarkets } from '../../src/upstream/markets/map-market.js';
import { useTestGateway } from '../helpers/gateway.js';
import { fixture } from './helpers.js';

/**
 * Numbers an upstream sends as strings (README, "Upstream data"): they break the contract, so they are
 * invalid upstream data, never read as numbers and never a silent null where a value was sent.
 */
describe('numbers sent as strings', () => {
  const asset = fixture('asset.json');

  it('an asset whose price is sent with a string for its number has no price and says its price is invalid', () => {
    for (const price of [{ ...asset.price, usd: '3012.55' }, '3012.55', { usd: 3012.55 }]) {
      expect(mapAsset({ ...asset, price }), JSON.stringify(price)).toMatchObject({ symbol: 'SOL', price: null, priceInvalid: true });
    }
    // An asset without a price is not invalid data.
    for (const price of [null, undefined]) expect(mapAsset({ ...asset, price })).toMatchObject({ price: null });
    expect(mapAsset({ ...asset, price: null })).not.toHaveProperty('priceInvalid');
    expect(mapAsset(asset)).not.toHaveProperty('priceInvalid');
  });

  it('a market whose required number is a string is dropped as malformed, as before', () => {
    const [market] = fixture('markets.json').markets;
    expect(mapMarkets([{ ...market, depositApy: '0.0612' }])).toEqual([]);
    expect(mapMarkets([market])).toHaveLength(1);
  });
});

describe('an asset served with its price as a string', () => {
  const gw = useTestGateway();
  const SOL = 'solana:So11111111111111111111111111111111111111112';

  it('serves the asset and reports its price as invalid upstream data, not a price of null with no error', async () => {
    gw.sim.controls.setFault(
      { service: 'assets', route: 'GET /v0/assets/:id' },
      { transform: (body) => ({ ...(body as Record<string, any>), price: { ...(body as Record<string, any>)['price'], usd: '3012.55' } }) },
    );
    const res = await gw.execute(`query($id: String!) { asset(id: $id) { symbol price { usd } } }`, { id: SOL });
    expect(res.data).toEqual({ asset: { symbol: 'SOL', price: null } });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0]).toMatchObject({ path: ['asset', 'price'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'assets', retryable: false } });
  });
});

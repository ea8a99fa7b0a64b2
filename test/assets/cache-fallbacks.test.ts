import { describe, expect, test } from 'vitest';
import { AssetsSource } from '../../src/sources/assets.js';
import type { TokenRef } from '../../src/models/index.js';
import { SOL, ASSET_ROUTE, ASSET, gateway, simulator, tokenRecord, closedPortUrl, closeAfterEachTest } from '../helpers/asset-cache.js';

closeAfterEachTest();

describe('the second assets service', () => {
  async function withSecond() {
    const second = await simulator();
    // Configured as a deployment would: the upstream layer takes it from the configuration.
    const gw = await gateway({ config: { assetsFallbackUrl: second.urls.assets } });
    return { gw, second };
  }

  test('is asked before the token records when the first fails, and its answer is kept', async () => {
    const { gw, second } = await withSecond();
    gw.services.assetCache.rememberTokens([tokenRecord(gw, SOL)]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.errors).toBeUndefined();
    expect(res.data!['asset']).toMatchObject({ assetId: SOL, symbol: 'SOL', decimals: 9, metadataSource: 'FALLBACK' });
    expect(res.data!['asset'].price.usd).toBeGreaterThan(0);
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);

    const again = await gw.execute(ASSET, { id: SOL });
    expect(again.data!['asset']).toEqual(res.data!['asset']);
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });

  test('is not asked while the first answers', async () => {
    const { gw, second } = await withSecond();
    expect((await gw.execute(ASSET, { id: SOL })).data!['asset'].metadataSource).toBe('PRIMARY');
    expect(second.controls.count('assets')).toBe(0);
  });

  test('when it fails too, the token records answer', async () => {
    const { gw, second } = await withSecond();
    gw.services.assetCache.rememberTokens([tokenRecord(gw, SOL)]);
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    second.controls.setFault({ service: 'assets' }, { status: 500 });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.data!['asset']).toMatchObject({ symbol: 'SOL', metadataSource: 'FALLBACK', price: null });
    expect(res.errors?.map((e) => e.path)).toEqual([['asset', 'price']]);
    expect(second.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });
});

describe('token(ref): the asset of a market or position token', () => {
  test('the asset when the assets service has it', async () => {
    const gw = await gateway();
    const asset = await new AssetsSource(gw.services).token(tokenRecord(gw, SOL));
    expect(asset).toMatchObject({ assetId: SOL, type: 'TOKEN', freshness: { source: 'ORIGIN' }, description: expect.any(String) });
    expect(asset!.price).not.toBeNull();
  });

  test('the record itself, price unknown but not an outage, when the service does not know the token', async () => {
    const gw = await gateway();
    const ref: TokenRef = { assetId: 'solana:NewMint1111111111111111111111111111111111', address: 'NewMint1111111111111111111111111111111111', symbol: 'NEW', decimals: 6, icon: null, name: null };
    const asset = await new AssetsSource(gw.services).token(ref);
    expect(asset).toMatchObject({ assetId: ref.assetId, symbol: 'NEW', name: 'NEW', decimals: 6, freshness: { source: 'FALLBACK' }, price: null });
    expect(asset!.priceUnavailable).toBe(false);
  });

  test('the record, remembered for later lookups by id, when the service fails', async () => {
    const gw = await gateway();
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const record = tokenRecord(gw, SOL);
    const asset = await new AssetsSource(gw.services).token(record);
    expect(asset).toMatchObject({ symbol: 'SOL', freshness: { source: 'FALLBACK' }, price: null, priceUnavailable: true });

    const res = await gw.execute(ASSET, { id: SOL });
    expect(res.data!['asset']).toMatchObject({ symbol: 'SOL', metadataSource: 'FALLBACK', price: null });
  });

  test('is reached when the assets URL refuses connections from the start', async () => {
    const gw = await gateway({ upstream: { assetsUrl: await closedPortUrl() } });
    const asset = await new AssetsSource(gw.services).token(tokenRecord(gw, SOL));
    expect(asset).toMatchObject({ symbol: 'SOL', freshness: { source: 'FALLBACK' }, priceUnavailable: true });
  });
});

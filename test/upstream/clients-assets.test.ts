import { describe, expect, it } from 'vitest';
import { createUpstream } from '../../src/upstream/index.js';
import { fixture, ORIGIN } from './helpers.js';
import { agent, useClientsAgent, json, anyPath, upstream, call } from '../helpers/upstream-clients.js';

useClientsAgent();

describe('assets client', () => {
  const SOL = 'solana:So11111111111111111111111111111111111111112';

  it('gets an asset: the whole id is one encoded path segment; the gateway key, no caller token', async () => {
    agent.get(ORIGIN).intercept({ path: `/assets/v0/assets/${encodeURIComponent(SOL)}`, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const asset = await upstream().assets.getAsset(SOL);
    expect(asset).toMatchObject({ assetId: SOL, symbol: 'SOL' });
    expect(call().path).toBe('/assets/v0/assets/solana%3ASo11111111111111111111111111111111111111112');
    expect(call().headers['x-service-client-key']).toBe('gateway-key');
    expect(call().headers['authorization']).toBeUndefined();
  });

  it('an unknown asset is null', async () => {
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(404, { error: 'not found' }, json);
    await expect(upstream().assets.getAsset('stock:NOPE')).resolves.toBeNull();
  });

  it.each(['solana', 'Solana:abc', 'solana:../x', 'solana:a..b', 'solana:.hidden', 'solana:a/b', 'solana:a?b', 'solana:a%2Fb', ':abc', 'solana:'])(
    'refuses the invalid id %j without a call',
    async (id) => {
      const { assets } = upstream();
      await expect(assets.getAsset(id)).rejects.toMatchObject({ kind: 'BAD_REQUEST', service: 'assets' });
      await expect(assets.getPriceHistory(id, { from: '2025-10-08T00:00:00Z' })).rejects.toMatchObject({ kind: 'BAD_REQUEST' });
      expect(agent.getCallHistory()?.calls()).toHaveLength(0);
    },
  );

  it('search: q, limit, cursor and types', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/assets/v0/search?'), method: 'GET' }).reply(200, fixture('search.json'), json);
    const page = await upstream().assets.searchAssets({ query: 'usd & co', limit: 5, cursor: 'c1', types: ['TOKEN', 'STOCK', 'UNKNOWN'] });
    expect(call().query).toEqual({ q: 'usd & co', limit: '5', cursor: 'c1', type: 'token,stock' });
    expect(call().rawQuery).toContain('q=usd+%26+co');
    expect(page.results).toHaveLength(3);
    expect(page.cursor).toBeNull();
  });

  it('price history', async () => {
    agent
      .get(ORIGIN)
      .intercept({ path: (p) => p.startsWith(`/assets/v0/assets/${encodeURIComponent(SOL)}/history?`), method: 'GET' })
      .reply(200, fixture('asset-history.json'), json);
    const history = await upstream().assets.getPriceHistory(SOL, { from: new Date('2025-10-10T00:00:00.000Z'), resolution: 'FIVE_MINUTES' });
    expect(call().query).toEqual({ from: '2025-10-10T00:00:00.000Z', resolution: '5m' });
    expect(history).toEqual({
      assetId: SOL,
      resolution: '1h',
      points: [
        { timestamp: '2025-10-10T10:00:00.000Z', priceUsd: 150.1 },
        { timestamp: '2025-10-10T11:00:00.000Z', priceUsd: 151.7 },
      ],
    });
  });

  it('the fallback service is a separate client with its own base URL', async () => {
    agent.get('http://fallback.test').intercept({ path: `/v0/assets/${encodeURIComponent(SOL)}`, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const up = createUpstream({
      alertsUrl: `${ORIGIN}/alerts`,
      marketsUrl: `${ORIGIN}/markets`,
      assetsUrl: `${ORIGIN}/assets`,
      assetsFallbackUrl: 'http://fallback.test',
      serviceClientKey: 'gateway-key',
      agent,
      breaker: false,
    });
    await expect(up.assetsFallback?.getAsset(SOL)).resolves.toMatchObject({ symbol: 'SOL' });
    expect(upstream().assetsFallback).toBeNull();
    await up.close();
  });
});

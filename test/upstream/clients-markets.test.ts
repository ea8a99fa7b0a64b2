import { describe, expect, it } from 'vitest';
import { createHttpClient } from '../../src/upstream/http.js';
import { createMarketsClient } from '../../src/upstream/markets/client.js';
import { fixture, ORIGIN } from './helpers.js';
import { agent, useClientsAgent, json, anyPath, upstream, call } from '../helpers/upstream-clients.js';

useClientsAgent();

describe('markets client', () => {
  it('listing: comma lists, URL-encoded JSON filters, the gateway key and no caller token', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/markets?'), method: 'GET' }).reply(200, fixture('markets.json'), json);
    const page = await upstream().markets.listMarkets({
      types: ['LENDING', 'PREDICTION'],
      providers: ['kamino', 'dflow'],
      assets: ['So11111111111111111111111111111111111111112'],
      predictionStatus: ['OPEN', 'SETTLED'],
      cursor: 'abc',
      limit: 100,
    });
    const { path, query, rawQuery, headers } = call();
    expect(path).toBe('/markets/v0/markets');
    expect(query).toEqual({
      type: 'lending,prediction',
      provider: 'kamino,dflow',
      asset: 'So11111111111111111111111111111111111111112',
      cursor: 'abc',
      limit: '100',
      filters: '{"prediction":{"status":["open","settled"]}}',
    });
    expect(rawQuery).toContain('filters=%7B%22prediction%22');
    expect(headers['x-service-client-key']).toBe('gateway-key');
    expect(headers['authorization']).toBeUndefined();
    // The unknown type and the malformed record are left out.
    expect(page.markets.map((m) => m.type)).toEqual(['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION']);
    expect(page.cursor).toBe('eyJvZmZzZXQiOjh9');
  });

  it('listing without parameters sends no query; a null cursor ends the listing', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    await expect(upstream().markets.listMarkets()).resolves.toEqual({ markets: [], cursor: null, unreadable: 0, bytes: expect.any(Number) });
  });

  it('a listing whose markets is not a list is UNAVAILABLE', async () => {
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(200, { data: [] }, json);
    await expect(upstream().markets.listMarkets()).rejects.toMatchObject({ kind: 'UNAVAILABLE', code: 'EBADBODY' });
  });

  it('market history: ids as a comma list, times as ISO, resolution spelled upstream-style', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/markets/history?'), method: 'GET' }).reply(200, fixture('market-history.json'), json);
    const history = await upstream().markets.getMarketHistory({
      marketIds: ['a.b.c', 'd,e'],
      startTime: new Date('2025-10-08T00:00:00.000Z'),
      resolution: 'ONE_HOUR',
    });
    expect(call().query).toEqual({ marketIds: 'a.b.c,d,e', startTime: '2025-10-08T00:00:00.000Z', resolution: '1h' });
    expect(history[0]?.points).toHaveLength(2);
  });

  it('market history refuses more than 50 ids (a programming error) and calls nothing for none', async () => {
    const ids = Array.from({ length: 51 }, (_, i) => `m${i}`);
    const { markets } = upstream();
    await expect(markets.getMarketHistory({ marketIds: ids, startTime: '2025-10-08T00:00:00Z' })).rejects.toBeInstanceOf(RangeError);
    await expect(markets.getMarketHistory({ marketIds: [], startTime: '2025-10-08T00:00:00Z' })).resolves.toEqual([]);
    await expect(
      markets.getMarketHistory({ marketIds: ['a'], startTime: '2025-10-08T00:00:00Z', resolution: 'FIVE_MINUTES' }),
    ).rejects.toMatchObject({ kind: 'BAD_REQUEST' });
    expect(agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('positions: wallets as a comma list, one type, market.status, bundle ids', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/positions/owners?'), method: 'GET' }).reply(200, fixture('positions.json'), json);
    const positions = await upstream().markets.getPositions({
      walletAddresses: ['W1', 'W2'],
      type: 'LENDING',
      marketStatus: 'OPEN',
      bundleIds: ['bundle-1'],
    });
    expect(call().query).toEqual({ walletAddresses: 'W1,W2', type: 'lending', 'market.status': 'open', bundleIds: 'bundle-1' });
    expect(call().headers['x-service-client-key']).toBe('gateway-key');
    expect(positions).toHaveLength(7);
  });

  it('positions: no call for no wallets; more than 25 is a programming error', async () => {
    const { markets } = upstream();
    await expect(markets.getPositions({ walletAddresses: [] })).resolves.toEqual([]);
    await expect(markets.getPositions({ walletAddresses: Array.from({ length: 26 }, (_, i) => `W${i}`) })).rejects.toBeInstanceOf(RangeError);
    expect(agent.getCallHistory()?.calls()).toHaveLength(0);
  });

  it('position history', async () => {
    agent.get(ORIGIN).intercept({ path: (p) => p.startsWith('/markets/v0/positions/history?'), method: 'GET' }).reply(200, fixture('position-history.json'), json);
    const history = await upstream().markets.getPositionHistory({
      walletAddress: 'W1',
      startTime: '2025-10-08T00:00:00.000Z',
      endTime: '2025-10-09T00:00:00.000Z',
      positionIds: ['pos-lend-deposit', 'pos-yield'],
      resolution: 'ONE_MINUTE',
    });
    expect(call().query).toEqual({
      walletAddress: 'W1',
      startTime: '2025-10-08T00:00:00.000Z',
      endTime: '2025-10-09T00:00:00.000Z',
      positionIds: 'pos-lend-deposit,pos-yield',
      resolution: '1m',
    });
    expect(history.map((h) => h.positionId)).toEqual(['pos-lend-deposit', 'pos-yield']);
  });

  it('without a configured client key, sends none', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    const markets = createMarketsClient(createHttpClient({ service: 'markets', baseUrl: `${ORIGIN}/markets`, agent, breaker: false }));
    await markets.listMarkets();
    expect(call().headers['x-service-client-key']).toBeUndefined();
  });
});

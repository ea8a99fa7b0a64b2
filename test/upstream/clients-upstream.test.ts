import { describe, expect, it } from 'vitest';
import { createUpstream } from '../../src/upstream/index.js';
import { fixture, ORIGIN } from './helpers.js';
import { agent, useClientsAgent, json, anyPath, upstream } from '../helpers/upstream-clients.js';

useClientsAgent();

describe('createUpstream', () => {
  it('builds its own agent when none is given and closes it', async () => {
    const url = 'http://127.0.0.1:1';
    // Without breakers, whose shutdown would refuse the call before it reached the agent.
    const up = createUpstream({ alertsUrl: url, marketsUrl: url, assetsUrl: url, timeoutMs: 500, breaker: false });
    await expect(up.close()).resolves.toBeUndefined();
    // An open agent would try the port (ECONNREFUSED); a closed one refuses the call itself.
    await expect(up.markets.listMarkets()).rejects.toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_DESTROYED' });
  });

  it('leaves a given agent open on close', async () => {
    agent.get(ORIGIN).intercept({ path: '/markets/v0/markets', method: 'GET' }).reply(200, { markets: [], cursor: null }, json);
    const up = upstream();
    await up.close();
    await expect(up.markets.listMarkets()).resolves.toEqual({ markets: [], cursor: null, unreadable: 0, bytes: expect.any(Number) });
  });

  it('reports each call to onRequest with a route template, never ids or headers', async () => {
    const infos: unknown[] = [];
    agent.get(ORIGIN).intercept({ path: anyPath, method: 'GET' }).reply(200, fixture('asset.json'), json);
    const up = upstream({ onRequest: (info) => infos.push(info) });
    await up.assets.getAsset('solana:So11111111111111111111111111111111111111112');
    expect(infos).toEqual([
      expect.objectContaining({ service: 'assets', method: 'GET', route: 'GET /v0/assets/{id}', status: 200, attempts: 1 }),
    ]);
    expect(JSON.stringify(infos)).not.toMatch(/gateway-key|So111/);
    await up.close();
  });
});

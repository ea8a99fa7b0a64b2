import { describe, expect, it } from 'vitest';
import { operation } from '../helpers/gateway.js';
import { gw, SEARCH, callsSinceLast, subscriberHeaders, otherSubscriber, get, useCachedGatewayPerTest } from '../helpers/response-cache-gateway.js';

useCachedGatewayPerTest();

describe('public results', () => {
  it('are answered from the cache for every caller, whatever credentials they send', async () => {
    const first = await gw.execute(SEARCH);
    expect(first.errors).toBeUndefined();
    expect(first.data!['searchAssets'].edges).toHaveLength(5);
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });

    const other = subscriberHeaders(otherSubscriber());
    for (const headers of [{}, gw.viewerHeaders, other]) {
      const again = await gw.execute(SEARCH, {}, headers);
      expect(again).toEqual(first);
    }
    expect(callsSinceLast()).toEqual({});
  });

  it('answer a hit with the very bytes the miss that stored it was answered with', async () => {
    const query = '{ markets(first: 3) { edges { cursor node { marketId productName provider { name } } } } }';
    const miss = await get(query);
    const body = await miss.text();
    expect(JSON.parse(body).data.markets.edges).toHaveLength(3);
    callsSinceLast();
    for (let i = 0; i < 2; i++) {
      const hit = await get(query);
      expect(hit.headers.get('etag')).toBe(miss.headers.get('etag'));
      expect(await hit.text()).toBe(body);
    }
    expect(callsSinceLast()).toEqual({});
  });

  it('serve a warm markets page with no upstream call', async () => {
    const cold = await gw.execute(operation('MarketsPage'), { first: 20 });
    expect(cold.errors).toBeUndefined();
    callsSinceLast();
    const warm = await gw.execute(operation('MarketsPage'), { first: 20 });
    expect(warm).toEqual(cold);
    expect(callsSinceLast()).toEqual({});
    // Other variables are another result, not the cached one.
    const shorter = await gw.execute(operation('MarketsPage'), { first: 5 });
    expect(shorter.data!['markets'].edges).toHaveLength(5);
  });
});

describe("a request's Cache-Control", () => {
  it('max-age shorter than the cached result may be old is answered afresh; a longer one from the cache', async () => {
    await gw.execute(SEARCH);
    callsSinceLast();
    const bounded = await get(SEARCH, { 'cache-control': 'max-age=60' });
    expect(bounded.status).toBe(200);
    // Executed afresh, and the answer keeps its own cache policy (issue 33 item 5).
    expect(bounded.headers.get('cache-control')).toBe(`public, max-age=${gw.config.responseCacheTtlMs.metadata / 1000}`);
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 1 });

    const loose = await get(SEARCH, { 'cache-control': 'max-age=3600' });
    expect(loose.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
    expect(callsSinceLast()).toEqual({});
  });

  it('a document selecting freshness is never cached: each answer tells its own freshness', async () => {
    const query = '{ asset(id: "solana:So11111111111111111111111111111111111111112") { symbol freshness { source } } }';
    const first = await get(query);
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(((await first.json())).data.asset.freshness.source).toBe('ORIGIN');
    const again = await get(query);
    expect(((await again.json())).data.asset.freshness.source).toBe('CACHE');
    expect(callsSinceLast()).toEqual({ 'assets GET /v0/assets/:id': 1 });
  });
});

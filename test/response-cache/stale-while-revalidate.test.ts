import { describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { useGatewayPerTest } from '../helpers/gateway-per-test.js';

/**
 * Past its TTL and within the grace period a cached result is answered at once, stale (its `Age` says
 * how old), while one background execution refreshes it; a client's `max-age` bounds how stale.
 */
const { sim, start: startGateway } = useGatewayPerTest();
let gw: TestGateway | undefined;

const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
const SEARCH_ROUTE = 'GET /v0/search';
const TTL_MS = 400;

function start(graceMs: number) {
  return startGateway({
    config: {
      responseCache: true,
      responseCacheGraceMs: graceMs,
      responseCacheTtlMs: { markets: TTL_MS, prices: TTL_MS, metadata: TTL_MS, private: TTL_MS },
    },
  });
}

async function get(query: string, headers: Record<string, string> = {}) {
  const started = performance.now();
  const response = await gw!.app.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(query)}`, {
    headers: { accept: 'application/graphql-response+json', ...headers },
  });
  const body = await response.text();
  return { response, body, ms: performance.now() - started };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const searches = () => sim.controls.count('assets', SEARCH_ROUTE);

describe('stale-while-revalidate', () => {
  it('answers a stale entry at once with its Age and refreshes it once, however many ask meanwhile', async () => {
    gw = await start(10_000);
    const first = await get(SEARCH);
    expect(JSON.parse(first.body).data.searchAssets.edges).toHaveLength(5);
    expect(first.response.headers.get('age')).toBeNull();
    expect(searches()).toBe(1);

    await sleep(TTL_MS + 700);
    // The refresh takes 500 ms upstream; the stale answers do not wait for it.
    sim.controls.setLatency({ service: 'assets', route: SEARCH_ROUTE }, { fixedMs: 500 });
    const stale = await Promise.all(Array.from({ length: 10 }, () => get(SEARCH)));
    for (const answer of stale) {
      expect(answer.response.status).toBe(200);
      expect(answer.body).toBe(first.body);
      expect(answer.ms).toBeLessThan(250);
      expect(Number(answer.response.headers.get('age'))).toBeGreaterThanOrEqual(1);
      expect(answer.response.headers.get('cache-control')).toBe('public, max-age=0');
    }
    // One refresh, in the background.
    await expect.poll(searches, { timeout: 3_000 }).toBe(2);
    await sleep(700);
    expect(searches()).toBe(2);

    // Refreshed: a fresh hit, no upstream call.
    const fresh = await get(SEARCH);
    expect(fresh.response.headers.get('age')).toBe('0');
    expect(fresh.response.headers.get('cache-control')).toBe(`public, max-age=0`);
    expect(searches()).toBe(2);
  });

  it('is bounded by the client max-age and by the grace period', async () => {
    gw = await start(1_500);
    await get(SEARCH);
    expect(searches()).toBe(1);
    await sleep(TTL_MS + 700);

    // Older than this client accepts (max-age 1 s, not shorter than the TTL so the cache is consulted): executed.
    const bounded = await get(SEARCH, { 'cache-control': 'max-age=1' });
    expect(bounded.response.status).toBe(200);
    expect(searches()).toBe(2);
    expect(bounded.response.headers.get('age')).toBeNull();

    // Past TTL + grace: executed, not served stale.
    await sleep(TTL_MS + 1_600);
    const expired = await get(SEARCH);
    expect(expired.response.headers.get('age')).toBeNull();
    expect(searches()).toBe(3);
  });

  it('with no grace period, an expired entry is executed again', async () => {
    gw = await start(0);
    await get(SEARCH);
    await sleep(TTL_MS + 100);
    const again = await get(SEARCH);
    expect(again.response.headers.get('age')).toBeNull();
    expect(searches()).toBe(2);
  });
});

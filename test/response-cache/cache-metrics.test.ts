import { describe, expect, it } from 'vitest';
import { gw, SEARCH, useCachedGatewayPerTest } from '../helpers/response-cache-gateway.js';

useCachedGatewayPerTest();

describe('metrics', () => {
  it('count hits, misses and requests the cache does not serve', async () => {
    await gw.execute(SEARCH);
    await gw.execute(SEARCH);
    await gw.execute(SEARCH);
    await gw.execute('mutation { markNotificationsRead { userErrors { code } } }', {}, gw.viewerHeaders);
    const metrics = await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="miss"} 1');
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="hit"} 2');
    expect(metrics).toContain('gateway_response_cache_requests_total{outcome="bypass"} 1');
  });
});

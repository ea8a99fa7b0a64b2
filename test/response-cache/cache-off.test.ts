import { describe, expect, it } from 'vitest';
import { startTestGateway } from '../helpers/gateway.js';
import { gw, SEARCH, callsSinceLast, useCachedGatewayPerTest } from '../helpers/response-cache-gateway.js';

useCachedGatewayPerTest();

describe('RESPONSE_CACHE=off', () => {
  it('answers every query from the upstreams, with no ETag', async () => {
    const off = await startTestGateway({ sim: gw.sim });
    try {
      for (let i = 0; i < 2; i++) {
        const response = await off.app.yoga.fetch(`http://gateway.test/graphql?query=${encodeURIComponent(SEARCH)}`);
        expect(response.status).toBe(200);
        expect(response.headers.get('etag')).toBeNull();
      }
      expect(callsSinceLast()).toEqual({ 'assets GET /v0/search': 2 });
    } finally {
      await off.close();
    }
  });
});

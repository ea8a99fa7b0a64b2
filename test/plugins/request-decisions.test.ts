import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';

/** The request headers that decide how an answer is made are read once per request (issue 32). */
describe('request decisions', () => {
  const gw = useTestGateway({ config: { responseCache: true, debugLedger: true } });
  const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId } } } }';

  /** A GET whose header reads are counted, by name. */
  async function countedReads(headers: Record<string, string>): Promise<Map<string, number>> {
    const request = new Request(`http://gateway.test/graphql?query=${encodeURIComponent(SEARCH)}`, { headers: { accept: 'application/graphql-response+json', ...headers } });
    const reads = new Map<string, number>();
    const get = request.headers.get.bind(request.headers);
    request.headers.get = (name: string) => {
      reads.set(name.toLowerCase(), (reads.get(name.toLowerCase()) ?? 0) + 1);
      return get(name);
    };
    const response = await gw.app.yoga.fetch(request);
    expect(response.status).toBe(200);
    await response.text();
    return reads;
  }

  it('reads Cache-Control and X-Gateway-Debug once, on a miss and on a hit', async () => {
    for (let i = 0; i < 2; i++) {
      const reads = await countedReads({ 'cache-control': 'max-age=600', 'x-gateway-debug': '0' });
      expect(reads.get('cache-control')).toBe(1);
      expect(reads.get('x-gateway-debug')).toBe(1);
    }
  });

  it('reads them once for a request that gets its own answer (the ledger)', async () => {
    const reads = await countedReads({ 'cache-control': 'no-cache', 'x-gateway-debug': '1' });
    expect(reads.get('cache-control')).toBe(1);
    expect(reads.get('x-gateway-debug')).toBe(1);
  });

  it('reads every header a decision depends on once: the caller, its id, its deadline, Cache-Control, the ledger', async () => {
    const headers = {
      authorization: 'Bearer someone',
      'x-service-client-key': 'client',
      'x-service-api-key': 'app',
      'x-request-id': 'counted-1',
      'x-request-timeout-ms': '5000',
      'cache-control': 'max-age=60',
      'x-gateway-debug': '0',
    };
    for (let i = 0; i < 2; i++) {
      const reads = await countedReads(headers);
      for (const name of Object.keys(headers)) expect(reads.get(name), name).toBe(1);
    }
  });
});

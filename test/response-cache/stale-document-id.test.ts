import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { useGatewayPerTest } from '../helpers/gateway-per-test.js';

/**
 * A stale entry made by a request that named a trusted document by `documentId` is refreshed on Yoga's
 * pipeline (tracing on), with only the manifest's documents admitted: the refresh names the document by
 * its id, as the client did, since its text would be refused (PERSISTED_QUERY_ONLY).
 */
const { sim, start } = useGatewayPerTest();

const SEARCH = 'query Search { searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
const SEARCH_ID = documentHash(SEARCH);
const SEARCH_ROUTE = 'GET /v0/search';
const TTL_MS = 400;
const manifestPath = join(mkdtempSync(join(tmpdir(), 'documents-')), 'manifest.json');
writeFileSync(manifestPath, JSON.stringify({ [SEARCH_ID]: SEARCH }));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const searches = () => sim.controls.count('assets', SEARCH_ROUTE);

describe('a stale entry named by documentId, on the pipeline', () => {
  const accept = { accept: 'application/graphql-response+json' };
  const cases: [string, () => Request][] = [
    ['in a POST body', () => new Request('http://gateway.test/graphql', { method: 'POST', headers: { 'content-type': 'application/json', ...accept }, body: JSON.stringify({ documentId: SEARCH_ID }) })],
    ['as a GET parameter', () => new Request(`http://gateway.test/graphql?documentId=${SEARCH_ID}`, { headers: accept })],
  ];
  it.each(cases)('is refreshed once by its id %s, then served fresh', async (_name, request) => {
    const gw = await start({
      config: {
        tracing: true,
        responseCache: true,
        persistedDocuments: manifestPath,
        allowArbitraryDocuments: false,
        responseCacheGraceMs: 60_000,
        responseCacheTtlMs: { markets: TTL_MS, prices: TTL_MS, metadata: TTL_MS, private: TTL_MS },
      },
    });
    const ask = async () => {
      const response = await gw.app.yoga.fetch(request());
      return { response, body: await response.text() };
    };
    const first = await ask();
    expect(first.response.status).toBe(200);
    expect(JSON.parse(first.body).data.searchAssets.edges).toHaveLength(5);
    expect(searches()).toBe(1);

    await sleep(TTL_MS + 700);
    const stale = await ask();
    expect(stale.body).toBe(first.body);
    expect(Number(stale.response.headers.get('age'))).toBeGreaterThanOrEqual(1);
    // One refresh, in the background: sent again as its text, it would be refused before any upstream call.
    await expect.poll(searches, { timeout: 3_000 }).toBe(2);

    const fresh = await ask();
    expect(fresh.response.headers.get('age')).toBe('0');
    expect(searches()).toBe(2);
  });
});

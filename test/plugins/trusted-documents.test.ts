import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildManifest } from '../../scripts/documents-manifest.js';
import { loadConfig } from '../../src/config.js';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import { operation, startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';

const manifestPath = join(mkdtempSync(join(tmpdir(), 'documents-')), 'manifest.json');
writeFileSync(manifestPath, JSON.stringify(buildManifest(new URL('../operations', import.meta.url).pathname)));

const marketsPage = operation('MarketsPage');
const marketsPageId = documentHash(marketsPage);
const variables = { first: 3, filter: { types: ['LENDING'] } };
const arbitrary = '{ markets(first: 2) { edges { node { marketId } } } }';

async function post(gw: TestGateway, body: Record<string, unknown>) {
  const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...((await response.json()) as { data?: any; errors?: any[] }) };
}

async function get(gw: TestGateway, params: Record<string, string>) {
  const response = await gw.app.yoga.fetch(`http://gateway.test/graphql?${new URLSearchParams(params)}`, {
    headers: { accept: 'application/graphql-response+json' },
  });
  return { status: response.status, ...((await response.json()) as { data?: any; errors?: any[] }) };
}

/** Production requires the three upstream URLs; the tests' gateways use their own simulator. */
const UPSTREAMS = { ALERTS_URL: 'http://a.test', MARKETS_URL: 'http://m.test', ASSETS_URL: 'http://s.test' };

const apq = (hash: string) => ({ persistedQuery: { version: 1, sha256Hash: hash } });

describe('trusted documents', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
  });
  afterAll(() => sim.close());

  describe('in production with a manifest', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      const config = loadConfig({ ...UPSTREAMS, NODE_ENV: 'production', PERSISTED_DOCUMENTS: manifestPath });
      gw = await startTestGateway({ sim, config: { production: true, persistedDocuments: manifestPath, allowArbitraryDocuments: config.allowArbitraryDocuments, apq: config.apq } });
      expect(config.allowArbitraryDocuments).toBe(false);
      expect(config.apq).toBe(false);
    });
    afterAll(() => gw.close());

    it('runs a document named by documentId in the POST body', async () => {
      const result = await post(gw, { documentId: marketsPageId, variables });
      expect(result.errors).toBeUndefined();
      expect(result.data.markets.edges).toHaveLength(3);
    });

    it('runs a document named by documentId as a GET query parameter, with variables', async () => {
      const result = await get(gw, { documentId: marketsPageId, variables: JSON.stringify(variables) });
      expect(result.status).toBe(200);
      expect(result.errors).toBeUndefined();
      expect(result.data.markets.edges).toHaveLength(3);
    });

    it('runs a document named in the APQ form', async () => {
      const result = await post(gw, { extensions: apq(marketsPageId), variables });
      expect(result.errors).toBeUndefined();
      expect(result.data.markets.edges).toHaveLength(3);
    });

    it('refuses an arbitrary document with a clear error and no upstream call', async () => {
      gw.sim.controls.resetCounts();
      const result = await post(gw, { query: arbitrary });
      expect(result.status).toBe(400);
      expect(result.data).toBeUndefined();
      expect(result.errors?.[0]).toMatchObject({ message: expect.stringMatching(/trusted documents/), extensions: { code: 'PERSISTED_QUERY_ONLY' } });
      expect(totalCalls(gw)).toBe(0);
    });

    it('answers an unknown id with the standard PersistedQueryNotFound', async () => {
      gw.sim.controls.resetCounts();
      for (const body of [{ documentId: 'f'.repeat(64) }, { extensions: apq('e'.repeat(64)) }]) {
        const result = await post(gw, body);
        expect(result.errors?.[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
      }
      expect(totalCalls(gw)).toBe(0);
    });
  });

  it('answers a GET by documentId as a CDN-cacheable URL: Cache-Control, ETag, then 304', async () => {
    const gw = await startTestGateway({ sim, config: { persistedDocuments: manifestPath, responseCache: true } });
    try {
      const url = `http://gateway.test/graphql?${new URLSearchParams({ documentId: marketsPageId, variables: JSON.stringify(variables) })}`;
      const first = await gw.app.yoga.fetch(url, { headers: { accept: 'application/graphql-response+json' } });
      expect(first.status).toBe(200);
      expect(first.headers.get('cache-control')).toMatch(/^public, max-age=\d+$/);
      const etag = first.headers.get('etag');
      expect(etag).toBeTruthy();
      gw.sim.controls.resetCounts();
      const again = await gw.app.yoga.fetch(url, { headers: { accept: 'application/graphql-response+json', 'if-none-match': etag! } });
      expect(again.status).toBe(304);
      expect(totalCalls(gw)).toBe(0);
    } finally {
      await gw.close();
    }
  });

  it('runs arbitrary documents in production when ALLOW_ARBITRARY_DOCUMENTS=true', async () => {
    const config = loadConfig({ ...UPSTREAMS, NODE_ENV: 'production', PERSISTED_DOCUMENTS: manifestPath, ALLOW_ARBITRARY_DOCUMENTS: 'true' });
    const gw = await startTestGateway({ sim, config: { production: true, persistedDocuments: manifestPath, allowArbitraryDocuments: config.allowArbitraryDocuments } });
    try {
      const result = await post(gw, { query: arbitrary });
      expect(result.errors).toBeUndefined();
      expect(result.data.markets.edges).toHaveLength(2);
    } finally {
      await gw.close();
    }
  });

  describe('in development (arbitrary documents and APQ on by default)', () => {
    let gw: TestGateway;
    beforeAll(async () => {
      const config = loadConfig({ PERSISTED_DOCUMENTS: manifestPath });
      expect(config).toMatchObject({ allowArbitraryDocuments: true, apq: true });
      gw = await startTestGateway({ sim, config: { persistedDocuments: manifestPath } });
    });
    afterAll(() => gw.close());

    it('runs arbitrary documents and manifest ids alike', async () => {
      expect((await post(gw, { query: arbitrary })).data.markets.edges).toHaveLength(2);
      expect((await post(gw, { documentId: marketsPageId, variables })).data.markets.edges).toHaveLength(3);
    });

    it('registers a document under its hash (APQ), then runs it from the hash alone', async () => {
      const document = '{ markets(first: 1) { edges { node { marketId } } } }';
      const hash = documentHash(document);
      const before = await post(gw, { extensions: apq(hash) });
      expect(before.errors?.[0]).toMatchObject({ message: 'PersistedQueryNotFound' });

      const registered = await post(gw, { query: document, extensions: apq(hash) });
      expect(registered.data.markets.edges).toHaveLength(1);
      const byHash = await get(gw, { extensions: JSON.stringify(apq(hash)) });
      expect(byHash.errors).toBeUndefined();
      expect(byHash.data).toEqual(registered.data);
    });

    it('keeps no document that the document limits, armor or the cost limit refuse', async () => {
      const refused = [
        `{ __typename } # ${'x'.repeat(70_000)}`, // over 64 KiB: 413
        `{ __typename ${'('.repeat(70)} }`, // nested past 64: 400
        `{ __typename ${'@skip(if: false) '.repeat(60)}}`, // 60 directives (armor: 50)
        // fragments spreading past 10,000 selections (the cost limit)
        `{ ...F4 } fragment F0 on Query { __typename } ${Array.from({ length: 4 }, (_, i) => `fragment F${i + 1} on Query { ${`...F${i} `.repeat(11)}}`).join(' ')}`,
      ];
      for (const document of refused) {
        const hash = documentHash(document);
        const registration = await post(gw, { query: document, extensions: apq(hash) });
        expect(registration.errors?.[0], document.slice(0, 60)).toMatchObject({ extensions: { code: 'QUERY_TOO_COMPLEX' } });
        const byHash = await post(gw, { extensions: apq(hash) });
        expect(byHash.errors?.[0]).toMatchObject({ message: 'PersistedQueryNotFound' });
      }
    });

    it('refuses to register a document under a hash that is not its own', async () => {
      const result = await post(gw, { query: arbitrary, extensions: apq('0'.repeat(64)) });
      expect(result.errors?.[0]).toMatchObject({ message: 'PersistedQueryMismatch' });
    });
  });

  it('APQ=off answers a hash alone as a request without a document', async () => {
    const gw = await startTestGateway({ sim, config: { apq: false } });
    try {
      const result = await post(gw, { extensions: apq(marketsPageId) });
      expect(result.status).toBe(400);
      expect(result.data).toBeUndefined();
    } finally {
      await gw.close();
    }
  });
});

describe('configuration of trusted documents', () => {
  it('defaults by mode: development runs everything, production with a manifest only trusted documents', () => {
    expect(loadConfig({})).toMatchObject({ persistedDocuments: null, allowArbitraryDocuments: true, apq: true });
    expect(loadConfig({ ...UPSTREAMS, NODE_ENV: 'production' })).toMatchObject({
      allowArbitraryDocuments: true,
      apq: false,
    });
    expect(loadConfig({ ...UPSTREAMS, NODE_ENV: 'production', PERSISTED_DOCUMENTS: 'm.json' })).toMatchObject({ allowArbitraryDocuments: false });
  });

  it('names the variable of a bad value', () => {
    expect(() => loadConfig({ APQ: 'yes' })).toThrow(/APQ: must be on or off/);
    expect(() => loadConfig({ ALLOW_ARBITRARY_DOCUMENTS: '1' })).toThrow(/ALLOW_ARBITRARY_DOCUMENTS: must be true or false/);
  });

  it('refuses a manifest that is not a map of documents, naming PERSISTED_DOCUMENTS', async () => {
    const bad = join(mkdtempSync(join(tmpdir(), 'documents-')), 'bad.json');
    writeFileSync(bad, JSON.stringify({ abc: 42 }));
    await expect(startTestGateway({ config: { persistedDocuments: bad } })).rejects.toThrow(/PERSISTED_DOCUMENTS/);
  });
});

describe("GraphQL Code Generator's manifest (client preset, persistedDocuments: true)", () => {
  /** Its format: the same flat object, keyed `sha256:<hex>` (GraphQL over HTTP's persisted documents). */
  const dir = mkdtempSync(join(tmpdir(), 'documents-'));
  const codegenManifest = join(dir, 'persisted-documents.json');
  writeFileSync(codegenManifest, JSON.stringify({ [`sha256:${marketsPageId}`]: marketsPage }));
  let sim: Simulator;
  let gw: TestGateway;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    gw = await startTestGateway({ sim, config: { persistedDocuments: codegenManifest, allowArbitraryDocuments: false, apq: false } });
  });
  afterAll(async () => {
    await gw.close();
    await sim.close();
  });

  it.each([
    ['documentId sha256:<hex>', { documentId: `sha256:${marketsPageId}` }],
    ['documentId <hex>', { documentId: marketsPageId }],
    ['the APQ form', { extensions: apq(marketsPageId) }],
  ])('runs a document it names by %s', async (_name, id) => {
    const result = await post(gw, { ...id, variables });
    expect(result.errors).toBeUndefined();
    expect(result.data.markets.edges).toHaveLength(3);
  });

  it('refuses, naming PERSISTED_DOCUMENTS, a sha256: key that is not its document\'s hash', async () => {
    const forged = join(dir, 'forged.json');
    writeFileSync(forged, JSON.stringify({ [`sha256:${documentHash(arbitrary)}`]: marketsPage }));
    await expect(startTestGateway({ sim, config: { persistedDocuments: forged } })).rejects.toThrow(/PERSISTED_DOCUMENTS.*not the sha256 of its document/);
  });
});

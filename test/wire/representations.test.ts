import { request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { createHttpServer } from '../../src/node-http.js';
import { useTestGateway } from '../helpers/gateway.js';

/**
 * What HTTP clients and caches see of an answer over a real socket (issue 33 items 5 and 9): `fetch()`
 * revalidating (it adds `Cache-Control: no-cache` to a request with `If-None-Match`) and a browser's
 * plain revalidation both get their 304; each content coding has its own strong ETag; CORS answers vary
 * by origin; a signed-out screen writes no error line.
 */
const ORIGIN = 'https://app.example.com';
const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId name symbol } } } }';
/** Over 1 KiB: sent compressed to a client that accepts it. */
const PAGE = '{ markets(first: 20) { edges { node { marketId productName provider { name } } } } }';
const SEARCH_ROUTE = 'GET /v0/search';

const lines: Record<string, unknown>[] = [];
const gw = useTestGateway({
  config: { responseCache: true, corsOrigins: [ORIGIN] },
  logger: createLogger({ logLevel: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) }),
  resetControls: true,
});
let server: Server;
let base = '';

beforeAll(async () => {
  server = createHttpServer(gw.app.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const url = (query: string) => `${base}/graphql?query=${encodeURIComponent(query)}`;
const ACCEPT = { accept: 'application/graphql-response+json' };

/** A GET as a browser or a cache sends it: exactly these headers, the body as bytes (never decompressed). */
function rawGet(query: string, headers: Record<string, string>): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url(query), { headers: { ...ACCEPT, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('revalidation (item 5)', () => {
  it('fetch() with If-None-Match (and the no-cache it adds) re-executes and gets 304, the public policy kept', async () => {
    const first = await fetch(url(SEARCH), { headers: ACCEPT });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"/);
    await first.text();
    expect(gw.sim.controls.count('assets', SEARCH_ROUTE)).toBe(1);

    const again = await fetch(url(SEARCH), { headers: { ...ACCEPT, 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe(`public, max-age=${gw.config.responseCacheTtlMs.metadata / 1000}`);
    // no-cache asks the origin to revalidate: the answer was made again.
    expect(gw.sim.controls.count('assets', SEARCH_ROUTE)).toBe(2);

    // max-age=0 is the same request.
    const zero = await rawGet(SEARCH, { 'if-none-match': etag, 'cache-control': 'max-age=0' });
    expect(zero.status).toBe(304);
    expect(zero.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it('a browser-style revalidation (no no-cache) gets 304 from the cache, with no upstream call', async () => {
    const first = await rawGet(SEARCH, {});
    const etag = first.headers.etag!;
    const calls = gw.sim.controls.count('assets', SEARCH_ROUTE);
    const again = await rawGet(SEARCH, { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    expect(gw.sim.controls.count('assets', SEARCH_ROUTE)).toBe(calls);
  });
});

describe('representations and CORS (item 9)', () => {
  it('gives the identity, gzip and br bodies distinct strong ETags, each matched by its own If-None-Match', async () => {
    const forms = await Promise.all(['identity', 'gzip', 'br'].map((coding) => rawGet(PAGE, { 'accept-encoding': coding })));
    expect(forms.map((f) => f.headers['content-encoding'] ?? 'identity')).toEqual(['identity', 'gzip', 'br']);
    const tags = forms.map((f) => f.headers.etag!);
    expect(new Set(tags).size).toBe(3);
    for (const tag of tags) expect(tag).toMatch(/^"[^"]+"$/);

    for (const [i, coding] of ['identity', 'gzip', 'br'].entries()) {
      expect((await rawGet(PAGE, { 'accept-encoding': coding, 'if-none-match': tags[i]! })).status).toBe(304);
    }
    // The gzip body's tag does not stand for the br body: that client gets the br body whole.
    const other = await rawGet(PAGE, { 'accept-encoding': 'br', 'if-none-match': tags[1]! });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('br');
    expect(other.headers.etag).toBe(tags[2]);
  });

  it('answers Vary: Origin, to a listed origin, another one, none, and on a 304', async () => {
    const allowed = await rawGet(SEARCH, { origin: ORIGIN });
    expect(allowed.headers['access-control-allow-origin']).toBe(ORIGIN);
    for (const answer of [allowed, await rawGet(SEARCH, { origin: 'https://other.example' }), await rawGet(SEARCH, {})]) {
      expect(answer.headers.vary).toMatch(/\bOrigin\b/i);
    }
    const revalidated = await rawGet(SEARCH, { origin: ORIGIN, 'if-none-match': allowed.headers.etag! });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.vary).toMatch(/\bOrigin\b/i);
  });

  it('writes no error line and no stack for 50 signed-out viewer requests', async () => {
    lines.length = 0;
    const answers = await Promise.all(Array.from({ length: 50 }, () => gw.execute('{ viewer { id } }')));
    for (const answer of answers) expect(answer.errors?.[0]?.extensions?.['code']).toBe('UNAUTHENTICATED');
    expect(lines.filter((line) => (line['level'] as number) >= 50)).toEqual([]);
    expect(JSON.stringify(lines)).not.toMatch(/"stack"/);
  });
});

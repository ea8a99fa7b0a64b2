import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { encoder, negotiate } from '../../src/plugins/wire-encoding.js';
import { matches } from '../../src/etag.js';
import { operation, useTestGateway } from '../helpers/gateway.js';

const gw = useTestGateway({ config: { responseCache: true }, resetControls: true });
afterEach(() => vi.restoreAllMocks());

const MARKETS_100 = operation('MarketsPage');

async function post(query: string, variables: Record<string, unknown>, headers: Record<string, string>): Promise<Response> {
  return gw.app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body: JSON.stringify({ query, variables }),
  });
}

async function bytes(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe('compressed answers', () => {
  it('compresses a markets page and MobileHome with brotli or gzip as the client accepts, with Vary', async () => {
    const plain = await post(MARKETS_100, { first: 100 }, { 'accept-encoding': 'identity' });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.headers.get('vary')).toMatch(/Accept-Encoding/i);
    const text = await plain.text();

    const gz = await post(MARKETS_100, { first: 100 }, { 'accept-encoding': 'gzip' });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.headers.get('vary')).toMatch(/Accept-Encoding/i);
    const gzBytes = await bytes(gz);
    expect(gunzipSync(gzBytes).toString()).toBe(text);
    expect(Number(gz.headers.get('content-length'))).toBe(gzBytes.length);

    const br = await post(MARKETS_100, { first: 100 }, { 'accept-encoding': 'gzip, deflate, br' });
    expect(br.headers.get('content-encoding')).toBe('br');
    const brBytes = await bytes(br);
    expect(brotliDecompressSync(brBytes).toString()).toBe(text);
    expect(brBytes.length).toBeLessThan(text.length / 4);

    const home = await post(operation('MobileHome'), {}, { ...gw.viewerHeaders, 'accept-encoding': 'br' });
    expect(home.headers.get('content-encoding')).toBe('br');
    expect(JSON.parse(brotliDecompressSync(await bytes(home)).toString()).data.viewer.id).toBeTruthy();
  });

  it('honours q-values: a coding at q=0 is never used', async () => {
    const response = await post(MARKETS_100, { first: 20 }, { 'accept-encoding': 'br;q=0, gzip;q=0.5' });
    expect(response.headers.get('content-encoding')).toBe('gzip');
    const none = await post(MARKETS_100, { first: 20 }, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(none.headers.get('content-encoding')).toBeNull();
  });

  it('leaves an answer under 1 KiB as it is', async () => {
    const small = await post('{ __typename }', {}, { 'accept-encoding': 'gzip, br' });
    expect(small.headers.get('content-encoding')).toBeNull();
    expect(await small.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('compresses a cached answer once and serves the same bytes on every hit', async () => {
    const encode = vi.spyOn(encoder, 'encode');
    const answers: Buffer[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await post(MARKETS_100, { first: 50 }, { 'accept-encoding': 'br' });
      expect(response.headers.get('content-encoding')).toBe('br');
      answers.push(await bytes(response));
    }
    // The miss is compressed for itself; the first hit compresses the held entry; later hits reuse it.
    expect(encode).toHaveBeenCalledTimes(2);
    expect(new Set(answers.map((a) => a.toString('base64'))).size).toBe(1);
  });

  it('sends event streams uncompressed, so each event leaves at once', async () => {
    const controller = new AbortController();
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'accept-encoding': 'gzip, br' },
      body: JSON.stringify({ query: 'subscription { events(kinds: [TOKEN_PRICE_CHANGE]) { kind } }' }),
      signal: controller.signal,
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    // Yoga marks event streams `Content-Encoding: none` (so proxies do not buffer them to compress).
    expect(response.headers.get('content-encoding') ?? 'none').toBe('none');
    controller.abort();
  });
});

describe('negotiation and tag comparison', () => {
  it('reads Accept-Encoding as RFC 9110 says', () => {
    expect(negotiate(null)).toBeNull();
    expect(negotiate('gzip')).toBe('gzip');
    expect(negotiate('gzip, br')).toBe('br');
    expect(negotiate('br;q=0.1, gzip')).toBe('gzip');
    expect(negotiate('*')).toBe('br');
    expect(negotiate('*, br;q=0')).toBe('gzip');
    expect(negotiate('identity, deflate')).toBeNull();
  });

  it('compares entity tags weakly for If-None-Match', () => {
    expect(matches('"a"', '"a"')).toBe(true);
    expect(matches('W/"a"', '"a"')).toBe(true);
    expect(matches('"b", W/"a"', '"a"')).toBe(true);
    expect(matches('*', '"a"')).toBe(true);
    expect(matches('"b"', '"a"')).toBe(false);
    expect(matches('a', '"a"')).toBe(false);
  });
});

import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpServer, SERVER_TIMEOUTS } from '../../src/node-http.js';
import { useTestGateway, type TestGateway } from '../helpers/gateway.js';
import { expectSameAnswer, parts, portOf, send, sendRaw, type Sent } from '../helpers/hit-parity.js';

/**
 * Cached hits answered at the HTTP listener (src/response-cache/hits.ts) are the answers Yoga's whole
 * pipeline gives: the same status, headers (in the same order) and bytes, for every kind of request a
 * hit answers; whatever the fast path cannot answer identically goes to the pipeline. Each request is
 * sent to two servers over one gateway, one with the fast path and one without, and compared byte for
 * byte (the Date line, a generated X-Request-Id and the age figures aside, checked on their own).
 */
const ORIGIN = 'https://app.example.com';
/** Over 1 KiB: compressed for a client that accepts it. */
const PAGE = '{ markets(first: 20) { edges { node { marketId productName provider { name } } } } }';
const SMALL = '{ markets(first: 2) { edges { node { marketId } } } }';
const VIEWER = '{ viewer { id channels { key value verified } } }';
const NAMED = 'query Page($first: Int) { markets(first: $first) { edges { node { marketId } } } }';

const gw: TestGateway = useTestGateway({ config: { responseCache: true, corsOrigins: [ORIGIN] }, resetControls: true });
let plain: Server;
let fast: Server;
let answeredFast = 0;

beforeAll(async () => {
  const hits = gw.app.hits!;
  plain = createHttpServer(gw.app.yoga);
  fast = createHttpServer(gw.app.yoga, SERVER_TIMEOUTS, (req, res, body) => {
    const answered = hits(req, res, body);
    const count = (done: boolean) => ((answeredFast += done ? 1 : 0), done);
    return answered instanceof Promise ? answered.then(count) : count(answered);
  });
  for (const server of [plain, fast]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  for (const server of [plain, fast]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Sends `sent` through the pipeline and then through the fast path; both answers, and whether the fast path answered. */
async function both(sent: Sent) {
  const sentId = sent.headers?.['x-request-id'] !== undefined;
  const before = answeredFast;
  const viaPipeline = parts(await send(portOf(plain), sent), sentId);
  const viaFast = parts(await send(portOf(fast), sent), sentId);
  return { viaPipeline, viaFast, fast: answeredFast - before === 1 };
}

describe('a cached hit on the fast path', () => {
  const cases: [string, Sent][] = [
    ['a POST of a public page', { query: PAGE }],
    ['a POST asking for application/graphql-response+json', { query: PAGE, headers: { accept: 'application/graphql-response+json' } }],
    ['a POST asking for either JSON type', { query: SMALL, headers: { accept: 'application/graphql-response+json, application/json;q=0.9' } }],
    ['a GET', { method: 'GET', query: SMALL }],
    ['a GET with variables and an operation name', { method: 'GET', query: NAMED, variables: { first: 3 }, operationName: 'Page' }],
    ['a POST with variables and an operation name', { query: NAMED, variables: { first: 3 }, operationName: 'Page' }],
    ['a gzip answer', { query: PAGE, headers: { 'accept-encoding': 'gzip' } }],
    ['a br answer', { query: PAGE, headers: { 'accept-encoding': 'gzip, br' } }],
    ['a small answer to a client accepting br (sent as it is)', { query: SMALL, headers: { 'accept-encoding': 'br' } }],
    ['an allowed origin', { query: SMALL, headers: { origin: ORIGIN } }],
    ['another origin', { query: SMALL, headers: { origin: 'https://other.example' } }],
    ["the caller's own X-Request-Id", { query: SMALL, headers: { 'x-request-id': 'req-42' } }],
    ['a max-age longer than the TTL', { query: SMALL, headers: { 'cache-control': 'max-age=3600' } }],
  ];

  for (const [name, sent] of cases) {
    it(`answers ${name} as the pipeline does`, async () => {
      // The first request stores the entry; the pipeline's first hit makes its tag and compressed forms.
      await send(portOf(plain), sent);
      await send(portOf(plain), sent);
      const answers = await both(sent);
      expect(answers.fast).toBe(true);
      expect(answers.viaFast.head).toMatch(/^HTTP\/1\.1 200 OK/);
      expectSameAnswer(answers);
    });
  }

  it("answers the caller's own private entry as the pipeline does, and nobody else's", async () => {
    const sent = { query: VIEWER, headers: gw.viewerHeaders };
    await send(portOf(plain), sent);
    const answers = await both(sent);
    expect(answers.fast).toBe(true);
    expect(answers.viaFast.head).toMatch(/\r\ncache-control: private, max-age=\*/);
    expectSameAnswer(answers);
    const other = await both({ query: VIEWER, headers: { authorization: 'Bearer someone-else', 'x-service-client-key': gw.viewerHeaders['x-service-client-key']! } });
    expect(other.fast).toBe(false);
    expect(other.viaFast.body.toString()).not.toContain(gw.sim.alerts.demo.token);
  });

  it("answers a browser's revalidation (If-None-Match on a GET) with the pipeline's 304, for each representation", async () => {
    for (const coding of ['identity', 'gzip', 'br']) {
      const sent: Sent = { method: 'GET', query: PAGE, headers: { 'accept-encoding': coding } };
      await send(portOf(plain), sent);
      const first = parts(await send(portOf(plain), sent), false);
      const etag = /\r\netag: ([^\r]+)/.exec(first.head)![1]!;
      const answers = await both({ ...sent, headers: { ...sent.headers, 'if-none-match': etag } });
      expect(answers.fast).toBe(true);
      expect(answers.viaFast.head).toMatch(/^HTTP\/1\.1 304 Not Modified/);
      expectSameAnswer(answers);
    }
  });

  it('leaves to the pipeline what a hit does not answer: no-cache, max-age=0, no-store, the ledger, APQ, documentId', async () => {
    await send(portOf(plain), { query: SMALL });
    const etag = /\r\netag: ([^\r]+)/.exec(parts(await send(portOf(plain), { query: SMALL }), false).head)![1]!;
    const bypassing: Record<string, string>[] = [{ 'cache-control': 'no-cache', 'if-none-match': etag }, { 'cache-control': 'max-age=0' }, { 'cache-control': 'no-store' }, { 'x-gateway-debug': '1' }];
    for (const headers of bypassing) {
      const answers = await both({ method: 'GET', query: SMALL, headers });
      expect(answers.fast).toBe(false);
    }
    // Persisted documents and APQ are looked up by the pipeline's plugins: the same answer either way.
    for (const sent of [{ query: SMALL, extensions: { persistedQuery: { version: 1, sha256Hash: 'f'.repeat(64) } } }, { query: SMALL, documentId: 'abc' }]) {
      const body = JSON.stringify(sent);
      const raw = `POST /graphql HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      const before = answeredFast;
      const [viaPipeline, viaFast] = [parts(await sendRaw(portOf(plain), raw), false), parts(await sendRaw(portOf(fast), raw), false)];
      expect(answeredFast).toBe(before);
      expect(viaFast.head).toBe(viaPipeline.head);
      expect(viaFast.body.equals(viaPipeline.body)).toBe(true);
    }
    // fetch()'s revalidation executes and still gets its 304.
    const revalidated = parts(await send(portOf(fast), { method: 'GET', query: SMALL, headers: { 'cache-control': 'no-cache', 'if-none-match': etag } }), false);
    expect(revalidated.head).toMatch(/^HTTP\/1\.1 304/);
  });

  it('makes no upstream call and no execution, and counts each answer as a hit', async () => {
    await send(portOf(plain), { query: PAGE });
    await send(portOf(plain), { query: PAGE });
    gw.sim.controls.resetCounts();
    const metric = async (line: string) => Number(new RegExp(`^${line} (\\d+)`, 'm').exec(await gw.services.registry.metrics())?.[1] ?? 0);
    const [hits, executions] = [await metric('gateway_response_cache_requests_total\\{outcome="hit"\\}'), await metric('gateway_executions_total\\{shared="false"\\}')];
    const before = answeredFast;
    for (let i = 0; i < 5; i++) await send(portOf(fast), { query: PAGE });
    expect(answeredFast - before).toBe(5);
    expect(gw.sim.controls.counts()).toEqual({});
    expect(await metric('gateway_response_cache_requests_total\\{outcome="hit"\\}')).toBe(hits + 5);
    expect(await metric('gateway_executions_total\\{shared="false"\\}')).toBe(executions);
  });
});

describe('the rate limit on the fast path', () => {
  const limited: TestGateway = useTestGateway({ config: { responseCache: true, rateLimitPerMinute: 3 } });

  it('counts a hit as one operation of its caller, and the pipeline answers the refusal past the limit', async () => {
    const hits = limited.app.hits!;
    let answered = 0;
    const server = createHttpServer(limited.app.yoga, SERVER_TIMEOUTS, (req, res, body) => {
      const done = hits(req, res, body);
      return done instanceof Promise ? done.then((d) => ((answered += d ? 1 : 0), d)) : done;
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const statuses: string[] = [];
      for (let i = 0; i < 4; i++) statuses.push(parts(await send(portOf(server), { query: SMALL }), false).head.split('\r\n')[0]!);
      expect(statuses).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 200 OK', 'HTTP/1.1 429 Too Many Requests']);
      // The miss took the pipeline; the two hits the fast path; the refused one the pipeline again.
      expect(answered).toBe(2);
      expect(await limited.services.registry.metrics()).toMatch(/^gateway_rate_limit_refusals_total\{caller="address"\} 1$/m);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('a stale entry on the fast path', () => {
  const TTL_MS = 300;
  const stale: TestGateway = useTestGateway({
    config: { responseCache: true, responseCacheGraceMs: 60_000, responseCacheTtlMs: { markets: TTL_MS, prices: TTL_MS, metadata: TTL_MS, private: TTL_MS } },
  });

  it('is answered within its grace with max-age=0, and refreshed once', async () => {
    const hits = stale.app.hits!;
    let answered = 0;
    const server = createHttpServer(stale.app.yoga, SERVER_TIMEOUTS, (req, res, body) => {
      const done = hits(req, res, body);
      return done instanceof Promise ? done.then((d) => ((answered += d ? 1 : 0), d)) : ((answered += done ? 1 : 0), done);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const executions = async () => Number(/^gateway_executions_total\{shared="false"\} (\d+)/m.exec(await stale.services.registry.metrics())?.[1] ?? 0);
    try {
      await send(portOf(server), { query: SMALL });
      const before = await executions();
      await new Promise((resolve) => setTimeout(resolve, TTL_MS + 100));
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(parts(await send(portOf(server), { query: SMALL }), false));
      expect(answered).toBe(3);
      expect(answers[0]!.head).toMatch(/\r\ncache-control: public, max-age=\*\r\n/);
      expect(answers[0]!.maxAge).toBe(0);
      // One refresh, however many stale answers were given meanwhile.
      await expect.poll(executions).toBe(before + 1);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

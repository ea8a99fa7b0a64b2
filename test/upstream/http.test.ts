import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MockAgent } from 'undici';
import { buildQuery, createAgent, createHttpClient, path, retryAfter, UpstreamError, type BreakerOptions } from '../../src/upstream/http.js';
import { CallBudget, OperationDeadline, UpstreamLedger } from '../../src/operation/index.js';
import { headersOf, lastCall, ORIGIN, testClient, useMockAgent } from './helpers.js';

let agent: MockAgent;
useMockAgent((created) => (agent = created));

const pool = () => agent.get(ORIGIN);
const anyPath = () => true;

async function failure(promise: Promise<unknown>): Promise<UpstreamError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}

describe('HttpClient: a successful call', () => {
  it('joins the base path prefix, the path and an encoded query, and parses the JSON body', async () => {
    pool()
      .intercept({ path: anyPath, method: 'GET' })
      .reply(200, { ok: true }, { headers: { 'content-type': 'application/json' } });
    const { http, calls } = testClient(agent, { defaultHeaders: { 'X-Service-Client-Key': 'gw-key', 'x-unset': undefined } });

    const body = await http.get(path`/v0/assets/${'solana:a/b?c'}`, {
      query: { q: 'a&b=c', list: ['x', 'y'], none: undefined, nil: null, empty: [] },
      route: 'GET /v0/assets/{id}',
    });

    expect(body).toEqual({ ok: true });
    const call = lastCall(agent);
    expect(call.path).toBe('/markets/v0/assets/solana%3Aa%2Fb%3Fc');
    expect(call.fullUrl).toContain('?q=a%26b%3Dc&list=x%2Cy');
    expect(call.fullUrl).not.toContain('none');
    expect(call.fullUrl).not.toContain('nil');
    expect(call.fullUrl).not.toContain('empty');
    const headers = headersOf(call);
    expect(headers['x-service-client-key']).toBe('gw-key');
    expect(headers['accept']).toBe('application/json');
    expect('x-unset' in headers).toBe(false);
    expect(calls).toEqual([
      expect.objectContaining({ service: 'markets', method: 'GET', route: 'GET /v0/assets/{id}', status: 200, attempts: 1 }),
    ]);
    expect(JSON.stringify(calls)).not.toContain('gw-key');
  });

  it('posts a JSON body with its content type; an empty 2xx body on a POST is {}', async () => {
    pool().intercept({ path: '/markets/v2/subscribe', method: 'POST' }).reply(201, '');
    const { http } = testClient(agent);
    await expect(http.post('/v2/subscribe', { body: { appId: ['a'] } })).resolves.toEqual({});
    const call = lastCall(agent);
    expect(call.body).toBe('{"appId":["a"]}');
    expect(headersOf(call)['content-type']).toBe('application/json');
  });
});

describe('HttpClient: status → UpstreamError, in one place', () => {
  const cases: Array<[number, string | object, UpstreamError['kind'], boolean, string | undefined]> = [
    [400, { error: 'limit must be 1-200' }, 'BAD_REQUEST', false, 'limit must be 1-200'],
    [400, { error: { field: 'limit', issue: 'too big' } }, 'BAD_REQUEST', false, '{"field":"limit","issue":"too big"}'],
    [401, '', 'UNAUTHENTICATED', false, undefined],
    [403, { error: 'forbidden' }, 'FORBIDDEN', false, undefined],
    [404, { error: 'not found' }, 'NOT_FOUND', false, undefined],
    [409, { message: 'an email channel exists' }, 'CONFLICT', false, 'an email channel exists'],
    [422, { message: 'wrong or expired code' }, 'UNPROCESSABLE', false, 'wrong or expired code'],
    [500, { error: 'boom' }, 'UNAVAILABLE', true, undefined],
    [503, '', 'UNAVAILABLE', true, undefined],
  ];

  it.each(cases)('%i %j → %s', async (status, body, kind, retryable, upstreamMessage) => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(status, body);
    const { http, calls } = testClient(agent);
    const error = await failure(http.get('/v0/markets'));
    expect(error).toMatchObject({ service: 'markets', status, kind, retryable });
    expect(error.upstreamMessage).toBe(upstreamMessage);
    expect(calls[0]).toMatchObject({ status, errorKind: kind, attempts: 1 });
  });

  it('429 → RATE_LIMITED with Retry-After seconds', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(429, '', { headers: { 'retry-after': '17' } });
    const { http } = testClient(agent);
    const error = await failure(http.get('/v0/markets'));
    expect(error).toMatchObject({ kind: 'RATE_LIMITED', status: 429, retryable: true, retryAfterSeconds: 17 });
  });

  it('reads Retry-After given as an HTTP date', () => {
    const inTen = new Date(Date.now() + 10_000).toUTCString();
    expect(retryAfter(inTen)).toBeGreaterThanOrEqual(9);
    expect(retryAfter(inTen)).toBeLessThanOrEqual(10);
    expect(retryAfter('soon')).toBeUndefined();
    expect(retryAfter(undefined)).toBeUndefined();
  });

  it('an HTML 502 from a proxy → UNAVAILABLE, retryable, body consumed', async () => {
    pool()
      .intercept({ path: anyPath, method: 'GET' })
      .reply(502, '<html><body><h1>502 Bad Gateway</h1></body></html>', { headers: { 'content-type': 'text/html' } });
    const { http } = testClient(agent);
    const error = await failure(http.get('/v0/markets'));
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', status: 502, retryable: true });
    expect(error.upstreamMessage).toBeUndefined();
  });

  it('a 200 whose body is not JSON (or not an object, or empty on a GET) → UNAVAILABLE', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, '<html>maintenance</html>');
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, '[1,2]');
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, '');
    const { http } = testClient(agent);
    for (let i = 0; i < 3; i++) {
      const error = await failure(http.get('/v0/markets'));
      expect(error).toMatchObject({ kind: 'UNAVAILABLE', status: 200, code: 'EBADBODY', retryable: true });
    }
  });

  it('never puts the URL, the token or the headers into the message', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(401, { error: 'bad token Bearer secret-token' });
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED upstream.test'), { code: 'ECONNREFUSED' }));
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(Object.assign(new Error('connect ECONNREFUSED upstream.test'), { code: 'ECONNREFUSED' }));
    const { http } = testClient(agent);
    const headers = { authorization: 'Bearer secret-token' };
    for (const error of [await failure(http.get('/v2/auth', { headers })), await failure(http.get('/v2/auth', { headers }))]) {
      const text = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
      expect(text).not.toContain('secret-token');
      expect(text).not.toContain('upstream.test');
      expect(text).not.toContain('/v2/auth');
    }
  });
});

describe('HttpClient: the one retry', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });

  it('retries a GET once after a connection-level error', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(refused());
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, { markets: [] });
    const { http, calls } = testClient(agent);
    await expect(http.get('/v0/markets')).resolves.toEqual({ markets: [] });
    expect(calls[0]).toMatchObject({ status: 200, attempts: 2 });
  });

  it('gives up after the second connection-level failure', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(refused());
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }));
    const { http, calls } = testClient(agent);
    const error = await failure(http.get('/v0/markets'));
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_SOCKET', retryable: true });
    expect(error.status).toBeUndefined();
    expect(calls[0]).toMatchObject({ attempts: 2, errorKind: 'UNAVAILABLE', errorCode: 'UND_ERR_SOCKET' });
  });

  it('does not retry a headers timeout, a 5xx, a 4xx or a POST', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }));
    pool().intercept({ path: anyPath, method: 'GET' }).reply(503, '');
    pool().intercept({ path: anyPath, method: 'GET' }).reply(404, { error: 'not found' });
    pool().intercept({ path: anyPath, method: 'POST' }).replyWithError(refused());
    const { http, calls } = testClient(agent);
    expect(await failure(http.get('/a'))).toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_HEADERS_TIMEOUT' });
    expect(await failure(http.get('/b'))).toMatchObject({ kind: 'UNAVAILABLE', status: 503 });
    expect(await failure(http.get('/c'))).toMatchObject({ kind: 'NOT_FOUND' });
    expect(await failure(http.post('/d', { body: {} }))).toMatchObject({ kind: 'UNAVAILABLE', code: 'ECONNREFUSED' });
    expect(calls.map((c) => c.attempts)).toEqual([1, 1, 1, 1]);
  });

  it('retry: false turns it off', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).replyWithError(refused());
    const { http, calls } = testClient(agent, { retry: false });
    await failure(http.get('/v0/markets'));
    expect(calls[0]?.attempts).toBe(1);
  });
});

describe('HttpClient: circuit breaker', () => {
  const breaker = { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 };

  it('opens after upstream failures and then fails fast without calling', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(500, '').times(3);
    const states: string[] = [];
    const { http, calls } = testClient(agent, { breaker, onBreakerStateChange: (_s, state) => states.push(state) });
    for (let i = 0; i < 3; i++) await failure(http.get('/v0/markets'));
    expect(states).toEqual(['open']);

    // No interceptor is left: a call reaching the network would fail differently (MockNotMatchedError).
    const error = await failure(http.get('/v0/markets'));
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', code: 'EOPENBREAKER', retryable: true, service: 'markets' });
    expect(calls.at(-1)).toMatchObject({ errorCode: 'EOPENBREAKER', attempts: 0 });
    http.close();
  });

  it('does not count 4xx answers as failures', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(404, { error: 'not found' }).times(3);
    pool().intercept({ path: anyPath, method: 'GET' }).reply(401, '').times(2);
    pool().intercept({ path: anyPath, method: 'GET' }).reply(429, '', { headers: { 'retry-after': '1' } });
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, { ok: 1 });
    const { http } = testClient(agent, { breaker });
    for (let i = 0; i < 6; i++) await failure(http.get('/v0/assets/x'));
    await expect(http.get('/v0/assets/x')).resolves.toEqual({ ok: 1 });
    http.close();
  });

  it('half-opens after the reset timeout and closes on a success', async () => {
    pool().intercept({ path: anyPath, method: 'GET' }).reply(503, '').times(3);
    pool().intercept({ path: anyPath, method: 'GET' }).reply(200, { ok: 1 });
    const states: string[] = [];
    const { http } = testClient(agent, {
      breaker: { ...breaker, resetTimeoutMs: 50 },
      onBreakerStateChange: (_s, state) => states.push(state),
    });
    for (let i = 0; i < 3; i++) await failure(http.get('/x'));
    await vi.waitFor(() => expect(states).toEqual(['open', 'halfOpen']));
    await expect(http.get('/x')).resolves.toEqual({ ok: 1 });
    expect(states).toEqual(['open', 'halfOpen', 'closed']);
    http.close();
  });
});

describe('HttpClient against a real server: timeouts and refused connections', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function listen(handler: Parameters<typeof createServer>[1]): Promise<string> {
    server = createServer(handler);
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('maps a headers timeout of the agent to UNAVAILABLE (UND_ERR_HEADERS_TIMEOUT), no retry', async () => {
    let hits = 0;
    const base = await listen(() => {
      hits += 1; // never answers
    });
    const real = createAgent({ headersTimeoutMs: 100 });
    const http = createHttpClient({ service: 'assets', baseUrl: base, agent: real, breaker: false, timeoutMs: 5_000 });
    const error = await failure(http.get('/v0/assets/solana%3Ax'));
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_HEADERS_TIMEOUT', retryable: true });
    expect(hits).toBe(1);
    await real.destroy();
  });

  it('maps a body timeout to UNAVAILABLE (UND_ERR_BODY_TIMEOUT)', async () => {
    const base = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"partial":'); // and stalls
    });
    const real = createAgent({ bodyTimeoutMs: 100 });
    const http = createHttpClient({ service: 'assets', baseUrl: base, agent: real, breaker: false, timeoutMs: 5_000 });
    expect(await failure(http.get('/v0/search'))).toMatchObject({ kind: 'UNAVAILABLE', code: 'UND_ERR_BODY_TIMEOUT', status: 200 });
    await real.destroy();
  });

  it('the per-call deadline aborts a slow answer (ETIMEDOUT)', async () => {
    // Never answers: only the deadline (100 ms, far below the agent's 10 s headers timeout) can end the call.
    const base = await listen(() => {});
    const real = createAgent();
    const http = createHttpClient({ service: 'markets', baseUrl: base, agent: real, breaker: false, timeoutMs: 100 });
    expect(await failure(http.get('/v0/markets'))).toMatchObject({ kind: 'UNAVAILABLE', code: 'ETIMEDOUT', retryable: true });
    await real.destroy();
  });

  /** A markets client on its own agent against `base`, with `breaker`, recording the breaker's state changes. */
  function breakerClient(base: string, breaker: BreakerOptions) {
    const real = createAgent();
    const states: string[] = [];
    const http = createHttpClient({ service: 'markets', baseUrl: base, agent: real, breaker, timeoutMs: 5_000, onBreakerStateChange: (_s, state) => states.push(state) });
    return { http, states, close: async () => (http.close(), await real.destroy()) };
  }

  it('a caller abort is reported as not retryable and does not count against the breaker', async () => {
    const base = await listen((_req, res) => {
      setTimeout(() => res.end('{}'), 1_000).unref();
    });
    // One counted failure in a window of one call would open it.
    const { http, states, close } = breakerClient(base, { volumeThreshold: 1 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    expect(await failure(http.get('/v0/markets', { scope: { signal: controller.signal } }))).toMatchObject({ code: 'ABORTED', retryable: false });
    expect(states).toEqual([]);
    await close();
  });

  it("the operation's deadline ends a call before its own (DEADLINE, retryable), uncounted by the breaker, written in the ledger", async () => {
    let hits = 0;
    const base = await listen(() => {
      hits += 1; // never answers
    });
    // The call's own deadline is 5 s; the operation has 100 ms left. One counted failure would open the breaker.
    const { http, states, close } = breakerClient(base, { volumeThreshold: 1 });
    const ledger = new UpstreamLedger();
    const budget = new CallBudget(10);
    const scope = { deadline: new OperationDeadline(100), ledger, budget };
    const error = await failure(http.get('/v0/markets', { scope, route: 'GET /v0/markets' }));
    expect(error).toMatchObject({ kind: 'UNAVAILABLE', code: 'DEADLINE', retryable: true });
    expect(states).toEqual([]);
    expect(ledger.report(budget)).toMatchObject({ calls: [{ service: 'markets', route: 'GET /v0/markets', status: null, attempts: 1 }], budget: { used: 1 } });

    // No time left: no call at all, none counted.
    expect(await failure(http.get('/v0/markets', { scope }))).toMatchObject({ code: 'DEADLINE' });
    expect(hits).toBe(1);
    expect(budget.used).toBe(1);
    await close();
  });

  it('a half-open trial call its caller abandons opens the breaker again rather than closing it', async () => {
    let requests = 0;
    // The first call fails; the trial call never gets an answer.
    const base = await listen((_req, res) => {
      if (requests++ === 0) res.writeHead(503).end();
    });
    const { http, states, close } = breakerClient(base, { volumeThreshold: 1, resetTimeoutMs: 50 });
    await failure(http.get('/v0/markets'));
    await vi.waitFor(() => expect(states).toEqual(['open', 'halfOpen']));

    const controller = new AbortController();
    const trial = failure(http.get('/v0/markets', { scope: { signal: controller.signal } }));
    await vi.waitFor(() => expect(requests).toBe(2));
    controller.abort();
    expect(await trial).toMatchObject({ code: 'ABORTED' });
    // Nothing showed the upstream healthy: it must not be 'closed'.
    expect(states).toEqual(['open', 'halfOpen', 'open']);
    await close();
  });

  it('opens after 5 timeouts in a row however many successes the window holds, then fails fast', async () => {
    let hanging = false;
    let hits = 0;
    const base = await listen((_req, res) => {
      hits += 1;
      if (!hanging) res.end('{"ok":true}');
    });
    const real = createAgent();
    const states: string[] = [];
    // The default window (10 s, 50 %, 10 calls) with a short deadline: 100 successes would outweigh 5 timeouts.
    const http = createHttpClient({ service: 'markets', baseUrl: base, agent: real, breaker: {}, timeoutMs: 100, onBreakerStateChange: (_s, state) => states.push(state) });
    for (let i = 0; i < 100; i++) await http.get('/v0/markets');

    hanging = true;
    for (let i = 0; i < 4; i++) expect(await failure(http.get('/v0/markets'))).toMatchObject({ code: 'ETIMEDOUT' });
    expect(states).toEqual([]);
    expect(await failure(http.get('/v0/markets'))).toMatchObject({ code: 'ETIMEDOUT' });
    expect(states).toEqual(['open']);
    expect(await failure(http.get('/v0/markets'))).toMatchObject({ code: 'EOPENBREAKER' });
    expect(hits).toBe(105);
    http.close();
    await real.destroy();
  });

  it('a refused connection is retried once, then UNAVAILABLE (ECONNREFUSED)', async () => {
    const base = await listen(() => {});
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const real = createAgent();
    const calls: number[] = [];
    const http = createHttpClient({
      service: 'alerts',
      baseUrl: base,
      agent: real,
      breaker: false,
      retry: { backoffMs: 1 },
      onRequest: (info) => calls.push(info.attempts),
    });
    expect(await failure(http.get('/v2/auth'))).toMatchObject({ kind: 'UNAVAILABLE', code: 'ECONNREFUSED', retryable: true });
    expect(calls).toEqual([2]);
    await real.close();
  });

  it('keeps connections alive across calls on the shared agent', async () => {
    const sockets = new Set<unknown>();
    const base = await listen((req, res) => {
      sockets.add(req.socket);
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
    const real = createAgent();
    const http = createHttpClient({ service: 'markets', baseUrl: `${base}/markets`, agent: real, breaker: false });
    for (let i = 0; i < 6; i++) await http.get('/v0/markets');
    // undici's pool may open a second socket while the first is being released; never one per call.
    expect(sockets.size).toBeLessThanOrEqual(2);
    await real.close();
  });
});

describe('buildQuery', () => {
  it('leaves out undefined, null and empty lists; joins lists with commas; encodes', () => {
    expect(buildQuery({ a: undefined, b: null, c: [], d: ['x', 'y z'], e: 0, f: false })).toBe('?d=x%2Cy+z&e=0&f=false');
    expect(buildQuery({})).toBe('');
    expect(buildQuery({ filters: JSON.stringify({ prediction: { status: ['open'] } }) })).toBe(
      '?filters=%7B%22prediction%22%3A%7B%22status%22%3A%5B%22open%22%5D%7D%7D',
    );
  });

  it('encodes every name and value exactly as URLSearchParams does (space as +, !\'()~ escaped, a lone surrogate as U+FFFD)', () => {
    const asURLSearchParams = (value: string) => `?k=${new URLSearchParams({ k: value }).toString().slice(2)}`;
    for (let code = 0; code < 0x3000; code++) {
      const value = `${String.fromCharCode(code)}z`;
      expect(buildQuery({ k: value }), `U+${code.toString(16)}`).toBe(asURLSearchParams(value));
    }
    for (const value of ["x!'()~*-._", 'a&b=c?d#e/f+g%h', 'é€😀', '\ud800x', 'solana:So11111111111111111111111111111111111111112']) {
      expect(buildQuery({ k: value })).toBe(asURLSearchParams(value));
    }
    expect(buildQuery({ 'k y': 'v' })).toBe(`?${new URLSearchParams({ 'k y': 'v' }).toString()}`);
  });
});

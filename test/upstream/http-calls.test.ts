import { describe, expect, it } from 'vitest';
import type { MockAgent } from 'undici';
import { path, retryAfter, UpstreamError } from '../../src/upstream/http.js';
import { headersOf, lastCall, ORIGIN, testClient, useMockAgent } from './helpers.js';
import { failure } from './helpers.js';

let agent: MockAgent;
useMockAgent((created) => (agent = created));

const pool = () => agent.get(ORIGIN);
const anyPath = () => true;

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

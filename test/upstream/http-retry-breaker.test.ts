import { describe, expect, it, vi } from 'vitest';
import type { MockAgent } from 'undici';
import { ORIGIN, testClient, useMockAgent } from './helpers.js';
import { failure } from './helpers.js';

let agent: MockAgent;
useMockAgent((created) => (agent = created));

const pool = () => agent.get(ORIGIN);
const anyPath = () => true;

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

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAgent, createHttpClient, type BreakerOptions } from '../../src/upstream/http.js';
import { CallBudget, OperationDeadline, UpstreamLedger } from '../../src/operation/index.js';
import { failure } from './helpers.js';

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

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ seed: 42 });
});
afterEach(() => {
  sim.controls.reset();
  sim.controls.setRandom(Math.random);
});
afterAll(async () => {
  await sim?.close();
});

async function timed(url: string, init?: RequestInit): Promise<{ status: number; ms: number; res: Response }> {
  const t0 = performance.now();
  const res = await fetch(url, init);
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - t0, res };
}

async function control(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(`${sim.url}/__sim${path}`, {
    method,
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

describe('latency', () => {
  // A delay is checked on the wire as a lower bound (a timer never fires early); which requests are
  // left alone, and which setting wins, are read from `delayFor` rather than from a wall clock.
  it('delays a whole service by a fixed amount, leaving the others alone', async () => {
    sim.controls.setLatency({ service: 'assets' }, { fixedMs: 250 });
    const slow = await timed(`${sim.urls.assets}/v0/assets/stock:AAPL`);
    expect(slow.status).toBe(200);
    expect(slow.ms).toBeGreaterThanOrEqual(240);
    expect(sim.controls.delayFor('assets', 'GET /v0/assets/:id')).toBe(250);
    expect(sim.controls.delayFor('markets', 'GET /v0/markets')).toBe(0);
    sim.controls.setLatency({ service: 'assets' }, null);
    expect(sim.controls.delayFor('assets', 'GET /v0/assets/:id')).toBe(0);
  });

  it('delays one route only; a route setting wins over the service setting', async () => {
    sim.controls.setLatency({ service: 'assets', route: 'GET /v0/search' }, { fixedMs: 200 });
    expect((await timed(`${sim.urls.assets}/v0/search?q=sol`)).ms).toBeGreaterThanOrEqual(190);
    expect(sim.controls.delayFor('assets', 'GET /v0/assets/:id')).toBe(0);
    sim.controls.setLatency({ service: 'assets' }, { fixedMs: 400 });
    expect(sim.controls.delayFor('assets', 'GET /v0/search')).toBe(200);
    expect(sim.controls.delayFor('assets', 'GET /v0/assets/:id')).toBe(400);
  });

  it('adds jitter up to jitterMs', () => {
    sim.controls.setLatency({ service: 'alerts' }, { fixedMs: 40, jitterMs: 10 });
    sim.controls.setRandom(() => 0.5);
    expect(sim.controls.delayFor('alerts', 'GET /v2/auth')).toBe(45);
  });
});

describe('faults', () => {
  it('answers a configured status on one route, with Retry-After when asked', async () => {
    sim.controls.setFault({ service: 'markets', route: 'GET /v0/markets' }, { status: 503 });
    const r = await fetch(`${sim.urls.markets}/v0/markets`);
    expect(r.status).toBe(503);
    expect(await r.json()).toEqual({ error: 'simulated fault' });
    expect((await fetch(`${sim.urls.markets}/v0/positions/owners?walletAddresses=x`)).status).toBe(200);

    sim.controls.setFault({ service: 'assets' }, { status: 429, retryAfterSeconds: 7, body: '<html>slow down</html>' });
    const limited = await fetch(`${sim.urls.assets}/v0/search?q=sol`);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(await limited.text()).toBe('<html>slow down</html>');
  });

  it('fires at the configured rate', async () => {
    sim.controls.setFault({ service: 'assets', route: 'GET /v0/assets/:id' }, { status: 500, rate: 0.3 });
    sim.controls.setRandom(() => 0.5);
    expect((await fetch(`${sim.urls.assets}/v0/assets/stock:AAPL`)).status).toBe(200);
    sim.controls.setRandom(() => 0.1);
    expect((await fetch(`${sim.urls.assets}/v0/assets/stock:AAPL`)).status).toBe(500);

    let failures = 0;
    let n = 0;
    sim.controls.setRandom(() => [0.05, 0.25, 0.45, 0.65, 0.85][n++ % 5]!);
    for (let i = 0; i < 10; i++) if ((await fetch(`${sim.urls.assets}/v0/assets/stock:AAPL`)).status === 500) failures++;
    expect(failures).toBe(4);
  });

  it('hangs until the client gives up', async () => {
    sim.controls.setFault({ service: 'markets' }, { hang: true });
    const t0 = performance.now();
    await expect(fetch(`${sim.urls.markets}/v0/markets`, { signal: AbortSignal.timeout(300) })).rejects.toThrow();
    expect(performance.now() - t0).toBeGreaterThanOrEqual(280);
    sim.controls.setFault({ service: 'markets' }, null);
    expect((await fetch(`${sim.urls.markets}/v0/markets?limit=1`)).status).toBe(200);
  });
});

describe('counts and header log', () => {
  it('counts requests per route pattern, unmatched paths included', async () => {
    sim.controls.resetCounts();
    await fetch(`${sim.urls.assets}/v0/assets/stock:AAPL`);
    await fetch(`${sim.urls.assets}/v0/assets/${encodeURIComponent('bitcoin:native')}`);
    await fetch(`${sim.urls.assets}/v0/assets/stock:AAPL/history?from=2026-01-01T00:00:00Z&to=2026-01-01T02:00:00Z`);
    await fetch(`${sim.urls.markets}/v0/markets?limit=1`);
    await fetch(`${sim.urls.markets}/v0/nowhere`);
    expect(sim.controls.count('assets', 'GET /v0/assets/:id')).toBe(2);
    expect(sim.controls.count('assets', 'GET /v0/assets/:id/history')).toBe(1);
    expect(sim.controls.count('assets')).toBe(3);
    expect(sim.controls.count('markets', 'GET /v0/markets')).toBe(1);
    expect(sim.controls.count('markets', 'GET /v0/nowhere')).toBe(1);
    expect(sim.controls.counts()).toMatchObject({ 'assets GET /v0/assets/:id': 2, 'markets GET /v0/markets': 1 });
  });

  it('logs the headers each request carried', async () => {
    sim.controls.resetCounts();
    await fetch(`${sim.urls.markets}/v0/positions/owners?walletAddresses=abc`, { headers: { 'X-Service-Client-Key': 'sck_logged', 'X-Request-Id': 'r-1' } });
    await fetch(`${sim.urls.assets}/v0/search?q=sol`);
    const log = sim.controls.headerLog({ service: 'markets' });
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ service: 'markets', route: 'GET /v0/positions/owners', method: 'GET', path: '/v0/positions/owners' });
    expect(log[0]!.headers['x-service-client-key']).toBe('sck_logged');
    expect(log[0]!.headers['x-request-id']).toBe('r-1');
    expect(sim.controls.headerLog({ route: 'GET /v0/search' })).toHaveLength(1);
    expect(sim.controls.headerLog()).toHaveLength(2);
  });
});

describe('/__sim control path', () => {
  it('sets latency and faults, reports state, counts and headers, and resets', async () => {
    const lat = await control('POST', '/latency', { target: { service: 'assets', route: 'GET /v0/search' }, latency: { fixedMs: 150 } });
    expect(lat.status).toBe(200);
    expect(lat.body.latency).toEqual({ 'assets GET /v0/search': { fixedMs: 150 } });
    expect((await timed(`${sim.urls.assets}/v0/search?q=sol`)).ms).toBeGreaterThanOrEqual(140);

    const fault = await control('POST', '/fault', { target: { service: 'markets' }, fault: { status: 502 } });
    expect(fault.status).toBe(200);
    expect(fault.body.faults).toEqual({ markets: { status: 502 } });
    expect((await fetch(`${sim.urls.markets}/v0/markets`)).status).toBe(502);

    const state = await control('GET', '/state');
    expect(state.body).toMatchObject({ latency: { 'assets GET /v0/search': { fixedMs: 150 } }, faults: { markets: { status: 502 } } });
    expect(state.body.counts['assets GET /v0/search']).toBe(1);
    expect((await control('GET', '/requests')).body).toMatchObject({ 'assets GET /v0/search': 1, 'markets GET /v0/markets': 1 });
    const headers = await control('GET', '/headers');
    expect(headers.body.map((h: { route: string }) => h.route)).toEqual(['GET /v0/search', 'GET /v0/markets']);

    // Clearing one setting with null.
    expect((await control('POST', '/fault', { target: { service: 'markets' }, fault: null })).body.faults).toEqual({});
    expect((await fetch(`${sim.urls.markets}/v0/markets?limit=1`)).status).toBe(200);

    expect((await control('POST', '/reset')).status).toBe(200);
    expect((await control('GET', '/state')).body).toEqual({ latency: {}, faults: {}, counts: {} });
    expect(sim.controls.delayFor('assets', 'GET /v0/search')).toBe(0);
  });

  it('rejects bad targets, bad JSON and unknown control paths', async () => {
    expect((await control('POST', '/latency', { target: { service: 'weather' }, latency: { fixedMs: 1 } })).status).toBe(400);
    expect((await control('POST', '/fault', { fault: { status: 500 } })).status).toBe(400);
    expect((await control('POST', '/fault', '{oops')).status).toBe(400);
    expect((await control('GET', '/nothing')).status).toBe(404);
    expect((await control('GET', '/reset')).status).toBe(404);
  });
});

describe('routing', () => {
  it('answers 404 for an unknown service prefix and 405 for a wrong method', async () => {
    const r = await fetch(`${sim.url}/weather/v0/forecast`);
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'not found' });
    const m = await fetch(`${sim.urls.markets}/v0/markets`, { method: 'POST', body: '{}' });
    expect(m.status).toBe(405);
    expect(m.headers.get('allow')).toBe('GET');
  });
});

describe('fixtures for a load generator in another process', () => {
  it('lists every subscriber with a token the alerts service accepts, and its position count', async () => {
    const { status, body } = await control('GET', '/subscribers');
    expect(status).toBe(200);
    expect(body.clientKey).toBe(sim.alerts.demo.clientKey);
    expect(body.subscribers).toHaveLength(sim.alerts.subscribers.size);
    expect(body.subscribers[0]).toEqual({
      walletAddress: sim.alerts.demo.walletAddress,
      token: sim.alerts.demo.token,
      positions: sim.world.positionsByOwner.get(sim.alerts.demo.walletAddress)!.length,
    });
    for (const { token, walletAddress } of body.subscribers.slice(0, 20)) {
      const auth = await fetch(`${sim.urls.alerts}/v2/auth`, { headers: { authorization: `Bearer ${token}`, 'x-service-client-key': body.clientKey } });
      expect(await auth.json()).toEqual({ walletAddress });
    }
  });

  it('lists every wallet, the most positions first', async () => {
    const { status, body } = await control('GET', '/wallets');
    expect(status).toBe(200);
    expect(body.wallets).toHaveLength(sim.world.wallets.length);
    const largest = Math.max(...[...sim.world.positionsByOwner.values()].map((p) => p.length));
    expect(body.wallets[0].positions).toBe(largest);
    expect(sim.world.positionsByOwner.get(body.wallets[0].address)).toHaveLength(largest);
    const counts = body.wallets.map((w: { positions: number }) => w.positions);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestGateway, type TestGateway } from './helpers/gateway.js';

interface ReadyBody {
  status: string;
  upstreams: Record<string, { breaker: string; lastSuccessAt: string | null }>;
}

describe('readiness with upstream health', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    // Breakers on (the test helper turns them off by default), opening after a few failures.
    gw = await startTestGateway({ upstream: { breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 60_000 } } });
  });
  afterAll(() => gw.close());

  const get = (path: string) => gw.app.yoga.fetch(`http://gateway.test${path}`);
  const ready = async () => {
    const response = await get('/ready');
    return { status: response.status, body: (await response.json()) as ReadyBody };
  };
  const metrics = async () => (await get('/metrics')).text();

  it('is 200 once started and reports each upstream: breaker closed, the last success of those called', async () => {
    const { status, body } = await ready();
    expect(status).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.keys(body.upstreams).sort()).toEqual(['alerts', 'assets', 'markets']);
    for (const upstream of Object.values(body.upstreams)) expect(upstream.breaker).toBe('closed');
    // The market index was built from the markets service at start; nothing has called alerts yet.
    const marketsAt = body.upstreams['markets']!.lastSuccessAt;
    expect(marketsAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(body.upstreams['alerts']!.lastSuccessAt).toBeNull();

    const text = await metrics();
    expect(text).toContain('gateway_upstream_breaker_state{service="markets"} 0');
    expect(text).toContain(`gateway_upstream_last_success_timestamp_seconds{service="markets"} ${Date.parse(marketsAt!) / 1000}`);
    expect(text).toContain('gateway_upstream_last_success_timestamp_seconds{service="alerts"} 0');
  });

  it('stays 200 when an upstream breaker opens, and says so in the body and the gauge', async () => {
    const before = (await ready()).body.upstreams['assets']!.lastSuccessAt;
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    try {
      let body = (await ready()).body;
      for (let i = 0; i < 30 && body.upstreams['assets']!.breaker !== 'open'; i++) {
        await gw.execute(`{ searchAssets(query: "sol${i}", first: 1) { edges { node { assetId } } } }`);
        body = (await ready()).body;
      }
      const { status } = await ready();
      expect(status).toBe(200);
      expect(body.upstreams['assets']).toEqual({ breaker: 'open', lastSuccessAt: before });
      expect(body.upstreams['markets']!.breaker).toBe('closed');
      expect(await metrics()).toContain('gateway_upstream_breaker_state{service="assets"} 2');
    } finally {
      gw.sim.controls.setFault({ service: 'assets' }, null);
    }
  });

  it('is 503 while starting and while draining, with the phase in the body', async () => {
    try {
      gw.app.setPhase('starting');
      expect(await ready()).toMatchObject({ status: 503, body: { status: 'starting' } });
      gw.app.setPhase('draining');
      expect(await ready()).toMatchObject({ status: 503, body: { status: 'draining' } });
    } finally {
      gw.app.setPhase('ready');
    }
    expect((await ready()).status).toBe(200);
  });
});

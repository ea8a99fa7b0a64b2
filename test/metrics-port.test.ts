import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startSimulator, type Simulator } from '../src/simulator/index.js';
import { freePort, startGatewayProcess, stopProcess, untilGatewayReady, type StartedProcess } from './helpers/processes.js';

/** `/metrics` apart: a real gateway process with METRICS_PORT serves it there, and not on its public port. */
describe('METRICS_PORT', () => {
  let sim: Simulator;
  let gateway: StartedProcess;
  let url: string;
  let metricsUrl: string;

  beforeAll(async () => {
    sim = await startSimulator({ seed: 42 });
    const metricsPort = await freePort();
    ({ url, process: gateway } = await startGatewayProcess(sim.urls, { METRICS_PORT: String(metricsPort) }));
    metricsUrl = `http://127.0.0.1:${metricsPort}`;
    await untilGatewayReady(url);
  }, 60_000);
  afterAll(async () => {
    await stopProcess(gateway?.child);
    await sim?.close();
  });

  it('serves /metrics on its own port, with the gateway metrics counted on the public one', async () => {
    await fetch(`${url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
    const response = await fetch(`${metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(text).toMatch(/^graphql_yoga_http_duration_count\{.*\} [1-9]/m);
    expect(text).toContain('# TYPE gateway_upstream_requests_total counter');
  });

  it('answers 404 for /metrics on the public port, and for anything but GET /metrics on its own', async () => {
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/graphql`)).status).toBe(404);
    expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST' })).status).toBe(404);
    // The public port serves the rest as before.
    expect((await fetch(`${url}/health`)).status).toBe(200);
  });

  it('is read from the environment: a port other than PORT, or unset (then /metrics is on PORT)', () => {
    expect(loadConfig({}).metricsPort).toBeNull();
    expect(loadConfig({ METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ PORT: '4000', METRICS_PORT: '4000' })).toThrow('METRICS_PORT: must differ from PORT (4000)');
    expect(() => loadConfig({ METRICS_PORT: '0' })).toThrow(/^METRICS_PORT: must be a whole number from 1 to 65535$/);
    expect(() => loadConfig({ METRICS_PORT: 'nine' })).toThrow(/^METRICS_PORT/);
  });
});

import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { startTestGateway, useTestGateway } from './helpers/gateway.js';

// Wallet -> positions -> owner -> positions ... 18 levels deep, past the limit of 12.
const tooDeep = `{ wallet(address: "x") { ${'positions { edges { node { owner { '.repeat(4)}address${' } } } }'.repeat(4)} } }`;

describe('HTTP surface', () => {
  const gw = useTestGateway();

  const get = (path: string, headers: Record<string, string> = {}) => gw.app.yoga.fetch(`http://gateway.test${path}`, { headers });

  it('answers liveness on /health', async () => {
    expect((await get('/health')).status).toBe(200);
  });

  it('answers readiness on /ready, and 503 while draining', async () => {
    expect((await get('/ready')).status).toBe(200);
    gw.app.setDraining(true);
    try {
      expect((await get('/ready')).status).toBe(503);
    } finally {
      gw.app.setDraining(false);
    }
  });

  it('serves Prometheus metrics, upstream calls included', async () => {
    await gw.execute('{ markets(first: 1) { edges { node { marketId } } } }');
    const response = await get('/metrics');
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain('graphql_yoga_http_duration');
    expect(text).toMatch(/gateway_upstream_requests_total\{service="markets",route="GET \/v0\/markets",status="200"\} \d+/);
  });

  it('shows GraphiQL to a browser in development', async () => {
    const response = await get('/graphql', { accept: 'text/html' });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('GraphiQL');
  });

  it('refuses a mutation sent by GET', async () => {
    const response = await get(`/graphql?query=${encodeURIComponent('mutation { markNotificationsRead(input: {}) { userErrors { code } } }')}`, {
      accept: 'application/json',
    });
    expect(response.status).toBe(405);
  });

  it('rejects an over-deep query with QUERY_TOO_COMPLEX', async () => {
    const result = await gw.execute(tooDeep);
    expect(result.data ?? null).toBeNull();
    expect(result.errors?.[0]?.extensions?.['code']).toBe('QUERY_TOO_COMPLEX');
  });

  it('never shows a stack or upstream URL in an error', async () => {
    gw.sim.controls.setFault({ service: 'markets' }, { status: 500, body: '<html>proxy error at http://10.0.0.7</html>' });
    try {
      const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        // apyHistory reads the markets service per request (the listing itself is served from the index).
        body: JSON.stringify({
          query: `{ market(id: ${JSON.stringify(gw.sim.world.markets[0]!.id)}) { apyHistory(from: "2025-11-01T00:00:00Z") { timestamp } } }`,
        }),
      });
      const text = await response.text();
      expect(text).not.toContain('10.0.0.7');
      expect(text).not.toContain(gw.sim.url);
      expect(text).not.toMatch(/at .*\.ts:\d+/);
      expect(JSON.parse(text).errors[0].extensions.code).toBe('UPSTREAM_UNAVAILABLE');
    } finally {
      gw.sim.controls.reset();
    }
  });
});

describe('production mode', () => {
  const gw = useTestGateway({ config: { production: true } });

  it('turns introspection off', async () => {
    const result = await gw.execute('{ __schema { queryType { name } } }');
    expect(result.errors?.length).toBeGreaterThan(0);
    expect(result.data ?? null).toBeNull();
  });

  it('serves no GraphiQL', async () => {
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
    expect(await response.text()).not.toContain('GraphiQL');
  });

  it('gives no field suggestions', async () => {
    const result = await gw.execute('{ marketz { edges { cursor } } }');
    expect(result.errors?.[0]?.message).not.toMatch(/Did you mean/);
  });
});

describe('GraphiQL defaults', () => {
  it('opens with the example operation and the demo headers filled in', async () => {
    const gw = await startTestGateway();
    try {
      const app = createApp({
        config: gw.config,
        services: gw.services,
        graphiql: { defaultQuery: 'query Home { __typename }', headers: { Authorization: 'Bearer demo-token-xyz' } },
      });
      const html = await (await app.yoga.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } })).text();
      expect(html).toContain('query Home');
      expect(html).toContain('demo-token-xyz');
    } finally {
      await gw.close();
    }
  });
});

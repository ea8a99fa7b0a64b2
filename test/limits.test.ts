import { describe, expect, it } from 'vitest';
import { useTestGateway } from './helpers/gateway.js';

const encode = (s: string) => Buffer.from(s).toString('base64');

describe('limits a single request cannot get past', () => {
  const gw = useTestGateway({ config: { upstreamCallBudget: 20 }, resetControls: true });

  it('refuses nodes(ids:) over 100 ids before any call', async () => {
    const ids = Array.from({ length: 101 }, (_, i) => encode(`Asset:solana:${'1'.repeat(32)}${i}`));
    const result = await gw.execute('query($ids: [ID!]!) { nodes(ids: $ids) { id } }', { ids });
    expect(result.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toMatch(/at most 100/);
    expect(gw.sim.controls.count('assets')).toBe(0);
  });

  it('stops an operation at its budget of upstream calls, with QUERY_TOO_COMPLEX on the fields past it', async () => {
    const addresses = gw.sim.world.wallets.slice(0, 30).map((w) => w.address);
    const result = await gw.execute('query($a: [String!]!) { wallets(addresses: $a) { address totalValueUsd } }', { a: addresses });
    expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(20);
    const wallets = result.data!.wallets as { address: string; totalValueUsd: number | null }[];
    expect(wallets.filter((w) => w.totalValueUsd !== null)).toHaveLength(20);
    expect(result.errors).toHaveLength(10);
    for (const error of result.errors!) expect(error.extensions?.['code']).toBe('QUERY_TOO_COMPLEX');
  });

  it('gives each operation its own budget', async () => {
    const addresses = gw.sim.world.wallets.slice(0, 15).map((w) => w.address);
    const query = 'query($a: [String!]!) { wallets(addresses: $a) { totalValueUsd } }';
    const [first, second] = await Promise.all([gw.execute(query, { a: addresses }), gw.execute(query, { a: addresses })]);
    expect(first.errors).toBeUndefined();
    expect(second.errors).toBeUndefined();
  });
});

describe('history windows', () => {
  const gw = useTestGateway({ resetControls: true });

  it('refuses an apyHistory of more than 2,000 points per market before any call', async () => {
    const marketId = gw.sim.world.markets.find((m) => m.type === 'lending')!.id;
    const result = await gw.execute(
      'query($id: String!) { market(id: $id) { apyHistory(from: "2025-10-08T00:00:00Z", resolution: ONE_HOUR) { timestamp } } }',
      { id: marketId },
    );
    expect(result.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toMatch(/at most 2000/);
    expect(gw.sim.controls.count('markets', 'GET /v0/markets/history')).toBe(0);
  });

  it('refuses a price history that starts in the future before any call', async () => {
    const result = await gw.execute('{ asset(id: "bitcoin:native") { priceHistory(from: "9000-01-01T00:00:00Z") { totalCount } } }');
    expect(result.errors?.[0]?.extensions?.['code']).toBe('BAD_USER_INPUT');
    expect(result.errors?.[0]?.message).toMatch(/future/);
    expect(gw.sim.controls.count('assets', 'GET /v0/assets/:id/history')).toBe(0);
  });
});

describe('nodes(ids:) keeps what it can', () => {
  const gw = useTestGateway({ resetControls: true });

  it('nulls only the failing slot when an upstream fails, and keeps the rest of the response', async () => {
    const wallet = encode(`Wallet:${gw.sim.world.demoWallets[0]}`);
    const asset = encode('Asset:ethereum:0x0000000000000000000000000000000000000001');
    gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const result = await gw.execute(
      'query($ids: [ID!]!) { nodes(ids: $ids) { __typename id } markets(first: 1) { edges { node { marketId } } } }',
      { ids: [wallet, asset, 'garbage!!', ''] },
    );
    expect(result.data!.nodes[0]).toEqual({ __typename: 'Wallet', id: wallet });
    expect(result.data!.nodes.slice(1)).toEqual([null, null, null]);
    expect(result.data!.markets.edges).toHaveLength(1);
    expect(result.errors).toHaveLength(1);
    expect(result.errors![0]).toMatchObject({ path: ['nodes', 1], extensions: { code: 'UPSTREAM_UNAVAILABLE' } });
  });

  it('answers null for a malformed id, without echoing it', async () => {
    const result = await gw.execute('query($id: ID!) { node(id: $id) { id } }', { id: '<script>alert(1)</script>' });
    expect(result.errors).toBeUndefined();
    expect(result.data!.node).toBeNull();
  });
});

describe('what never leaves the gateway', () => {
  const gw = useTestGateway({ config: { production: true } });

  it('does not pass on an upstream refusal text, which may carry internals', async () => {
    gw.sim.controls.setFault({ service: 'assets', route: 'GET /v0/search' }, { status: 400, body: '{"error":"SELECT * FROM assets at db.internal:5432"}' });
    try {
      const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ searchAssets(query: "sol") { edges { node { assetId } } } }' }),
      });
      const text = await response.text();
      expect(text).not.toContain('db.internal');
      expect(text).not.toContain('SELECT');
      expect(JSON.parse(text).errors[0].extensions.code).toBe('BAD_USER_INPUT');
    } finally {
      gw.sim.controls.reset();
    }
  });

  it('keeps caller-chosen operation names and aliases out of the metrics', async () => {
    await gw.execute('query CallerChosenName1234 { weirdAlias987: markets(first: 1) { edges { cursor } } }');
    const metrics = await (await gw.app.yoga.fetch('http://gateway.test/metrics')).text();
    expect(metrics).toContain('graphql_yoga_http_duration');
    expect(metrics).not.toContain('CallerChosenName1234');
    expect(metrics).not.toContain('weirdAlias987');
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import { createLogger } from '../../src/logger.js';
import { createServices } from '../../src/services.js';
import { startTestGateway, totalCalls, type TestGateway } from '../helpers/gateway.js';

/** Not on Solana: no market listing carries a token record of it, so nothing stands in for it. */
const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const HISTORY = { service: 'markets', route: 'GET /v0/positions/history' } as const;
const POSITIONS = 'GET /v0/positions/owners';
const ASSET_ROUTE = 'GET /v0/assets/:id';

const WALLET_SCREEN = `query($address: String!, $from: DateTime!) {
  wallet(address: $address) {
    address
    totalValueUsd
    valueHistory(from: $from, resolution: ONE_DAY) { timestamp valueUsd }
  }
}`;

/**
 * The deadline of the tests where the rest of the screen must arrive before it: generous, so that a
 * loaded machine still answers the calls that do not hang within it.
 */
const DEADLINE_MS = 1_500;

const deadlineError = (path: (string | number)[]) => ({
  path,
  extensions: { code: 'UPSTREAM_UNAVAILABLE', reason: 'DEADLINE', retryable: true, upstream: 'markets' },
});

describe('X-Request-Timeout-Ms: a deadline, and a partial answer at it', () => {
  let gw: TestGateway;
  const variables = () => ({ address: gw.sim.world.demoWallets[0]!, from: new Date(Date.now() - 3 * 86_400_000).toISOString() });

  // The upstream's own deadline is a minute: only the operation's deadline can end these tests in time.
  beforeAll(async () => {
    gw = await startTestGateway({ config: { upstreamTimeoutMs: 60_000, assetsTimeoutMs: 60_000 } });
  });
  afterAll(() => gw.close());
  afterEach(() => gw.sim.controls.reset());

  it('sends what resolved, and nulls the field still waiting with reason DEADLINE', async () => {
    gw.sim.controls.setFault(HISTORY, { hang: true });
    const res = await gw.execute(WALLET_SCREEN, variables(), { 'x-request-timeout-ms': String(DEADLINE_MS) });

    expect(res.status).toBe(200);
    expect(res.data!['wallet'].address).toBe(variables().address);
    expect(typeof res.data!['wallet'].totalValueUsd).toBe('number');
    expect(res.data!['wallet'].valueHistory).toBeNull();
    expect(res.errors).toEqual([expect.objectContaining(deadlineError(['wallet', 'valueHistory']))]);
    expect(gw.sim.controls.count('markets', POSITIONS)).toBe(1);
    expect(gw.sim.controls.count('markets', HISTORY.route)).toBe(1);
  });

  it('caps the deadline a client sends at REQUEST_TIMEOUT_MAX_MS', async () => {
    const capped = await startTestGateway({ sim: gw.sim, config: { upstreamTimeoutMs: 60_000, requestTimeoutMaxMs: DEADLINE_MS } });
    try {
      gw.sim.controls.setFault(HISTORY, { hang: true });
      // Ten minutes asked for; the test's own five-second limit fails unless the cap holds.
      const res = await capped.execute(WALLET_SCREEN, variables(), { 'x-request-timeout-ms': '600000' });
      expect(res.data!['wallet'].valueHistory).toBeNull();
      expect(res.errors).toEqual([expect.objectContaining(deadlineError(['wallet', 'valueHistory']))]);
    } finally {
      await capped.close();
    }
  });

  it('applies REQUEST_TIMEOUT_DEFAULT_MS when the client sends none', async () => {
    const short = await startTestGateway({ sim: gw.sim, config: { upstreamTimeoutMs: 60_000, requestTimeoutDefaultMs: DEADLINE_MS } });
    try {
      gw.sim.controls.setFault(HISTORY, { hang: true });
      const res = await short.execute(WALLET_SCREEN, variables());
      expect(typeof res.data!['wallet'].totalValueUsd).toBe('number');
      expect(res.errors).toEqual([expect.objectContaining(deadlineError(['wallet', 'valueHistory']))]);
    } finally {
      await short.close();
    }
  });

  it('stops waiting on a shared asset fetch at its own deadline, without ending the fetch for the others', async () => {
    // A slow (not failing) assets service: the one call both requests need answers after a while.
    gw.sim.controls.setLatency({ service: 'assets', route: ASSET_ROUTE }, { fixedMs: 2_500 });
    const query = `query($id: String!) { asset(id: $id) { assetId name metadataSource } }`;
    let patientDone = false;
    const hurried = gw.execute(query, { id: ETH }, { 'x-request-timeout-ms': '200' });
    const patient = gw.execute(query, { id: ETH }).finally(() => (patientDone = true));

    const first = await hurried;
    // The hurried answer came while the one upstream call the patient request waits on was still unanswered.
    expect(patientDone).toBe(false);
    expect(first.data!['asset']).toBeNull();
    expect(first.errors).toEqual([
      expect.objectContaining({ path: ['asset'], extensions: expect.objectContaining({ code: 'UPSTREAM_UNAVAILABLE', reason: 'DEADLINE', upstream: 'assets' }) }),
    ]);

    const second = await patient;
    expect(second.errors).toBeUndefined();
    expect(second.data!['asset']).toMatchObject({ assetId: ETH, metadataSource: 'PRIMARY' });
    expect(gw.sim.controls.count('assets', ASSET_ROUTE)).toBe(1);
  });

  it("stops waiting on the market index's first read at its deadline; the read goes on", async () => {
    // Services not started: the index is built by the first request that needs it, and the listing hangs.
    const services = createServices({ config: gw.config, urls: gw.sim.urls, logger: createLogger({ logLevel: 'silent' }), upstream: { breaker: false } });
    const app = createApp({ config: gw.config, services });
    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/markets' }, { hang: true });
    try {
      const response = await app.yoga.fetch('http://gateway.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-timeout-ms': '300' },
        body: JSON.stringify({ query: '{ markets(first: 2) { edges { node { marketId } } } }' }),
      });
      const body = (await response.json()) as { data: any; errors: any[] };
      expect(body.data).toEqual({ markets: null });
      expect(body.errors).toEqual([expect.objectContaining(deadlineError(['markets']))]);
      // The shared read is still waiting for its answer, for whoever asks next.
      expect(services.marketIndex.info().refreshing).toBe(true);
      expect(gw.sim.controls.count('markets', 'GET /v0/markets')).toBe(1);
    } finally {
      await services.close();
    }
  });

  it('cuts a deferred part at the deadline too, after sending the rest at once', async () => {
    gw.sim.controls.setFault(HISTORY, { hang: true });
    const response = await gw.app.yoga.fetch('http://gateway.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-request-timeout-ms': String(DEADLINE_MS) },
      body: JSON.stringify({
        query: `query($address: String!, $from: DateTime!) {
          wallet(address: $address) { address ... @defer { valueHistory(from: $from, resolution: ONE_DAY) { valueUsd } } }
        }`,
        variables: variables(),
      }),
    });
    // Server-sent events: one `next` event per part.
    const parts = (await response.text())
      .split('\n\n')
      .filter((event) => event.startsWith('event: next'))
      .map((event) => JSON.parse(event.slice(event.indexOf('data: ') + 6)) as { data?: any; incremental?: any[]; hasNext: boolean });
    expect(parts[0]!.data.wallet).toEqual({ address: variables().address });
    expect(parts[0]!.hasNext).toBe(true);
    const deferred = parts.slice(1).flatMap((p) => p.incremental ?? []);
    expect(deferred).toEqual([expect.objectContaining({ path: ['wallet'], errors: [expect.objectContaining(deadlineError(['wallet', 'valueHistory']))] })]);
    expect(parts.at(-1)!.hasNext).toBe(false);
  });

  it.each(['abc', '0', '-5', '1.5', '10s', ''])('refuses X-Request-Timeout-Ms: %j with 400 BAD_USER_INPUT and no upstream call', async (value) => {
    const res = await gw.execute(WALLET_SCREEN, variables(), { 'x-request-timeout-ms': value });
    expect(res.status).toBe(400);
    expect(res.data).toBeUndefined();
    expect(res.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'BAD_USER_INPUT', field: 'X-Request-Timeout-Ms' }) }),
    ]);
    expect(totalCalls(gw)).toBe(0);
  });

  it('refuses a bad X-Request-Timeout-Ms even when the response cache holds the answer', async () => {
    const cached = await startTestGateway({ sim: gw.sim, config: { responseCache: true } });
    try {
      const page = '{ markets(first: 2) { edges { node { marketId } } } }';
      expect((await cached.execute(page)).errors).toBeUndefined();
      const refused = await cached.execute(page, {}, { 'x-request-timeout-ms': 'soon' });
      expect(refused.status).toBe(400);
      expect(refused.data).toBeUndefined();
      expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'BAD_USER_INPUT', field: 'X-Request-Timeout-Ms' });
    } finally {
      await cached.close();
    }
  });

  it('leaves an operation that finishes in time untouched', async () => {
    const res = await gw.execute(WALLET_SCREEN, variables(), { 'x-request-timeout-ms': '20000' });
    expect(res.errors).toBeUndefined();
    expect(Array.isArray(res.data!['wallet'].valueHistory)).toBe(true);
  });
});

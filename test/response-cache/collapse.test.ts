import { describe, expect, it } from 'vitest';
import { operation, startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { useGatewayPerTest } from '../helpers/gateway-per-test.js';

/**
 * Identical operations in flight run once: with the response cache on (no stampede on a cold or
 * expired key) and off (concurrent identical requests share one execution and its upstream calls).
 */
const { sim, start } = useGatewayPerTest();
let gw: TestGateway | undefined;

const WALLET_OP = operation('WalletPositions');

async function executions(gateway: TestGateway): Promise<{ ran: number; shared: number }> {
  const text = await gateway.services.registry.getSingleMetricAsString('gateway_executions_total');
  const read = (shared: string) => Number(new RegExp(`gateway_executions_total\\{shared="${shared}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  return { ran: read('false'), shared: read('true') };
}

for (const responseCache of [true, false]) {
  describe(`50 concurrent identical operations, response cache ${responseCache ? 'on' : 'off'}`, () => {
    it('make the upstream calls of one and answer all 50 alike', async () => {
      gw = await start({ config: { responseCache } });
      const address = gw.sim.alerts.demo.walletAddress;
      // Slow enough upstream that all 50 arrive while the first is still executing.
      sim.controls.setLatency({ service: 'markets' }, { fixedMs: 150 });

      const alone = await startTestGateway({ sim, config: { responseCache: false } });
      sim.controls.resetCounts();
      const single = await alone.execute(WALLET_OP, { address, first: 50 });
      await alone.close();
      expect(single.errors).toBeUndefined();
      const callsOfOne = sim.controls.counts();
      expect(Object.values(callsOfOne).reduce((a, b) => a + b, 0)).toBeGreaterThan(0);

      sim.controls.resetCounts();
      const answers = await Promise.all(Array.from({ length: 50 }, () => gw!.execute(WALLET_OP, { address, first: 50 })));
      expect(sim.controls.counts()).toEqual(callsOfOne);
      // One execution's answer (prices move between the lone run and these, so they are compared among themselves).
      expect(answers[0]!.errors).toBeUndefined();
      expect(answers[0]!.data).toMatchObject({ wallet: { address, positions: { totalCount: single.data!['wallet'].positions.totalCount } } });
      for (const answer of answers) expect(answer).toEqual(answers[0]);
      expect(await executions(gw)).toEqual({ ran: 1, shared: 49 });
    });
  });
}

describe('what never collapses', () => {
  it('different callers of a private operation each run their own', async () => {
    gw = await start({ config: { responseCache: false } });
    sim.controls.setLatency({ service: 'alerts' }, { fixedMs: 100 });
    const query = '{ viewer { id unreadCount } }';
    const others = [...gw.sim.alerts.subscribers.values()].slice(0, 3);
    const headers = others.map((s) => ({ authorization: `Bearer ${s.token}`, 'x-service-client-key': gw!.sim.alerts.demo.clientKey }));
    const answers = await Promise.all(headers.flatMap((h) => [gw!.execute(query, {}, h), gw!.execute(query, {}, h)]));
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    // Each caller's pair shares one execution; no caller shares another's.
    expect(new Set(answers.map((a) => a.data!['viewer'].id)).size).toBe(3);
    for (let i = 0; i < 3; i++) expect(answers[2 * i]).toEqual(answers[2 * i + 1]);
    expect(await executions(gw)).toEqual({ ran: 3, shared: 3 });
  });

  it('the same operation with other variables or another Cache-Control bound runs its own', async () => {
    gw = await start({ config: { responseCache: false } });
    sim.controls.setLatency({ service: 'assets' }, { fixedMs: 100 });
    const query = 'query Search($q: String!) { searchAssets(query: $q, first: 5) { edges { node { assetId } } } }';
    const sent: [Record<string, unknown>, Record<string, string>][] = [
      [{ q: 'sol' }, {}],
      [{ q: 'sol' }, {}],
      [{ q: 'eth' }, {}],
      [{ q: 'sol' }, { 'cache-control': 'max-age=5' }],
    ];
    const answers = await Promise.all(sent.map(([variables, headers]) => gw!.execute(query, variables, headers)));
    for (const answer of answers) expect(answer.errors).toBeUndefined();
    expect(await executions(gw)).toEqual({ ran: 3, shared: 1 });
  });

  it('mutations run every time', async () => {
    gw = await start({ config: { responseCache: false } });
    sim.controls.setLatency({ service: 'alerts' }, { fixedMs: 100 });
    const mutation = 'mutation { markNotificationsRead { userErrors { message } } }';
    sim.controls.resetCounts();
    const answers = await Promise.all(Array.from({ length: 3 }, () => gw!.execute(mutation, {}, gw!.viewerHeaders)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(await executions(gw)).toEqual({ ran: 0, shared: 0 });
  });

  it('a request that asks for the upstream ledger runs its own', async () => {
    gw = await start({ config: { responseCache: false, debugLedger: true } });
    sim.controls.setLatency({ service: 'assets' }, { fixedMs: 100 });
    const query = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId } } } }';
    sim.controls.resetCounts();
    const [plain, ledger] = await Promise.all([gw.execute(query), gw.execute(query, {}, { 'x-gateway-debug': '1' })]);
    expect(plain.errors).toBeUndefined();
    expect(ledger.errors).toBeUndefined();
    // The plain request ran alone (the ledger request runs outside the collapse); their identical search read in flight is one call.
    expect(await executions(gw)).toEqual({ ran: 1, shared: 0 });
    expect(sim.controls.count('assets', 'GET /v0/search')).toBe(1);
  });
});

describe('deadlines of collapsed requests (issue 33 item 4)', () => {
  const SEARCH = '{ searchAssets(query: "sol", first: 5) { edges { node { assetId } } } }';
  const ROUTE = 'GET /v0/search';
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('a follower arriving 850 ms after a leader with the same 1000 ms timeout is not cut short by the leader’s deadline', async () => {
    gw = await start({ config: { responseCache: false } });
    const timeout = { 'x-request-timeout-ms': '1000' };
    // The leader's search outlasts its deadline; by the time the followers ask, the upstream answers at once.
    sim.controls.setLatency({ service: 'assets', route: ROUTE }, { fixedMs: 1_600 });
    const leader = gw.execute(SEARCH, {}, timeout);
    await sleep(850);
    sim.controls.setLatency({ service: 'assets', route: ROUTE }, { fixedMs: 20 });
    const followers = await Promise.all([0, 1, 2].map(() => gw!.execute(SEARCH, {}, timeout)));
    const led = await leader;

    expect(JSON.stringify(led.errors)).toContain('DEADLINE');
    for (const follower of followers) {
      expect(follower.errors).toBeUndefined();
      expect(follower.data!['searchAssets'].edges).toHaveLength(5);
    }
    // The leader's call and one for the followers, who share the first of them to run again.
    expect(sim.controls.count('assets', ROUTE)).toBe(2);
    expect(await executions(gw)).toEqual({ ran: 2, shared: 2 });
  });

  it('a follower with more time than the leader still shares a leader that answered in time', async () => {
    gw = await start({ config: { responseCache: false } });
    sim.controls.setLatency({ service: 'assets', route: ROUTE }, { fixedMs: 200 });
    const leader = gw.execute(SEARCH, {}, { 'x-request-timeout-ms': '5000' });
    const follower = gw.execute(SEARCH, {}, { 'x-request-timeout-ms': '9000' });
    const [a, b] = await Promise.all([leader, follower]);
    expect(a.errors).toBeUndefined();
    expect(b).toEqual(a);
    expect(sim.controls.count('assets', ROUTE)).toBe(1);
    expect(await executions(gw)).toEqual({ ran: 1, shared: 1 });
  });
});

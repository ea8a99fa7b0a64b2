import { describe, expect, it } from 'vitest';
import { ROUTE_BODY_LIMITS } from '../../src/upstream/index.js';
import type { RequestInfo } from '../../src/upstream/index.js';
import { useTestGateway } from '../helpers/gateway.js';

/**
 * Upstream bodies cannot multiply: each route's body is capped at what its contract holds, and the
 * bytes being read at once, all calls together, stay within a process-wide budget. Measured in this
 * process (vitest runs each file in its own process): the peak of RSS over the requests, against
 * the RSS before them.
 */

const MB = 1_000_000;
const HUGE = 30 * MB;

/** Runs `work` while sampling RSS every 5 ms; the peak growth over the RSS before, in MB. */
async function peakGrowthMb<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const measured = await measure(work);
  if (process.env['PRINT_RSS']) console.log(`peak RSS growth ${measured.growthMb.toFixed(1)} MB`);
  return measured;
}

async function measure<T>(work: () => Promise<T>): Promise<{ result: T; growthMb: number }> {
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - before) / MB };
  } finally {
    clearInterval(sampler);
  }
}

describe('upstream bodies', () => {
  const seen: RequestInfo[] = [];
  const gw = useTestGateway({ resetControls: true, upstream: { onRequest: (info) => seen.push(info) } });

  it('39 asset calls in flight, each answered with 30 MB: every request answered 200, RSS bounded', async () => {
    const ids = gw.sim.world.assets.slice(0, 39).map((a) => a.id);
    expect(ids).toHaveLength(39);
    gw.sim.controls.setFault({ service: 'assets', route: 'GET /v0/assets/:id' }, { streamBytes: HUGE });
    seen.length = 0;
    const { result, growthMb } = await peakGrowthMb(() =>
      Promise.all(ids.map((id) => gw.execute(`query ($id: String!) { asset(id: $id) { assetId name } }`, { id }))),
    );
    expect(result.map((r) => r.status)).toEqual(Array(39).fill(200));
    expect(gw.sim.controls.count('assets', 'GET /v0/assets/:id')).toBe(39);
    const assetCalls = seen.filter((i) => i.route === 'GET /v0/assets/{id}');
    expect(assetCalls).toHaveLength(39);
    expect(new Set(assetCalls.map((i) => i.errorCode))).toEqual(new Set(['EBODYTOOLARGE']));
    // 39 × 30 MB was 478-562 MB; the cap reads at most 64 KiB of each.
    expect(ROUTE_BODY_LIMITS['GET /v0/assets/{id}']).toBe(64 * 1024);
    expect(growthMb).toBeLessThan(80);
  });

  it('two concurrent 25-wallet requests whose positions bodies are 30 MB each: answered with field errors, RSS bounded', async () => {
    // Different wallets: the same ones would share their reads in flight.
    const owners = [...gw.sim.world.positionsByOwner.keys()];
    expect(owners.length).toBeGreaterThanOrEqual(50);
    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/positions/owners' }, { streamBytes: HUGE });
    const query = `query ($a: [String!]!) { wallets(addresses: $a) { address totalValueUsd } }`;
    const { result, growthMb } = await peakGrowthMb(() =>
      Promise.all([gw.execute(query, { a: owners.slice(0, 25) }), gw.execute(query, { a: owners.slice(25, 50) })]),
    );
    for (const res of result) {
      expect(res.status).toBe(200);
      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.errors!.every((e) => e.extensions?.['code'] === 'UPSTREAM_UNAVAILABLE')).toBe(true);
    }
    // One wallet a call (POSITIONS_BATCH_SIZE 1): 50 calls of 30 MB was 1.5 GB to read; capped at 1 MiB each.
    expect(gw.sim.controls.count('markets', 'GET /v0/positions/owners')).toBe(50);
    // At most 50 MiB read at once (60-100 MB of RSS seen, with the collector's lag); 325 MB and more before the caps.
    expect(growthMb).toBeLessThan(160);
  });
});

describe('the budget of upstream bytes in flight', () => {
  const seen: RequestInfo[] = [];
  const gw = useTestGateway({
    resetControls: true,
    // 25 wallets a call: each call may read 16 MiB, two of them more than the budget.
    config: { upstreamInflightMaxBytes: 4 * 1024 * 1024, positionsBatchSize: 25 },
    upstream: { onRequest: (info) => seen.push(info) },
  });

  it('past it, calls fail fast as upstream-unavailable field errors; the budget is whole again after', async () => {
    const owners = [...gw.sim.world.positionsByOwner.keys()];
    const wallets = owners.slice(0, 25);
    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/positions/owners' }, { streamBytes: HUGE });
    seen.length = 0;
    const query = `query ($a: [String!]!) { wallets(addresses: $a) { address totalValueUsd } }`;
    // Different wallets: the same ones would share one read in flight.
    const { result: answers, growthMb } = await peakGrowthMb(() =>
      Promise.all([gw.execute(query, { a: wallets }), gw.execute(query, { a: owners.slice(25, 50) })]),
    );
    expect(growthMb).toBeLessThan(80);
    expect(answers.map((r) => r.status)).toEqual([200, 200]);
    const codes = seen.filter((i) => i.route === 'GET /v0/positions/owners').map((i) => i.errorCode);
    expect(codes).toEqual(['EINFLIGHTBYTES', 'EINFLIGHTBYTES']);
    expect(gw.services.upstream.inFlight.used).toBe(0);

    // Healed: the same request is answered whole.
    gw.sim.controls.setFault({ service: 'markets', route: 'GET /v0/positions/owners' }, null);
    const healed = await gw.execute(query, { a: wallets.slice(0, 3) });
    expect(healed.errors).toBeUndefined();
    expect(healed.data!['wallets']).toHaveLength(3);
  });
});

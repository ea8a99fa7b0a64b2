/** MobileHome against the naive REST sequence. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
import type { Simulator } from '../../src/simulator/index.js';
import {
  assertClean,
  countsByService,
  gql,
  ms,
  operation,
  perRequest,
  round,
  runSequential,
  startGateway,
  summarize,
  totalCalls,
  UPSTREAM_MEAN_MS,
  viewerHeaders,
  type GraphQLResult,
  type LatencySummary,
  type ServiceCounts,
  setUpstreamLatency,
  UPSTREAM_LATENCY,
  sumCounts,
} from '../harness.js';
import { naiveMobileHome } from '../naive.js';
import { check, type Check, type ScenarioResult } from './types.js';

// 1. MobileHome against the naive REST sequence

const COLD_SAMPLES = 5;
const WARM_REQUESTS = 40;
const NAIVE_RUNS = 8;
/** Upstream hops on MobileHome's longest branch: auth, then positions, then the positions' tokens (cold only). */
const COLD_BRANCH_HOPS = 3;
const WARM_BRANCH_HOPS = 2;

interface MobileHomeSample {
  ms: number;
  counts: ServiceCounts;
  positions: number;
  /** Distinct tokens the response resolves. */
  k: number;
}

/** The first MobileHome of a fresh replica (empty asset cache; the market index warmed at boot, as in production). */
async function coldMobileHome(sim: Simulator, samples: number): Promise<MobileHomeSample[]> {
  const out: MobileHomeSample[] = [];
  for (let i = 0; i < samples; i++) {
    const gw = await startGateway(sim);
    try {
      const result = await gql(gw.url, operation('MobileHome'), {}, viewerHeaders(sim));
      assertClean('MobileHome (cold)', result);
      out.push({
        ms: result.ms,
        counts: countsByService(sim),
        positions: sim.controls.count('markets', 'GET /v0/positions/owners'),
        k: mobileHomeTokens(sim, result).size,
      });
    } finally {
      await gw.close();
    }
  }
  return out;
}

/** MobileHome again and again on one replica whose caches a first request filled. */
async function warmMobileHome(sim: Simulator, requests: number) {
  const gw = await startGateway(sim);
  try {
    const query = operation('MobileHome');
    const headers = viewerHeaders(sim);
    assertClean('MobileHome (warm-up)', await gql(gw.url, query, {}, headers));
    sim.controls.resetCounts();
    const run = await runSequential(requests, () => gql(gw.url, query, {}, headers));
    run.results.forEach((r) => assertClean('MobileHome (warm)', r));
    return { latency: summarize(run.results.map((r) => r.ms)), counts: countsByService(sim), elapsedMs: run.elapsedMs };
  } finally {
    await gw.close();
  }
}

export async function mobileHome(sim: Simulator): Promise<ScenarioResult> {
  const checks: Check[] = [];

  const naive = await runSequential(NAIVE_RUNS, () => naiveMobileHome(sim));
  const naiveLatency = summarize(naive.results.map((r) => r.ms));
  const roundTrips = naive.results[0]!.roundTrips;

  const cold = await coldMobileHome(sim, COLD_SAMPLES);
  const coldLatency = summarize(cold.map((c) => c.ms));
  const coldCounts = sumCounts(cold.map((c) => c.counts));
  const k = cold[0]!.k;
  const worst = cold.reduce((a, b) => (b.counts.assets - b.k > a.counts.assets - a.k ? b : a));
  checks.push(check('MobileHome cold: asset calls ≤ K distinct tokens', worst.counts.assets <= worst.k, `${worst.counts.assets} asset calls, K = ${worst.k}`));
  checks.push(
    check('MobileHome cold: one positions call for one wallet', cold.every((c) => c.positions <= 1), `${Math.max(...cold.map((c) => c.positions))} positions calls`),
  );

  const warm = await warmMobileHome(sim, WARM_REQUESTS);
  checks.push(check('MobileHome warm: no asset call within the price TTL', warm.counts.assets === 0, `${warm.counts.assets} asset calls over ${WARM_REQUESTS} requests`));

  // The same requests with no upstream latency: what is left is work (gateway and simulator, one process),
  // so the difference is time spent waiting on upstreams, counted in hops of one upstream call.
  setUpstreamLatency(sim, null);
  let computeCold: LatencySummary;
  let computeWarm: LatencySummary;
  try {
    computeCold = summarize((await coldMobileHome(sim, COLD_SAMPLES)).map((c) => c.ms));
    computeWarm = (await warmMobileHome(sim, WARM_REQUESTS)).latency;
  } finally {
    setUpstreamLatency(sim, UPSTREAM_LATENCY);
  }
  const coldHops = Math.max(0, coldLatency.p50 - computeCold.p50) / UPSTREAM_MEAN_MS;
  const warmHops = Math.max(0, warm.latency.p50 - computeWarm.p50) / UPSTREAM_MEAN_MS;
  const coldCalls = totalCalls(coldCounts) / COLD_SAMPLES;
  const warmCalls = totalCalls(warm.counts) / WARM_REQUESTS;
  checks.push(
    check(
      'MobileHome cold waits for the longest branch, not the sum',
      coldHops < COLD_BRANCH_HOPS + 0.75,
      `≈ ${round(coldHops)} hops waited (branch: ${COLD_BRANCH_HOPS}; sum: ${round(coldCalls)} calls)`,
    ),
  );
  checks.push(
    check(
      'MobileHome warm waits for the longest branch, not the sum',
      warmHops < WARM_BRANCH_HOPS + 0.75,
      `≈ ${round(warmHops)} hops waited (branch: ${WARM_BRANCH_HOPS}; sum: ${round(warmCalls)} calls)`,
    ),
  );

  return {
    title: 'MobileHome (demo viewer) vs the naive REST sequence',
    rows: [
      {
        scenario: 'MobileHome, cold (fresh replica)',
        requests: COLD_SAMPLES,
        p50: coldLatency.p50,
        p95: coldLatency.p95,
        rps: null,
        upstream: perRequest(coldCounts, COLD_SAMPLES),
        notes: `waits ≈ ${round(coldHops)} hops for ${round(coldCalls)} calls; K = ${k} tokens; ${ms(computeCold.p50)} at 0 upstream latency`,
      },
      {
        scenario: 'MobileHome, warm',
        requests: WARM_REQUESTS,
        p50: warm.latency.p50,
        p95: warm.latency.p95,
        rps: round(WARM_REQUESTS / (warm.elapsedMs / 1000)),
        upstream: perRequest(warm.counts, WARM_REQUESTS),
        notes: `waits ≈ ${round(warmHops)} hops for ${round(warmCalls)} calls; ${ms(computeWarm.p50)} at 0 upstream latency; one client in sequence`,
      },
      {
        scenario: 'Naive client: REST calls in sequence',
        requests: NAIVE_RUNS,
        p50: naiveLatency.p50,
        p95: naiveLatency.p95,
        rps: null,
        upstream: `${roundTrips} round trips`,
        notes: 'auth, channels, summary, positions, each position token, lending markets',
      },
    ],
    checks,
    facts: [
      `MobileHome cold is ${round(coldLatency.p50 / naiveLatency.p50, 2)}× the naive sequence's latency (p50), warm ${round(warm.latency.p50 / naiveLatency.p50, 2)}×; ` +
        `the client makes 1 round trip instead of ${roundTrips} (saves ${roundTrips - 1}).`,
    ],
  };
}

/** Asset ids a MobileHome response resolves: its positions' market tokens and the top lending markets' tokens. */
function mobileHomeTokens(sim: Simulator, result: GraphQLResult): Set<string> {
  const tokens = new Set<string>();
  for (const edge of result.data?.viewer?.wallet?.positions?.edges ?? []) {
    const assetId = edge.node.market?.token?.assetId;
    if (typeof assetId === 'string') tokens.add(assetId);
  }
  for (const edge of result.data?.topLending?.edges ?? []) {
    const market = sim.world.marketsById.get(edge.node.marketId);
    if (market?.type === 'lending') tokens.add(`solana:${market.token.address}`);
  }
  return tokens;
}

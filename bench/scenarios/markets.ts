/** MarketsPage, cold and warm. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
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
  type BenchGateway,
  type GraphQLResult,
  type LatencySummary,
  type ServiceCounts,
  setUpstreamLatency,
  UPSTREAM_LATENCY,
  sumCounts,
} from '../harness.js';
import { check, type Check, type ScenarioResult } from './types.js';

// 2. MarketsPage, a page of 100

const MARKETS_COLD_SAMPLES = 3;
const MARKETS_WARM_REQUESTS = 30;

/** Asset ids of the tokens a MarketsPage response resolves (lending `token`, loop `tokenA`/`tokenB`). */
function marketsPageTokens(sim: Simulator, result: GraphQLResult): Set<string> {
  const tokens = new Set<string>();
  for (const edge of result.data?.markets?.edges ?? []) {
    const market = sim.world.marketsById.get(edge.node.marketId);
    if (!market) continue;
    if (market.type === 'lending') tokens.add(`solana:${market.token.address}`);
    if (market.type === 'loop') {
      tokens.add(`solana:${market.tokenA.address}`);
      tokens.add(`solana:${market.tokenB.address}`);
    }
  }
  return tokens;
}

export async function marketsPage(sim: Simulator): Promise<ScenarioResult> {
  const query = operation('MarketsPage');
  const variables = { first: 100 };
  const checks: Check[] = [];

  const cold: { ms: number; counts: ServiceCounts; k: number }[] = [];
  let gw: BenchGateway | null = null;
  try {
    for (let i = 0; i < MARKETS_COLD_SAMPLES; i++) {
      await gw?.close();
      gw = await startGateway(sim);
      const result = await gql(gw.url, query, variables);
      assertClean('MarketsPage (cold)', result);
      const edges = result.data.markets.edges.length;
      if (edges !== 100) throw new Error(`MarketsPage returned ${edges} markets, expected 100`);
      cold.push({ ms: result.ms, counts: countsByService(sim), k: marketsPageTokens(sim, result).size });
    }
    const coldLatency = summarize(cold.map((c) => c.ms));
    const coldCounts = sumCounts(cold.map((c) => c.counts));
    const worst = cold.reduce((a, b) => (b.counts.assets - b.k > a.counts.assets - a.k ? b : a));
    // The page comes from the market index, built by start() before the counts were reset.
    checks.push(check('MarketsPage cold: no markets call (served from the index)', cold.every((c) => c.counts.markets === 0), `${cold.map((c) => c.counts.markets).join(', ')} markets calls`));
    checks.push(check('MarketsPage cold: asset calls ≤ K distinct tokens', worst.counts.assets <= worst.k, `${worst.counts.assets} asset calls, K = ${worst.k}`));

    // Warm: the replica of the last cold sample.
    sim.controls.resetCounts();
    const warm = await runSequential(MARKETS_WARM_REQUESTS, () => gql(gw!.url, query, variables));
    warm.results.forEach((r) => assertClean('MarketsPage (warm)', r));
    const warmLatency = summarize(warm.results.map((r) => r.ms));
    const warmCounts = countsByService(sim);
    // The same with no upstream latency: the gateway's (and simulator's) own work for a page of 100.
    setUpstreamLatency(sim, null);
    let compute: LatencySummary;
    try {
      compute = summarize((await runSequential(MARKETS_WARM_REQUESTS, () => gql(gw!.url, query, variables))).results.map((r) => r.ms));
    } finally {
      setUpstreamLatency(sim, UPSTREAM_LATENCY);
    }
    checks.push(
      check(
        'MarketsPage warm: no markets call and no asset call',
        warmCounts.markets === 0 && warmCounts.assets === 0,
        `${perRequest(warmCounts, MARKETS_WARM_REQUESTS)} per request`,
      ),
    );

    return {
      title: 'MarketsPage (first: 100)',
      rows: [
        {
          scenario: 'MarketsPage 100, cold (fresh replica)',
          requests: MARKETS_COLD_SAMPLES,
          p50: coldLatency.p50,
          p95: coldLatency.p95,
          rps: null,
          upstream: perRequest(coldCounts, MARKETS_COLD_SAMPLES),
          notes: `K = ${cold[0]!.k} distinct tokens on the page`,
        },
        {
          scenario: 'MarketsPage 100, warm',
          requests: MARKETS_WARM_REQUESTS,
          p50: warmLatency.p50,
          p95: warmLatency.p95,
          rps: round(MARKETS_WARM_REQUESTS / (warm.elapsedMs / 1000)),
          upstream: perRequest(warmCounts, MARKETS_WARM_REQUESTS),
          notes: `${ms(compute.p50)} at 0 upstream latency; one client in sequence`,
        },
      ],
      checks,
      facts: [],
    };
  } finally {
    await gw?.close();
  }
}

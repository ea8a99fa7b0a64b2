/**
 * The five scenarios. Each returns rows for the results table and the budget checks it made; a failed
 * check is a finding about the gateway, printed and written to RESULTS.md, not a crash of the run.
 */
import { ASSET_CACHE_DEFAULTS } from '../src/stores/asset-cache.js';
import type { Simulator } from '../src/simulator/index.js';
import {
  assertClean,
  countsByService,
  gcCollector,
  gql,
  heapUsed,
  mib,
  ms,
  operation,
  perRequest,
  round,
  runFor,
  runSequential,
  startGateway,
  summarize,
  totalCalls,
  UPSTREAM_MEAN_MS,
  viewerHeaders,
  type BenchGateway,
  type GraphQLResult,
  type LatencySummary,
  type ServiceCounts,
  setUpstreamLatency,
  UPSTREAM_LATENCY,
} from './harness.js';
import { naiveMobileHome } from './naive.js';

export interface Row {
  scenario: string;
  requests: number;
  p50: number;
  p95: number;
  /** Requests per second, where the scenario measures throughput. */
  rps: number | null;
  /** Upstream calls per request by service. */
  upstream: string;
  notes: string;
}

export interface Check {
  what: string;
  ok: boolean;
  detail: string;
}

export interface ScenarioResult {
  title: string;
  rows: Row[];
  checks: Check[];
  /** Lines printed under the table (comparisons, memory). */
  facts: string[];
}

const check = (what: string, ok: boolean, detail: string): Check => ({ what, ok, detail });

// ---------------------------------------------------------------------------------------------
// 0. The process's own warm-up
// ---------------------------------------------------------------------------------------------

/**
 * The first requests of a process pay for JIT compilation and lazy initialisation of the schema and
 * the HTTP stacks; a replica started later in the same process does not. Run each operation once on a
 * throwaway replica so every "cold" figure below measures empty caches, not an unwarmed V8.
 */
export async function warmUpProcess(sim: Simulator): Promise<string> {
  const gw = await startGateway(sim);
  try {
    const first = await gql(gw.url, operation('MobileHome'), {}, viewerHeaders(sim));
    assertClean('MobileHome (process warm-up)', first);
    const wallet = sim.world.wallets[0]!.address;
    for (let i = 0; i < 3; i++) {
      await naiveMobileHome(sim);
      assertClean('MobileHome', await gql(gw.url, operation('MobileHome'), {}, viewerHeaders(sim)));
      assertClean('MarketsPage', await gql(gw.url, operation('MarketsPage'), { first: 100 }));
      assertClean('WalletPositions', await gql(gw.url, operation('WalletPositions'), { address: wallet, first: 20 }));
      assertClean('SearchAssets', await gql(gw.url, operation('SearchAssets'), { query: 'sol', first: 20 }));
    }
    return `First MobileHome of the process (JIT, lazy initialisation, empty caches): ${ms(first.ms)}; not counted below.`;
  } finally {
    await gw.close();
    sim.controls.resetCounts();
  }
}

// ---------------------------------------------------------------------------------------------
// 1. MobileHome against the naive REST sequence
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// 2. MarketsPage, a page of 100
// ---------------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------------
// 3. WalletPositions over 20 wallets, concurrency 20; wallets(addresses:) over the same 20
// ---------------------------------------------------------------------------------------------

const WALLETS = 20;
const CONCURRENCY = 20;
const LOAD_MS = 5_000;

const WALLETS_TOKENS = /* GraphQL */ `
  query WalletsTokens($addresses: [String!]!, $first: Int) {
    wallets(addresses: $addresses) {
      address
      positions(first: $first) {
        totalCount
        edges {
          node {
            amountUsd
            rewards { token { assetId symbol } }
            market {
              ... on LendingMarket { token { assetId symbol price { usd } } }
              ... on YieldMarket { token { assetId symbol price { usd } } }
              ... on LoopMarket { tokenA { assetId symbol } tokenB { assetId symbol } }
            }
            ... on RewardPosition { token { assetId symbol } }
          }
        }
      }
    }
  }
`;

/** Every `assetId` anywhere in a response. */
function assetIdsIn(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => assetIdsIn(v, into));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (key === 'assetId' && typeof v === 'string') into.add(v);
      else assetIdsIn(v, into);
    }
  }
  return into;
}

export async function walletPositions(sim: Simulator): Promise<ScenarioResult> {
  const query = operation('WalletPositions');
  const wallets = sim.world.wallets
    .map((w) => w.address)
    .filter((address) => (sim.world.positionsByOwner.get(address)?.length ?? 0) > 0)
    .slice(0, WALLETS);
  if (wallets.length < WALLETS) throw new Error(`only ${wallets.length} wallets with positions in the world`);
  const checks: Check[] = [];

  const gw = await startGateway(sim);
  try {
    // wallets(addresses:) on the fresh replica: at most W positions calls and K asset calls, then none repeated.
    // These wallets hold at most 22 positions: 25 a page keeps them all within MAX_QUERY_COST (100 would cost 60,041).
    const batch = await gql(gw.url, WALLETS_TOKENS, { addresses: wallets, first: 25 });
    assertClean('wallets(addresses:)', batch);
    const batchCounts = countsByService(sim);
    const batchPositions = sim.controls.count('markets', 'GET /v0/positions/owners');
    const k = assetIdsIn(batch.data).size;
    const positionCount = (batch.data.wallets as { positions: { totalCount: number } }[]).reduce((n, w) => n + w.positions.totalCount, 0);
    checks.push(check(`wallets(addresses:) over ${WALLETS}: ≤ ${WALLETS} positions calls`, batchPositions <= WALLETS, `${batchPositions} positions calls`));
    checks.push(check(`wallets(addresses:): asset calls ≤ K distinct tokens`, batchCounts.assets <= k, `${batchCounts.assets} asset calls, K = ${k} over ${positionCount} positions`));
    sim.controls.resetCounts();
    const again = await gql(gw.url, WALLETS_TOKENS, { addresses: wallets, first: 25 });
    assertClean('wallets(addresses:) again', again);
    const againCounts = countsByService(sim);
    checks.push(check('wallets(addresses:) repeated within the price TTL: no asset call', againCounts.assets === 0, `${againCounts.assets} asset calls`));

    // Load: every worker walks the 20 wallets from its own starting point.
    sim.controls.resetCounts();
    const load = await runFor(LOAD_MS, CONCURRENCY, (worker, i) => gql(gw.url, query, { address: wallets[(worker + i) % wallets.length], first: 20 }));
    const failed = load.results.filter((r) => r.status !== 200 || r.errors?.length || !r.data?.wallet).length;
    const latency = summarize(load.results.map((r) => r.ms));
    const counts = countsByService(sim);
    const requests = load.results.length;
    const positionsCalls = sim.controls.count('markets', 'GET /v0/positions/owners');
    checks.push(check('WalletPositions: at most one positions call per request', positionsCalls <= requests, `${positionsCalls} positions calls for ${requests} requests`));
    checks.push(check('WalletPositions: every request answered cleanly', failed === 0, `${failed} of ${requests} with errors`));

    return {
      title: `WalletPositions over ${WALLETS} wallets`,
      rows: [
        {
          scenario: `wallets(addresses:) × ${WALLETS}, cold`,
          requests: 1,
          p50: batch.ms,
          p95: batch.ms,
          rps: null,
          upstream: perRequest(batchCounts, 1),
          notes: `${positionCount} positions, K = ${k} tokens; repeated: ${againCounts.assets} asset calls, ${ms(again.ms)}`,
        },
        {
          scenario: `WalletPositions, ${WALLETS} wallets, concurrency ${CONCURRENCY}`,
          requests,
          p50: latency.p50,
          p95: latency.p95,
          rps: round(requests / (load.elapsedMs / 1000)),
          upstream: perRequest(counts, requests),
          notes: `${round(load.elapsedMs / 1000)} s; ${failed} failed`,
        },
      ],
      checks,
      facts: [],
    };
  } finally {
    await gw.close();
  }
}

// ---------------------------------------------------------------------------------------------
// 4. Degraded: the assets service down
// ---------------------------------------------------------------------------------------------

const DEGRADED_REQUESTS = 20;
const HANG_REQUESTS = 10;
const SHORT_TTL_MS = 1_000;

interface DegradedSample {
  result: GraphQLResult;
  /** Every token symbol on the page is non-null. */
  symbols: boolean;
  /** Lending tokens on the page, and those with a price. */
  tokens: number;
  priced: number;
  sources: Map<string, number>;
}

function inspectPage(result: GraphQLResult): DegradedSample {
  let symbols = result.status === 200 && (result.data?.markets?.edges?.length ?? 0) > 0;
  const sources = new Map<string, number>();
  let tokenCount = 0;
  let priced = 0;
  for (const edge of result.data?.markets?.edges ?? []) {
    const n = edge.node;
    const tokens = n.__typename === 'LendingMarket' ? [n.token] : n.__typename === 'LoopMarket' ? [n.tokenA, n.tokenB] : [];
    if (tokens.some((token) => !token?.symbol)) symbols = false;
    if (n.__typename === 'LendingMarket') {
      const source = String(n.token?.metadataSource ?? 'null');
      sources.set(source, (sources.get(source) ?? 0) + 1);
      tokenCount++;
      if (typeof n.token?.price?.usd === 'number') priced++;
    }
  }
  return { result, symbols, tokens: tokenCount, priced, sources };
}

async function degradedRun(
  sim: Simulator,
  gw: BenchGateway,
  label: string,
  requests = DEGRADED_REQUESTS,
): Promise<{ row: Row; samples: DegradedSample[] }> {
  const query = operation('MarketsPage');
  sim.controls.resetCounts();
  const run = await runSequential(requests, () => gql(gw.url, query, { first: 100 }));
  const samples = run.results.map(inspectPage);
  const latency = summarize(run.results.map((r) => r.ms));
  const withSymbols = samples.filter((s) => s.symbols).length;
  const withErrors = samples.filter((s) => s.result.errors?.length).length;
  const sources = new Map<string, number>();
  for (const s of samples) for (const [k, v] of s.sources) sources.set(k, (sources.get(k) ?? 0) + v);
  const codes = new Set(samples.flatMap((s) => (s.result.errors ?? []).map((e) => (typeof e.extensions?.['code'] === 'string' ? e.extensions['code'] : 'none'))));
  return {
    samples,
    row: {
      scenario: label,
      requests,
      p50: latency.p50,
      p95: latency.p95,
      rps: null,
      upstream: perRequest(countsByService(sim), requests),
      notes:
        `first ${ms(run.results[0]!.ms)}; ${withSymbols}/${requests} with every symbol; ` +
        `${samples.reduce((n, x) => n + x.priced, 0)}/${samples.reduce((n, x) => n + x.tokens, 0)} lending tokens priced; ` +
        `${withErrors} with errors (${[...codes].join(', ') || 'none'}); metadataSource ${[...sources].map(([k, v]) => `${k} ${v}`).join(', ')}`,
    },
  };
}

export async function degraded(sim: Simulator): Promise<ScenarioResult> {
  const query = operation('MarketsPage');
  const checks: Check[] = [];
  const rows: Row[] = [];
  const facts: string[] = [];

  // Copies past their TTL when the service fails: served as the last good copy (STALE).
  const stale = await startGateway(sim, { assetCache: { priceTtlMs: SHORT_TTL_MS, metadataTtlMs: SHORT_TTL_MS, staleWhileRevalidateMs: 0 }, responseCache: false });
  try {
    assertClean('MarketsPage (warm-up)', await gql(stale.url, query, { first: 100 }));
    const healthy = await degradedRun(sim, stale, `MarketsPage 100, assets healthy, ${SHORT_TTL_MS / 1000} s TTLs`);
    rows.push(healthy.row);
    await new Promise((r) => setTimeout(r, SHORT_TTL_MS + 100));
    sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const down = await degradedRun(sim, stale, 'MarketsPage 100, assets 503, copies past TTL');
    rows.push(down.row);
    const answered = down.samples.filter((s) => s.symbols).length;
    checks.push(check('Assets down (past TTL): every response keeps its token symbols', answered === DEGRADED_REQUESTS, `${answered}/${DEGRADED_REQUESTS}`));
  } finally {
    sim.controls.setFault({ service: 'assets' }, null);
    await stale.close();
  }

  // A replica that never reached the assets service: metadata from the listings' token records (FALLBACK).
  const fresh = await startGateway(sim, { responseCache: false });
  try {
    sim.controls.setFault({ service: 'assets' }, { status: 503 });
    const down = await degradedRun(sim, fresh, 'MarketsPage 100, assets 503, empty cache');
    rows.push(down.row);
    const answered = down.samples.filter((s) => s.symbols).length;
    checks.push(check('Assets down (empty cache): every response keeps its token symbols', answered === DEGRADED_REQUESTS, `${answered}/${DEGRADED_REQUESTS}`));
  } finally {
    sim.controls.setFault({ service: 'assets' }, null);
    await fresh.close();
  }

  // A hanging service costs each call its whole deadline until the breaker opens; a replica with no
  // successes in its window opens it after the first request's failures.
  const hanging = await startGateway(sim, { responseCache: false });
  try {
    sim.controls.setFault({ service: 'assets' }, { hang: true });
    const down = await degradedRun(sim, hanging, 'MarketsPage 100, assets hanging, empty cache', HANG_REQUESTS);
    rows.push(down.row);
    const answered = down.samples.filter((s) => s.symbols).length;
    checks.push(check('Assets hanging: every response keeps its token symbols', answered === HANG_REQUESTS, `${answered}/${HANG_REQUESTS}`));
    const after = summarize(down.samples.slice(1).map((s) => s.result.ms));
    facts.push(
      `Assets hanging: the first MarketsPage took ${ms(down.samples[0]!.result.ms)} (the ${hanging.config.assetsTimeoutMs} ms deadline of assets calls), ` +
        `the next ${HANG_REQUESTS - 1} p50 ${ms(after.p50)} once the breaker had opened.`,
    );
  } finally {
    sim.controls.setFault({ service: 'assets' }, null);
    await hanging.close();
  }

  return { title: 'Degraded: the assets service failing', rows, checks, facts };
}

// ---------------------------------------------------------------------------------------------
// 5. Memory: every asset through the shared cache
// ---------------------------------------------------------------------------------------------

const PULL = /* GraphQL */ `
  query Pull($ids: [String!]!) {
    assets(ids: $ids) { id assetId chain address type name symbol decimals imageUrl tags metadataSource price { usd change24h updatedAt } }
  }
`;
const CHUNK = 100;
const SMALL_CACHE = 100;
/** Production's default bounds of the shared asset cache. */
const { maxEntries: DEFAULT_MAX_ENTRIES, maxSizeBytes: DEFAULT_MAX_BYTES } = ASSET_CACHE_DEFAULTS;

async function allAssetIds(gw: BenchGateway): Promise<string[]> {
  const search = operation('SearchAssets');
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: GraphQLResult = await gql(gw.url, search, { query: '', first: 100, after });
    assertClean('SearchAssets', page);
    const connection = page.data.searchAssets;
    ids.push(...connection.edges.map((e: { node: { assetId: string } }) => e.node.assetId));
    if (!connection.pageInfo.hasNextPage) return ids;
    after = connection.pageInfo.endCursor;
  }
}

async function pull(gw: BenchGateway, ids: readonly string[]): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) {
    const result = await gql(gw.url, PULL, { ids: ids.slice(i, i + CHUNK) });
    assertClean('assets(ids:)', result);
    latencies.push(result.ms);
  }
  return latencies;
}

export async function memory(sim: Simulator): Promise<ScenarioResult> {
  const collector = gcCollector();
  const checks: Check[] = [];
  const rows: Row[] = [];
  const facts: string[] = [`Heap readings after a full GC: ${collector.how}.`];
  // The simulator logs every request's headers in this same heap: each reading comes after clearing that log.
  const reading = () => {
    sim.controls.resetCounts();
    return heapUsed(collector);
  };

  // The bound first: a replica whose cache holds 100 copies pulls the catalogue twice. The first pull
  // also warms up the code paths and pools, so the readings below measure held data, not JIT code.
  // These rows measure the asset cache: the response cache, which would answer the repeated pulls, is off.
  const small = await startGateway(sim, { assetCache: { maxEntries: SMALL_CACHE }, responseCache: false });
  let ids: string[];
  let smallGrowth: number;
  try {
    ids = await allAssetIds(small);
    let requests = (await pull(small, ids)).length;
    const before = reading();
    requests += (await pull(small, ids)).length;
    const after = reading();
    smallGrowth = after - before;
    // The last chunk pulled (at most one chunk, so within the bound) must still be held; the first 100 were evicted.
    const lastChunk = ids.slice(Math.floor((ids.length - 1) / CHUNK) * CHUNK);
    requests += (await pull(small, lastChunk)).length;
    const lastAgain = countsByService(sim).assets;
    sim.controls.resetCounts();
    requests += (await pull(small, ids.slice(0, SMALL_CACHE))).length;
    const firstAgain = countsByService(sim).assets;
    rows.push({
      scenario: `Every asset, twice, into a cache of ${SMALL_CACHE}`,
      requests,
      p50: NaN,
      p95: NaN,
      rps: null,
      upstream: `last ${lastChunk.length} again: ${lastAgain} calls; first ${SMALL_CACHE} again: ${firstAgain}`,
      notes: `heap over the second pull: ${mib(before)} → ${mib(after)}`,
    });
    checks.push(
      check(
        `A cache of ${SMALL_CACHE} keeps the most recent copies and evicts the rest`,
        lastAgain === 0 && firstAgain === SMALL_CACHE,
        `last ${lastChunk.length} again: ${lastAgain} calls (expect 0); first ${SMALL_CACHE} again: ${firstAgain} (expect ${SMALL_CACHE})`,
      ),
    );
  } finally {
    await small.close();
  }

  // Production's bounds: every asset fits, and stays.
  const gw = await startGateway(sim, { responseCache: false });
  try {
    const before = reading();
    const latencies = await pull(gw, ids);
    const pulled = countsByService(sim);
    const after = reading();
    await pull(gw, ids);
    const repeated = countsByService(sim).assets;
    const perAsset = Math.max(0, after - before) / ids.length;
    const latency = summarize(latencies);
    rows.push({
      scenario: `Every asset (${ids.length}) into the default cache`,
      requests: latencies.length,
      p50: latency.p50,
      p95: latency.p95,
      rps: null,
      upstream: perRequest(pulled, latencies.length),
      notes: `heap ${mib(before)} → ${mib(after)} (+${mib(after - before)}, ≈ ${round(perAsset / 1024, 1)} KiB per asset); re-pull: ${repeated} asset calls`,
    });
    checks.push(
      check('Every asset pulled once; a second pull is served from the cache', pulled.assets <= ids.length && repeated === 0, `${pulled.assets} calls for ${ids.length} ids, then ${repeated}`),
    );
    checks.push(
      check(
        `A cache of ${SMALL_CACHE} does not grow the heap as the catalogue passes through it`,
        smallGrowth < (after - before) / 3,
        `${smallGrowth >= 0 ? '+' : '−'}${mib(Math.abs(smallGrowth))} over a pull of all ${ids.length}, against +${mib(after - before)} held by the default cache`,
      ),
    );
    facts.push(
      `Shared asset cache: ${ids.length} assets held ≈ ${mib(after - before)} of heap (≈ ${round(perAsset / 1024, 1)} KiB each); a cache bounded at ${SMALL_CACHE} ` +
        `grew ${smallGrowth >= 0 ? '+' : '−'}${mib(Math.abs(smallGrowth))} over a pull of all ${ids.length}. Production's bounds are ${DEFAULT_MAX_ENTRIES.toLocaleString('en')} entries ` +
        `(≈ ${mib(perAsset * DEFAULT_MAX_ENTRIES)} at this rate) and ${mib(DEFAULT_MAX_BYTES)} of estimated size (string lengths plus 256 bytes per copy).`,
    );
  } finally {
    await gw.close();
  }

  return { title: 'Memory: the shared asset cache', rows, checks, facts };
}

function sumCounts(all: readonly ServiceCounts[]): ServiceCounts {
  return all.reduce((a, b) => ({ alerts: a.alerts + b.alerts, markets: a.markets + b.markets, assets: a.assets + b.assets }), {
    alerts: 0,
    markets: 0,
    assets: 0,
  });
}

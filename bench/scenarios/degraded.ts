/** MarketsPage while the assets service fails. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
import type { Simulator } from '../../src/simulator/index.js';
import {
  assertClean,
  countsByService,
  gql,
  ms,
  operation,
  perRequest,
  runSequential,
  startGateway,
  summarize,
  type BenchGateway,
  type GraphQLResult,
} from '../harness.js';
import { check, type Check, type ScenarioResult, type Row } from './types.js';

// 4. Degraded: the assets service down

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

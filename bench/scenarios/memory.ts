/** Memory held by the shared asset cache. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
import { ASSET_CACHE_DEFAULTS } from '../../src/stores/asset-cache.js';
import type { Simulator } from '../../src/simulator/index.js';
import {
  assertClean,
  countsByService,
  gcCollector,
  gql,
  heapUsed,
  mib,
  operation,
  perRequest,
  round,
  startGateway,
  summarize,
  type BenchGateway,
  type GraphQLResult,
} from '../harness.js';
import { check, type Check, type ScenarioResult, type Row } from './types.js';

// 5. Memory: every asset through the shared cache

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

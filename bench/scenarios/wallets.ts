/** WalletPositions over 20 wallets. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
import type { Simulator } from '../../src/simulator/index.js';
import { assertClean, countsByService, gql, ms, operation, perRequest, round, runFor, startGateway, summarize } from '../harness.js';
import { check, type Check, type ScenarioResult } from './types.js';

// 3. WalletPositions over 20 wallets, concurrency 20; wallets(addresses:) over the same 20

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

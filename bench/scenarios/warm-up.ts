/** The process's own warm-up before any scenario. A failed check is a finding, printed and written to bench/RESULTS.md, not a crash of the run. */
import type { Simulator } from '../../src/simulator/index.js';
import { assertClean, gql, ms, operation, startGateway, viewerHeaders } from '../harness.js';
import { naiveMobileHome } from '../naive.js';

// 0. The process's own warm-up

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

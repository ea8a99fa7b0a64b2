/**
 * `npm run bench`: the gateway over HTTP in front of the embedded simulator with realistic upstream
 * latency. Prints one line per measurement, a markdown table, and writes it to bench/RESULTS.md.
 *
 *   npm run bench                       every scenario
 *   npm run bench -- markets degraded   only those (mobile, markets, wallets, degraded, memory)
 */
import { performance } from 'node:perf_hooks';
import { clientAgent, startBenchSimulator, UPSTREAM_LATENCY } from './harness.js';
import { busy, line, loadAverage, machine, markdown, table, writeResults } from './report.js';
import { degraded, marketsPage, memory, mobileHome, walletPositions, warmUpProcess, type ScenarioResult } from './scenarios.js';

const SCENARIOS = { mobile: mobileHome, markets: marketsPage, wallets: walletPositions, degraded, memory } as const;
type Name = keyof typeof SCENARIOS;

async function main(): Promise<void> {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((a) => !(a in SCENARIOS));
  if (unknown.length > 0) {
    console.error(`Unknown scenario(s): ${unknown.join(', ')}. Choose from: ${Object.keys(SCENARIOS).join(', ')}.`);
    process.exit(2);
  }
  const names = (asked.length > 0 ? asked : Object.keys(SCENARIOS)) as Name[];

  console.log(`Machine: ${machine()}`);
  const load = loadAverage();
  console.log(`Load average (1 min) before the run: ${load}`);
  if (busy()) console.log('WARNING: the machine is busy (load above its core count): latencies will be inflated and noisy.');
  console.log(`Upstream latency: ${UPSTREAM_LATENCY.fixedMs} ms + up to ${UPSTREAM_LATENCY.jitterMs} ms jitter per call\n`);

  const started = performance.now();
  const sim = await startBenchSimulator();
  const results: ScenarioResult[] = [];
  let warmUp = '';
  try {
    warmUp = await warmUpProcess(sim);
    console.log(`${warmUp}\n`);
    for (const name of names) {
      const t0 = performance.now();
      const result = await SCENARIOS[name](sim);
      console.log(`${result.title} (${Math.round((performance.now() - t0) / 100) / 10} s)`);
      for (const row of result.rows) console.log(line(row));
      for (const fact of result.facts) console.log(`  ${fact}`);
      for (const c of result.checks) console.log(`  ${c.ok ? 'ok  ' : 'FAIL'} ${c.what}: ${c.detail}`);
      console.log('');
      results.push(result);
    }
  } finally {
    await sim.close();
    await clientAgent.close();
  }
  const totalMs = performance.now() - started;

  console.log(table(results));
  const failed = results.flatMap((r) => r.checks).filter((c) => !c.ok);
  console.log(`\n${failed.length === 0 ? 'Every budget held.' : `${failed.length} budget(s) failed.`} Total ${Math.round(totalMs / 1000)} s.`);
  // Only a full run is the record; a partial one is for a quick look.
  if (asked.length === 0) {
    writeResults(new URL('./RESULTS.md', import.meta.url), markdown(results, totalMs, load, warmUp));
    console.log('Written to bench/RESULTS.md');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

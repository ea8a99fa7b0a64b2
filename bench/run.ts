/**
 * `npm run bench`: the gateway over HTTP in front of the embedded simulator with realistic upstream
 * latency, then the throughput comparison (the built gateway, a hand-written baseline and a bare server,
 * each in its own pinned process, under autocannon). Prints one line per measurement, markdown tables,
 * and writes them to bench/RESULTS.md.
 *
 *   npm run bench                       every scenario, then the throughput comparison (writes RESULTS.md)
 *   npm run bench -- markets degraded   only those (mobile, markets, wallets, degraded, memory)
 *   npm run bench -- --throughput       only the throughput comparison (rewrites its section of RESULTS.md)
 *   npm run bench:throughput            the same
 */
import { performance } from 'node:perf_hooks';
import { clientAgent, startBenchSimulator, UPSTREAM_LATENCY } from './harness.js';
import { busy, line, loadAverage, machine, markdown, readResults, replaceSection, table, writeResults } from './report.js';
import { degraded, marketsPage, memory, mobileHome, walletPositions, warmUpProcess, type ScenarioResult } from './scenarios/index.js';
import { runThroughput, THROUGHPUT_DEFAULTS, THROUGHPUT_HEADING } from './throughput/run.js';

const SCENARIOS = { mobile: mobileHome, markets: marketsPage, wallets: walletPositions, degraded, memory } as const;
type Name = keyof typeof SCENARIOS;

const RESULTS = new URL('./RESULTS.md', import.meta.url);

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const throughputOnly = args.includes('--throughput');
  const build = !args.includes('--no-build');
  const asked = args.filter((a) => !a.startsWith('--'));
  const unknown = [...asked.filter((a) => !(a in SCENARIOS)), ...args.filter((a) => a.startsWith('--') && a !== '--throughput' && a !== '--no-build')];
  if (unknown.length > 0) {
    console.error(`Unknown argument(s): ${unknown.join(', ')}. Scenarios: ${Object.keys(SCENARIOS).join(', ')}; flags: --throughput, --no-build.`);
    process.exit(2);
  }
  if (throughputOnly) {
    if (asked.length > 0) console.log(`--throughput runs the throughput comparison only: ignoring ${asked.join(', ')}.`);
    const run = await runThroughput({ ...THROUGHPUT_DEFAULTS, build });
    console.log(`\n${run.markdown}`);
    writeResults(RESULTS, replaceSection(readResults(RESULTS), THROUGHPUT_HEADING, run.markdown));
    console.log('Throughput section written to bench/RESULTS.md');
    return;
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
  let warmUp: string;
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
    // The comparison runs after the in-process scenarios have closed everything: it needs both cores.
    console.log('');
    const run = await runThroughput({ ...THROUGHPUT_DEFAULTS, build });
    console.log(`\n${run.markdown}`);
    writeResults(RESULTS, `${markdown(results, totalMs, load, warmUp)}\n${run.markdown}`);
    console.log('Written to bench/RESULTS.md');
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

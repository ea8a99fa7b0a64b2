/**
 * CPU of a markets page, in process: the simulator runs in a child process (its CPU is not counted),
 * the gateway is driven through `yoga.fetch` (no HTTP client in the way). Run it under the profiler:
 *
 *   node --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof bench/profile-markets.ts [requests] [first] [tokens|plain]
 *
 * It prints the gateway's CPU ms per request over the measured loop (process.cpuUsage) and writes
 * the measured window's bounds (monotonic µs, the profile's clock) so `profile-summary.ts` can keep
 * the samples of that window only.
 */
import { measureWindow } from './cpu-window.js';
import { readFileSync } from 'node:fs';
import { createApp } from '../src/app.js';
import { runConcurrently, startSimulatorChild } from './simulator-child.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';

const requests = Number(process.argv[2] ?? 2000);
const first = Number(process.argv[3] ?? 100);
const concurrency = 8;

const { child, urls } = await startSimulatorChild();

// Generous deadlines: on a loaded machine a timed-out call would end the run.
const config = Object.freeze({ ...loadConfig({}), logLevel: 'silent' as const, upstreamTimeoutMs: 60_000, assetsTimeoutMs: 60_000 });
const services = createServices({ config, urls, logger: createLogger(config) });
const app = createApp({ config, services });
await services.start();

/** `tokens` (default): MarketsPage as the frontend sends it; `plain`: the same without token assets (the listing path alone). */
const shape = process.argv[4] ?? 'tokens';
const marketsPage = readFileSync(new URL('../test/operations/MarketsPage.graphql', import.meta.url), 'utf8');
const query = shape === 'plain' ? marketsPage.replace(/\n\s*token \{[^}]*\{[^}]*\} \}/, '').replace(/tokenA \{ symbol \} tokenB \{ symbol \}/, '') : marketsPage;
const body = JSON.stringify({ query, variables: { first } });
const filtered = JSON.stringify({ query, variables: { first: 20, filter: { types: ['LENDING'], providers: ['kamino', 'marginfi'] } } });

async function one(i: number): Promise<void> {
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: i % 4 === 3 ? filtered : body,
  });
  const result = (await response.json()) as { errors?: unknown[] };
  if (result.errors) throw new Error(JSON.stringify(result.errors).slice(0, 500));
}

const run = (n: number) => runConcurrently(n, concurrency, one);

await run(300); // warm: JIT, asset cache, index
const { cpuMs, wallMs } = await measureWindow(() => run(requests));
console.log(
  JSON.stringify({ shape, requests, first, cpuMsPerRequest: +(cpuMs / requests).toFixed(3), wallMs: Math.round(wallMs), rps: Math.round((requests / wallMs) * 1000) }),
);

await services.close();
child.kill('SIGTERM');

/**
 * The upstream calls of one operation on a timeline: when each started and ended, relative to the
 * moment the client sent the request. Shows which calls run side by side and where the gateway itself
 * spends time between them.
 *
 *   npx tsx bench/trace.ts                 MobileHome, cold then warm
 *   npx tsx bench/trace.ts MarketsPage     any operation of test/operations (variables: first 100 / a wallet)
 */
import { performance } from 'node:perf_hooks';
import { createApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';
import type { RequestInfo } from '../src/upstream/index.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { clientAgent, gql, operation, startBenchSimulator, UPSTREAM_LATENCY, viewerHeaders } from './harness.js';

const name = process.argv[2] ?? 'MobileHome';

async function main(): Promise<void> {
  const sim = await startBenchSimulator();
  const variables: Record<string, unknown> = {
    MarketsPage: { first: 100 },
    WalletPositions: { address: sim.world.demoWallets[0], first: 20 },
    SearchAssets: { query: 'sol', first: 20 },
  }[name] ?? {};

  // Built by hand rather than with startGateway: the trace needs the upstream layer's per-call hook.
  let t0 = 0;
  const calls: { start: number; end: number; info: RequestInfo }[] = [];
  const config = Object.freeze({ ...loadConfig({}), logLevel: 'silent', rateLimitPerMinute: 0 });
  const services = createServices({
    config,
    urls: sim.urls,
    logger: createLogger(config),
    upstream: {
      onRequest: (info) => {
        const end = performance.now() - t0;
        calls.push({ start: end - info.durationMs, end, info });
      },
    },
  });
  const app = createApp({ config, services });
  await services.start();
  const server = createServer((req, res) => void app.yoga(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;

  console.log(`${name}, upstream latency ${UPSTREAM_LATENCY.fixedMs} ms + up to ${UPSTREAM_LATENCY.jitterMs} ms\n`);
  try {
    for (const label of ['first request (empty asset cache)', 'second request (warm)', 'third request (warm)']) {
      calls.length = 0;
      t0 = performance.now();
      const result = await gql(url, operation(name), variables, name === 'MobileHome' ? viewerHeaders(sim) : {});
      console.log(`${label}: ${result.ms.toFixed(0)} ms, ${calls.length} upstream calls${result.errors ? `, errors: ${JSON.stringify(result.errors).slice(0, 300)}` : ''}`);
      for (const c of calls.sort((a, b) => a.start - b.start)) {
        const bar = ' '.repeat(Math.round(c.start / 5)) + '#'.repeat(Math.max(1, Math.round((c.end - c.start) / 5)));
        console.log(`  ${c.start.toFixed(0).padStart(4)}–${c.end.toFixed(0).padEnd(4)} ${`${c.info.service} ${c.info.route}`.padEnd(44)} ${bar}`);
      }
      console.log('');
    }
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await services.close();
    await sim.close();
    await clientAgent.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

/**
 * Memory under the hostile loads of issue 12, measured rather than asserted:
 *
 *   npm run memory -- [parse]
 *
 * - `parse`: distinct documents made unique by a comment (the token limit never fires): 200 of 1 MB
 *   (refused before parsing), 600 of 60 KB and 600 dense ones of ~4,000 tokens (parsed and cached).
 *   Prints the heap each phase leaves behind after a full GC: bounded by the parse caches' byte limits.
 *
 * In memory, through `yoga.fetch`, over the embedded simulator; not part of `npm test`.
 */
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices, type Services } from '../src/services.js';
import { startSimulator } from '../src/simulator/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx scripts/hostile-memory.ts');
  process.exit(1);
}
const MiB = 1024 * 1024;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

async function post(app: App, query: string): Promise<number> {
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
  });
  await response.arrayBuffer();
  return response.status;
}

async function parseScenario(app: App): Promise<void> {
  const padded = (n: number, bytes: number) => `{ __typename } # ${n} `.padEnd(bytes, 'x');
  const dense = (n: number) => `{ ${Array.from({ length: 1300 }, (_, i) => `a${n}_${i}: __typename`).join(' ')} }`;
  const phases: [string, number, (n: number) => string][] = [
    ['1 MB documents (comment-padded)', 200, (n) => padded(n, 1_000_000)],
    ["60 KB documents (comment-padded)", 600, (n) => padded(n, 60_000)],
    ["dense documents of 3,902 tokens", 600, dense],
  ];
  const start = heap();
  console.log(`parse: heap at start ${mib(start)}`);
  for (const [name, count, make] of phases) {
    const statuses = new Map<number, number>();
    for (let n = 0; n < count; n++) {
      const status = await post(app, make(n));
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    const answers = [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
    console.log(`parse: ${count} ${name}: ${answers}; heap retained since start ${mib(heap() - start)}`);
  }
}

async function main(): Promise<void> {
  const which = new Set(process.argv.slice(2));
  const all = which.size === 0;
  const sim = await startSimulator({ seed: 42 });
  const config = Object.freeze({ ...loadConfig({}), webhookSecret: 'memory-script-secret' });
  const services: Services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
  const app = createApp({ config, services });
  await services.start();
  try {
    if (all || which.has('parse')) await parseScenario(app);
  } finally {
    await services.close();
    await sim.close();
  }
}

await main();

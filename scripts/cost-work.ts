/**
 * The work of what the cost model admits, measured (issue 33 item 2: each admitted document within
 * 250 ms of CPU and 32 MB of memory held on this machine):
 *
 *   node --expose-gc --import tsx scripts/cost-work.ts
 *
 * The simulator runs in a child process (its CPU is not the gateway's); the gateway in this process,
 * built as in production (breakers on, response cache off so every document executes, no rate limit),
 * is asked through `yoga.fetch`. Each document runs alone, on a fresh gateway (cold asset cache, the
 * worst case for calls), after a full GC. Per document: the answer (admitted or refused), upstream calls
 * made (the gateway's own count), CPU (process.cpuUsage, user + system), the peak heap and RSS above the
 * start (sampled every millisecond, plus V8's own total), and the heap still held after a full GC.
 * The test/hostile/cost-work.test.ts property test asserts the deterministic part (calls, points, bytes).
 */
import { performance } from 'node:perf_hooks';
import { startSimulatorChild } from '../bench/simulator-child.js';
import { createApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createServices } from '../src/services.js';
import { createWorld } from '../src/simulator/world/index.js';
import { hostileDocuments, reportedDocuments, unknownAssetId, type HostileDocument, type World } from '../test/helpers/hostile-documents.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx scripts/cost-work.ts');
  process.exit(1);
}
const MiB = 1024 * 1024;
const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString('base64');

/** The largest documents of each kind the limits admit (the generated ones reach them only by chance). */
function widest(world: World, everyWallet: readonly string[]): HostileDocument[] {
  const aliases = (n: number, type: string, lists: (i: number) => string[], field: (v: string) => string): Pick<HostileDocument, 'query' | 'variables'> => ({
    query: `query(${Array.from({ length: n }, (_, i) => `$v${i}: [${type}!]!`).join(', ')}) { ${Array.from({ length: n }, (_, i) => `a${i}: ${field(`$v${i}`)}`).join(' ')} }`,
    variables: Object.fromEntries(Array.from({ length: n }, (_, i) => [`v${i}`, lists(i)])),
  });
  const to = Date.UTC(2025, 10, 1);
  return [
    {
      name: '5 × nodes(50 distinct unknown asset ids) { name price }: 250 calls',
      ...aliases(5, 'ID', (i) => Array.from({ length: 50 }, (_, n) => globalId('Asset', unknownAssetId(900 + i, n))), (v) => `nodes(ids: ${v}) { ... on Asset { name price { usd } } }`),
    },
    {
      name: '5 × wallets(50 distinct) { totalValueUsd }: 250 calls',
      ...aliases(5, 'String', (i) => everyWallet.slice(i * 50, i * 50 + 50), (v) => `wallets(addresses: ${v}) { totalValueUsd }`),
    },
    {
      name: '4 priced assets × priceHistory(first: 1) over a 2,000-hour window',
      ...aliases(1, 'ID', () => world.assets.slice(0, 4).map((id) => globalId('Asset', id)), (v) =>
        `nodes(ids: ${v}) { ... on Asset { priceHistory(from: "${new Date(to - 1999 * 3_600_000).toISOString()}", to: "${new Date(to).toISOString()}", first: 1) { edges { node { priceUsd } } } } }`),
    },
    {
      name: '5 × a demo wallet.valueHistory from the start of data, daily',
      query: `{ ${Array.from({ length: 5 }, (_, i) => `a${i}: wallet(address: "${world.wallets[i % 3]}") { valueHistory(from: "${new Date(Date.UTC(2025, 9, 8) + i * 3_600_000).toISOString()}", resolution: ONE_DAY) { timestamp valueUsd } }`).join(' ')} }`,
      variables: {},
    },
    {
      name: '12 × markets(first: 200) { every scalar }',
      query: `{ ${Array.from({ length: 12 }, (_, i) => `a${i}: markets(first: ${200 - i}) { edges { cursor node { id marketId type productName websiteUrl provider { id name icon } ... on LendingMarket { depositApy borrowApy totalDepositUsd token { symbol name decimals price { usd } } } } } }`).join(' ')} }`,
      variables: {},
    },
  ];
}

interface Row {
  name: string;
  status: string;
  calls: number;
  cpuMs: number;
  peakHeapMiB: number;
  peakRssMiB: number;
  heldMiB: number;
  answerKiB: number;
}

async function measure(config: Readonly<Config>, urls: Parameters<typeof createServices>[0]['urls'], document: HostileDocument): Promise<Row> {
  const services = createServices({ config, urls, logger: createLogger(config) });
  const app = createApp({ config, services });
  await services.start();
  let calls = 0;
  const counting = services.upstream;
  for (const client of [counting.assets, counting.markets] as unknown as Record<string, unknown>[]) {
    for (const [key, value] of Object.entries(client)) {
      if (typeof value !== 'function') continue;
      client[key] = (...args: unknown[]) => ((calls += 1), (value as (...a: unknown[]) => unknown).apply(client, args));
    }
  }
  gc!();
  gc!();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    const now = process.memoryUsage();
    peakHeap = Math.max(peakHeap, now.heapUsed);
    peakRss = Math.max(peakRss, now.rss);
  }, 1);
  const cpu = process.cpuUsage();
  const started = performance.now();
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query: document.query, variables: document.variables }),
  });
  const text = await response.text();
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - started;
  clearInterval(sampler);
  const after = process.memoryUsage();
  peakHeap = Math.max(peakHeap, after.heapUsed);
  peakRss = Math.max(peakRss, after.rss);
  const body = JSON.parse(text) as { data?: unknown; errors?: { extensions?: { code?: string } }[] };
  const refused = body.data == null && body.errors?.[0]?.extensions?.code === 'QUERY_TOO_COMPLEX';
  const row: Row = {
    name: document.name,
    status: refused ? 'refused' : `admitted (${body.errors?.length ?? 0} errors, ${wallMs.toFixed(0)} ms wall)`,
    calls,
    cpuMs: (used.user + used.system) / 1000,
    peakHeapMiB: (peakHeap - before.heapUsed) / MiB,
    peakRssMiB: (peakRss - before.rss) / MiB,
    heldMiB: 0,
    answerKiB: Buffer.byteLength(text) / 1024,
  };
  await services.close();
  gc!();
  gc!();
  row.heldMiB = (process.memoryUsage().heapUsed - before.heapUsed) / MiB;
  return row;
}

const sim = await startSimulatorChild();
try {
  const config: Readonly<Config> = Object.freeze({ ...loadConfig({}), logLevel: 'silent', rateLimitPerMinute: 0, responseCache: false });
  const world = createWorld(42);
  const shared: World = { assets: world.assets.slice(0, 100).map((a) => a.id), wallets: world.wallets.slice(0, 100).map((w) => w.address) };
  const documents = [...reportedDocuments(shared), ...widest(shared, world.wallets.map((w) => w.address)), ...hostileDocuments(shared, 33, 32)];
  // One throwaway run, so that compiling the gateway's code is not counted against the first document.
  await measure(config, sim.urls, documents[2]!);
  const rows: Row[] = [];
  for (const document of documents) {
    const row = await measure(config, sim.urls, document);
    rows.push(row);
    console.log(
      `${row.cpuMs.toFixed(0).padStart(5)} ms CPU ${row.peakHeapMiB.toFixed(1).padStart(6)} MiB heap peak ${row.peakRssMiB.toFixed(1).padStart(6)} MiB RSS peak ` +
        `${row.heldMiB.toFixed(1).padStart(5)} MiB held ${String(row.calls).padStart(4)} calls ${row.answerKiB.toFixed(0).padStart(5)} KiB  ${row.name}: ${row.status}`,
    );
  }
  const admitted = rows.filter((r) => r.status !== 'refused');
  const worst = (key: keyof Row) => Math.max(...admitted.map((r) => r[key] as number));
  console.log(
    `RESULT ${JSON.stringify({ admitted: admitted.length, refused: rows.length - admitted.length, maxCpuMs: worst('cpuMs'), maxPeakHeapMiB: worst('peakHeapMiB'), maxPeakRssMiB: worst('peakRssMiB'), maxHeldMiB: worst('heldMiB'), maxCalls: worst('calls') })}`,
  );
} finally {
  sim.child.kill('SIGTERM');
}

/**
 * The live price feed under 1,000 SSE subscribers over 20 assets on one replica:
 * `npx tsx bench/live-prices.ts` (about a minute; prints a Markdown table for bench/LIVE-PRICES.md).
 *
 * The gateway runs in a child process (this file with `--server`: the embedded simulator beside it,
 * 40 ms + up to 10 ms on every upstream call, as the other scenarios), so its CPU and heap are read
 * from its own `/metrics` apart from the 1,000 clients' work here. Each client watches 3 of the 20
 * assets over its own loopback HTTP connection. Figures:
 * - upstream calls per asset per interval: the gateway's `GET /v0/assets/{id}` calls over the window,
 *   divided by 20 assets and the intervals elapsed;
 * - CPU per tick per subscriber: the gateway's CPU time over the window divided by the price events
 *   it delivered (one event per subscriber and interval, ~3 ticks each);
 * - heap per subscriber: heap used after a full GC with the 1,000 streams open, minus before, / 1,000;
 * - delay from upstream read to the last subscriber's event: per polled value (`asOf`, when the
 *   gateway read it), the latest arrival among its subscribers, minus `asOf`; p50 and p99 over values.
 */
import { spawn } from 'node:child_process';
import { request, type ClientRequest } from 'node:http';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const SUBSCRIBERS = 1000;
const INTERVAL_MS = 1000;
const WINDOW_INTERVALS = 20;
const ASSETS = [
  'So11111111111111111111111111111111111111112', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
  'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr', 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3',
  'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE',
  'rndrizKT3MK1iimdxRdWabcF7Zg7AR5T4nud4EkHBof', '85VBFQZC9TZkfaptBWjvUw7YbZjy52A6mjtPGjstQAmQ', 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS',
  'DriFtupJYLTosbwoN8koMbEYSx54aFAVLddWsbksjwg7',
].map((a) => `solana:${a}`).concat(['bitcoin:native', 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'ethereum:0x514910771af9ca656af840dff83e8264ecf986ca', 'stock:AAPL', 'stock:TSLA', 'stock:NVDA', 'stock:COIN']);
const QUERY = 'subscription P($ids: [ID!]!) { prices(assetIds: $ids) { assetId usd asOf } }';

async function server(): Promise<void> {
  const [{ startSimulator }, { loadConfig }, { createServices }, { createApp }, { createLogger }, { nodeListener }] = await Promise.all([
    import('../src/simulator/index.js'), import('../src/config.js'), import('../src/services.js'), import('../src/app.js'), import('../src/logger.js'), import('../src/node-http.js'),
  ]);
  const sim = await startSimulator({ seed: 42 });
  for (const service of ['alerts', 'markets', 'assets'] as const) sim.controls.setLatency({ service }, { fixedMs: 40, jitterMs: 10 });
  const config = loadConfig({ LIVE_PRICES_INTERVAL_MS: String(INTERVAL_MS), MAX_STREAMS_PER_CLIENT: '2000', RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' });
  const services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
  const app = createApp({ config, services });
  await services.start();
  const http = createServer(nodeListener(app.yoga));
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  process.on('SIGUSR2', () => (globalThis as { gc?: () => void }).gc?.());
  console.log(`READY ${(http.address() as AddressInfo).port}`);
}

/** One metric's value (summed over its label sets that contain `labels`). */
function metric(text: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || (line[name.length] !== ' ' && line[name.length] !== '{') || !line.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', new URL(import.meta.url).pathname, '--server'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve) => child.stdout.on('data', (d: Buffer) => /READY (\d+)/.test(String(d)) && resolve(Number(/READY (\d+)/.exec(String(d))![1]))));
  const base = `http://127.0.0.1:${port}`;
  const metrics = async () => (await fetch(`${base}/metrics`)).text();
  const heapAfterGc = async () => {
    child.kill('SIGUSR2');
    await sleep(500);
    return metric(await metrics(), 'nodejs_heap_size_used_bytes');
  };

  const heapBefore = await heapAfterGc();
  // Per polled value (`assetId asOf`): subscribers that received it and the latest arrival.
  const arrivals = new Map<string, { count: number; last: number }>();
  let events = 0;
  const open: ClientRequest[] = [];
  let firsts = 0;
  const errors: string[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    // Opened 50 at a time, each batch once the previous one has its first prices (as clients arrive, not all at one instant).
    if (i % 50 === 0) while (firsts + errors.length < i) await sleep(20);
    const ids = [ASSETS[i % 20], ASSETS[(i + 7) % 20], ASSETS[(i + 13) % 20]];
    const req = request(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/event-stream' }, agent: false });
    req.end(JSON.stringify({ query: QUERY, variables: { ids } }));
    open.push(req);
    req.on('error', () => {});
    req.on('response', (res) => {
      let buffer = '';
      let first = true;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const data = block.split('\n').find((l) => l.startsWith('data:'));
          if (!data || !block.includes('event: next')) continue;
          const now = Date.now();
          const message = JSON.parse(data.slice(5)) as { data?: { prices: { assetId: string; asOf: string }[] }; errors?: { message: string }[] };
          if (!message.data) {
            errors.push(message.errors?.[0]?.message ?? 'no data');
            continue;
          }
          const ticks = message.data.prices;
          if (first) {
            first = false;
            firsts++;
            continue;
          }
          events++;
          for (const t of ticks) {
            const key = `${t.assetId} ${Date.parse(t.asOf)}`;
            const seen = arrivals.get(key) ?? { count: 0, last: 0 };
            seen.count++;
            seen.last = Math.max(seen.last, now);
            arrivals.set(key, seen);
          }
        }
      });
    });
  }
  while (firsts + errors.length < SUBSCRIBERS) await sleep(100);
  if (errors.length > 0) throw new Error(`${errors.length} subscriptions failed, e.g. ${errors[0]}`);
  await sleep(2 * INTERVAL_MS);
  const heapOpen = await heapAfterGc();

  const before = await metrics();
  arrivals.clear();
  events = 0;
  const startedAt = Date.now();
  await sleep(WINDOW_INTERVALS * INTERVAL_MS);
  const after = await metrics();
  const elapsedIntervals = (Date.now() - startedAt) / INTERVAL_MS;
  const windowEvents = events;
  await sleep(2 * INTERVAL_MS); // the window's last values reach their subscribers
  for (const req of open) req.destroy();
  child.kill('SIGTERM');

  const delta = (name: string, labels = '') => metric(after, name, labels) - metric(before, name, labels);
  const calls = delta('gateway_upstream_requests_total', 'route="GET /v0/assets/{id}"');
  const cpuSeconds = delta('process_cpu_seconds_total');
  const subscribersPerAsset = (SUBSCRIBERS * 3) / 20;
  const delays = [...arrivals.entries()]
    .filter(([key, v]) => Number(key.split(' ')[1]) >= startedAt && v.count === subscribersPerAsset)
    .map(([key, v]) => v.last - Number(key.split(' ')[1]))
    .sort((a, b) => a - b);
  const pct = (p: number) => delays[Math.min(delays.length - 1, Math.floor((p / 100) * delays.length))] ?? NaN;
  const complete = [...arrivals.entries()].filter(([key]) => Number(key.split(' ')[1]) >= startedAt);
  console.log(`| Subscribers, assets, interval | ${SUBSCRIBERS} SSE, 20 (3 per subscriber), ${INTERVAL_MS} ms |`);
  console.log(`| Upstream calls per asset per interval | ${(calls / 20 / elapsedIntervals).toFixed(2)} (${calls} calls, ${elapsedIntervals.toFixed(1)} intervals) |`);
  console.log(`| Gateway CPU per tick per subscriber | ${((cpuSeconds * 1e6) / Math.max(1, windowEvents)).toFixed(0)} µs per event (${windowEvents} events, ${cpuSeconds.toFixed(2)} s CPU) |`);
  console.log(`| Heap per subscriber | ${((heapOpen - heapBefore) / SUBSCRIBERS / 1024).toFixed(1)} KiB (${((heapOpen - heapBefore) / 2 ** 20).toFixed(1)} MiB for ${SUBSCRIBERS}) |`);
  console.log(`| Upstream read to last subscriber's event | p50 ${pct(50)} ms, p99 ${pct(99)} ms (${delays.length} of ${complete.length} values reached all their subscribers) |`);
  process.exit(0);
}

await (process.argv.includes('--server') ? server() : main());

/**
 * Memory under the hostile loads of issues 12 and 20, measured rather than asserted:
 *
 *   npm run memory -- [parse] [webhook] [documents] [apq]
 *
 * - `parse`: distinct documents made unique by a comment (the token limit never fires): 200 of 1 MB
 *   (refused before parsing), 600 of 60 KB and 600 dense ones of ~4,000 tokens (parsed and cached).
 *   Prints the heap each phase leaves behind after a full GC: bounded by the parse caches' byte limits.
 * - `webhook`: 200 SSE subscribers that read one event and then stop, one that keeps reading, and
 *   three signed batches of 10,000 events (2.8 MB each) pushed at them. Prints peak RSS, the heap
 *   left after GC, the longest event-loop stall, the slowest `/health` answer meanwhile, how many
 *   subscribers were dropped and how many events the reader got.
 *
 * - `documents`: 100,000 distinct small documents (each a page of markets plus a numbered alias),
 *   each run once, then the 1,000 most recent run again (compiled by graphql-jit on their second run).
 *   Prints the heap retained after a full GC: bounded by the document caches' byte limits, whatever the count.
 * - `apq`: 300 automatic-persisted-query registrations of distinct 1.9 MB documents (each refused
 *   413), then 5,000 registrations of distinct small documents that run. Prints the heap retained.
 *
 * - `streams`: 2,000 event subscriptions over SSE held open (over a real HTTP server on loopback, so
 *   sockets count too). Prints the heap and RSS each stream holds.
 *
 * Each scenario ends with a line `RESULT {"scenario": ..., "retainedBytes": ...}` (the tests read it).
 * In memory, through `yoga.fetch`, over the embedded simulator; not part of `npm test` (the tests
 * run `apq` and a short `documents` in a child process under a small heap).
 */
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { createHttpServer } from '../../src/node-http.js';
import { documentHash } from '../../src/plugins/trusted-documents.js';
import { createServices, type Services } from '../../src/services.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import { startSimulator } from '../../src/simulator/index.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error('run with node --expose-gc --import tsx test/hostile/memory-scenarios.ts');
  process.exit(1);
}
const MiB = 1024 * 1024;
const heap = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};
const mib = (bytes: number) => `${(bytes / MiB).toFixed(1)} MiB`;

async function post(app: App, query: string | undefined, extensions?: Record<string, unknown>): Promise<number> {
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query, extensions }),
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

function result(scenario: string, retainedBytes: number): void {
  console.log(`RESULT ${JSON.stringify({ scenario, retainedBytes, heapLimitBytes: getHeapStatistics().heap_size_limit })}`);
}

const countArg = (fallback: number) => Number(process.argv.find((arg) => /^\d+$/.test(arg)) ?? fallback);
const statusLine = (statuses: Map<number, number>) => [...statuses].map(([status, n]) => `${n} × ${status}`).join(', ');
const tally = (statuses: Map<number, number>, status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1);

async function documentsScenario(app: App): Promise<void> {
  const count = countArg(100_000);
  const valid = (n: number) => `{ markets(first: 1) { edges { node { marketId } } } n${n}: __typename }`;
  // Refused by validation (an unknown field): its errors are cached with the document.
  const invalid = (n: number) => `{ markets(first: 1) { edges { node { marketId noSuchField } } } n${n}: __typename }`;
  // One run first, so what the first request builds once (schema caches, the market index) is not counted.
  await post(app, valid(-1));
  const start = heap();
  const statuses = new Map<number, number>();
  for (let n = 0; n < count; n++) tally(statuses, await post(app, n % 5 === 4 ? invalid(n) : valid(n)));
  for (let n = count - 1000; n < count; n++) tally(statuses, await post(app, valid(n)));
  const retained = heap() - start;
  console.log(
    `documents: ${count} distinct documents (one in five invalid), then the last 1,000 valid ones again (compiled on their second run): ` +
      `${statusLine(statuses)}; heap retained ${mib(retained)}`,
  );
  result('documents', retained);
}

async function apqScenario(app: App): Promise<void> {
  const persisted = (query: string) => ({ persistedQuery: { version: 1, sha256Hash: documentHash(query) } });
  await post(app, '{ __typename }');
  const start = heap();
  const large = new Map<number, number>();
  for (let n = 0; n < 300; n++) {
    const query = `{ __typename } # ${n} `.padEnd(1_900_000, 'x');
    tally(large, await post(app, query, persisted(query)));
  }
  const small = new Map<number, number>();
  for (let n = 0; n < 5000; n++) {
    const query = `{ n${n}: __typename }`;
    tally(small, await post(app, query, persisted(query)));
  }
  const retained = heap() - start;
  console.log(`apq: 300 registrations of 1.9 MB documents: ${statusLine(large)}; 5,000 of small ones: ${statusLine(small)}; heap retained ${mib(retained)}`);
  result('apq', retained);
}

async function streamsScenario(app: App): Promise<void> {
  const count = 2000;
  const server = createHttpServer(app.yoga);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  // Each stream on a connection of its own, as browsers open them.
  const dispatcher = new Agent({ connections: count + 10, pipelining: 0 });
  const startHeap = heap();
  const startRss = process.memoryUsage().rss;
  const controllers: AbortController[] = [];
  const statuses = new Map<number, number>();
  for (let i = 0; i < count; i++) {
    const controller = new AbortController();
    const response = await undiciFetch(`http://127.0.0.1:${port}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer memory-${i}`, 'x-service-client-key': 'memory' },
      body: JSON.stringify({ query: 'subscription { events { eventId kind symbol } }' }),
      signal: controller.signal,
      dispatcher,
    });
    tally(statuses, response.status);
    controllers.push(controller);
  }
  const perStreamHeap = (heap() - startHeap) / count;
  const perStreamRss = (process.memoryUsage().rss - startRss) / count;
  console.log(
    `streams: ${count} SSE subscriptions held open: ${statusLine(statuses)}; ${(perStreamHeap / 1024).toFixed(1)} KB of heap and ` +
      `${(perStreamRss / 1024).toFixed(1)} KB of RSS each (client and server sides together, in this one process)`,
  );
  for (const controller of controllers) controller.abort();
  await dispatcher.close().catch(() => {});
  server.closeAllConnections();
  server.close();
  result('streams', perStreamHeap * count);
}

const SECRET = 'memory-script-secret';

/** An SSE subscription read by `onMessage` until it returns false (then nothing more is read). */
async function subscribe(app: App, onMessage: (text: string) => boolean): Promise<() => void> {
  const controller = new AbortController();
  const response = await app.yoga.fetch('http://gateway.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify({ query: 'subscription { events { eventId kind symbol } }' }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done || !onMessage(decoder.decode(chunk.value, { stream: true }))) return;
    }
  })();
  return () => controller.abort();
}

async function webhookScenario(app: App, services: Services): Promise<void> {
  const token = { symbol: 'SOL', address: 'So11111111111111111111111111111111111111112' };
  const event = (id: string) => ({
    id,
    timestamp: '2026-01-05T12:00:00.000Z',
    event: 'token_price_change',
    token,
    trigger: { type: 'sliding_window_percentage_change', window: { duration: '1h' }, threshold: 0.05 },
    change: { direction: 'up', from: { timestamp: '2026-01-05T11:00:00.000Z', value: 180 }, to: { timestamp: '2026-01-05T12:00:00.000Z', value: 190 }, absolute: 10, percentage: 0.0556 },
  });
  const start = heap();
  const closers: (() => void)[] = [];
  for (let i = 0; i < 200; i++) closers.push(await subscribe(app, () => false));
  let read = 0;
  closers.push(await subscribe(app, (text) => ((read += text.split('event: next').length - 1), true)));

  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  let slowestHealth = 0;
  let probing = true;
  const probe = (async () => {
    while (probing) {
      const t = performance.now();
      await (await app.yoga.fetch('http://gateway.test/health')).arrayBuffer();
      slowestHealth = Math.max(slowestHealth, performance.now() - t);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  // Built first: the load generator shares the event loop, and its own work is not the gateway's stall.
  const bodies = [0, 1, 2].map((b) => JSON.stringify({ events: Array.from({ length: 10_000 }, (_, i) => event(`memory-${b}-${i}`)) }));
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  for (const [b, body] of bodies.entries()) {
    const response = await app.yoga.fetch('http://gateway.test/webhooks/events', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, body) },
      body,
    });
    console.log(`webhook: batch ${b + 1} of 10,000 events (${mib(body.length)}): ${response.status} ${await response.text()}`);
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  delay.disable();
  probing = false;
  await probe;
  clearInterval(sampler);
  const dropped = (await services.registry.getSingleMetric('gateway_event_subscribers_dropped_total')!.get()).values[0]?.value ?? 0;
  console.log(
    `webhook: peak RSS ${mib(peakRss)}; heap retained since start ${mib(heap() - start)}; longest event-loop stall ${(delay.max / 1e6).toFixed(0)} ms; ` +
      `slowest /health ${slowestHealth.toFixed(0)} ms; ${dropped} subscribers dropped, ${services.events.subscriptions} open; the reader got ${read} events`,
  );
  for (const close of closers) close();
}

async function main(): Promise<void> {
  const which = new Set(process.argv.slice(2));
  const all = which.size === 0;
  const sim = await startSimulator({ seed: 42 });
  // No rate limit: one caller sends every request here.
  const config = Object.freeze({ ...loadConfig({ RATE_LIMIT_PER_MINUTE: '0', RESPONSE_CACHE: 'off', MAX_STREAMS_PER_CLIENT: '100000', MAX_STREAMS: '100000' }), webhookSecret: SECRET });
  const services: Services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
  const app = createApp({ config, services });
  await services.start();
  try {
    if (all || which.has('parse')) await parseScenario(app);
    if (all || which.has('webhook')) await webhookScenario(app, services);
    if (all || which.has('documents')) await documentsScenario(app);
    if (all || which.has('apq')) await apqScenario(app);
    if (all || which.has('streams')) await streamsScenario(app);
  } finally {
    await services.close();
    await sim.close();
  }
}

await main();
// Aborted streams and the simulator's sockets may keep handles open: the measurements are done.
process.exit(0);

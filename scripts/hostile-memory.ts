/**
 * Memory under the hostile loads of issue 12, measured rather than asserted:
 *
 *   npm run memory -- [parse] [webhook]
 *
 * - `parse`: distinct documents made unique by a comment (the token limit never fires): 200 of 1 MB
 *   (refused before parsing), 600 of 60 KB and 600 dense ones of ~4,000 tokens (parsed and cached).
 *   Prints the heap each phase leaves behind after a full GC: bounded by the parse caches' byte limits.
 * - `webhook`: 200 SSE subscribers that read one event and then stop, one that keeps reading, and
 *   three signed batches of 10,000 events (2.8 MB each) pushed at them. Prints peak RSS, the heap
 *   left after GC, the longest event-loop stall, the slowest `/health` answer meanwhile, how many
 *   subscribers were dropped and how many events the reader got.
 *
 * In memory, through `yoga.fetch`, over the embedded simulator; not part of `npm test`.
 */
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createServices, type Services } from '../src/services.js';
import { signatureHeaders } from '../src/simulator/events/index.js';
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
  const config = Object.freeze({ ...loadConfig({}), webhookSecret: SECRET });
  const services: Services = createServices({ config, urls: sim.urls, logger: createLogger({ logLevel: 'silent' }) });
  const app = createApp({ config, services });
  await services.start();
  try {
    if (all || which.has('parse')) await parseScenario(app);
    if (all || which.has('webhook')) await webhookScenario(app, services);
  } finally {
    await services.close();
    await sim.close();
  }
}

await main();
// Aborted streams and the simulator's sockets may keep handles open: the measurements are done.
process.exit(0);

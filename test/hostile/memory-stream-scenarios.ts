import type { App } from '../../src/app.js';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { AddressInfo } from 'node:net';
import { Agent, fetch as undiciFetch } from 'undici';
import { createHttpServer } from '../../src/node-http.js';
import type { Services } from '../../src/services.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import { heap, mib, result, statusLine, tally, SECRET } from './memory-measures.js';

/** The `streams` and `webhook` scenarios of memory-scenarios.ts (described there): SSE held open and pushed at. */

export async function streamsScenario(app: App): Promise<void> {
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

export async function webhookScenario(app: App, services: Services): Promise<void> {
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

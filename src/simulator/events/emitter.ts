import type { World } from '../world/index.js';
import { eventsAt, type EventOptions, type WebhookEvent } from './compute.js';
import { signatureHeaders } from './sign.js';

export interface WebhookSenderOptions {
  /** Where deliveries go, e.g. `http://127.0.0.1:4000/webhooks/events`. */
  targetUrl: string;
  /** The shared `WEBHOOK_SECRET`. */
  secret: string;
  /** Retries of a delivery answered non-2xx or not at all (default 5, as the contract says). */
  maxRetries?: number;
  /** First retry delay; each next one doubles (default 500 ms). */
  retryBaseMs?: number;
  /** Defaults to the global fetch; tests pass `yoga.fetch` to deliver in memory. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /** Told about every finished delivery (delivered or given up). */
  onDelivery?: (result: DeliveryResult) => void;
}

export interface DeliveryResult {
  events: number;
  delivered: boolean;
  attempts: number;
  /** Status of the last attempt; `null` when it got no answer. */
  status: number | null;
}

export interface WebhookSender {
  /** Delivers one batch, signed, retrying with backoff. */
  send(events: readonly WebhookEvent[]): Promise<DeliveryResult>;
  /** Abandons pending retries and waits for deliveries under way. */
  close(): Promise<void>;
}

/**
 * POSTs batches as the upstream does: `{"events": [...]}`, signed; a non-2xx answer (or none) is
 * retried up to 5 times with doubling delays, each attempt signed afresh with the same body and ids.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const { targetUrl, secret } = options;
  const maxRetries = options.maxRetries ?? 5;
  const retryBaseMs = options.retryBaseMs ?? 500;
  const post = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const closing = new AbortController();
  const inFlight = new Set<Promise<DeliveryResult>>();

  async function deliver(events: readonly WebhookEvent[]): Promise<DeliveryResult> {
    const rawBody = JSON.stringify({ events });
    let status: number | null = null;
    let attempts = 0;
    while (attempts <= maxRetries && !closing.signal.aborted) {
      if (attempts > 0) await sleep(retryBaseMs * 2 ** (attempts - 1), closing.signal);
      if (closing.signal.aborted) break;
      attempts++;
      try {
        const response = await post(targetUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...signatureHeaders(secret, rawBody) },
          body: rawBody,
          signal: closing.signal,
        });
        status = response.status;
        await response.body?.cancel();
        if (response.ok) break;
      } catch {
        status = null;
      }
    }
    const result = { events: events.length, delivered: status !== null && status >= 200 && status < 300, attempts, status };
    options.onDelivery?.(result);
    return result;
  }

  return {
    send(events) {
      const work = deliver(events);
      inFlight.add(work);
      void work.finally(() => inFlight.delete(work)).catch(() => {});
      return work;
    },
    async close() {
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}

export interface EventEmitterOptions extends EventOptions, WebhookSenderOptions {
  world: World;
  /** A tick every this many ms, aligned to the clock (default 10 s). */
  intervalMs?: number;
}

export interface WebhookEmitter {
  /** Computes the events of the tick at `at` (epoch ms, default the latest tick) and delivers them; `null` when there were none. */
  tick(at?: number): Promise<DeliveryResult | null>;
  /** Stops ticking and abandons pending retries. */
  stop(): Promise<void>;
}

/**
 * The simulated upstream's event source: on every tick it computes events from the world's price
 * series (`eventsAt`) and delivers them to the gateway's webhook.
 */
export function startEventEmitter(options: EventEmitterOptions): WebhookEmitter {
  const intervalMs = options.intervalMs ?? 10_000;
  const sender = createWebhookSender(options);
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  async function tick(at = Math.floor(Date.now() / intervalMs) * intervalMs): Promise<DeliveryResult | null> {
    const events = eventsAt(options.world, at, intervalMs, options);
    return events.length === 0 ? null : sender.send(events);
  }

  function schedule(): void {
    if (stopped) return;
    const next = (Math.floor(Date.now() / intervalMs) + 1) * intervalMs;
    timer = setTimeout(() => {
      void tick(next);
      schedule();
    }, next - Date.now());
  }
  schedule();

  return {
    tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await sender.close();
    },
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

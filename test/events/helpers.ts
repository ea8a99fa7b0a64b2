import { expect, vi } from 'vitest';
import type { WebhookEvent } from '../../src/simulator/events/index.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';

export const SECRET = 'test-webhook-secret';
export const SOL = 'So11111111111111111111111111111111111111112';
export const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';

/** A gateway that accepts webhooks signed with SECRET, over `options.sim` or a simulator of its own. */
export function startEventsGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  return startTestGateway({ ...options, config: { webhookSecret: SECRET, ...options.config } });
}

/** A contract-shaped price-change event (docs/upstream.md section 4). */
export function priceChange(id: string, address = SOL, symbol = 'SOL'): WebhookEvent {
  return {
    id,
    timestamp: '2026-01-05T12:00:00.000Z',
    event: 'token_price_change',
    token: { symbol, address },
    trigger: { type: 'sliding_window_percentage_change', window: { duration: '1h' }, threshold: 0.05 },
    change: {
      direction: 'up',
      from: { timestamp: '2026-01-05T11:00:00.000Z', value: 180 },
      to: { timestamp: '2026-01-05T12:00:00.000Z', value: 190 },
      absolute: 10,
      percentage: 0.0556,
    },
  };
}

export function trending(id: string, address = JUP, symbol = 'JUP'): WebhookEvent {
  return {
    id,
    timestamp: '2026-01-05T12:00:00.000Z',
    event: 'trending_token',
    token: { symbol, address },
    trigger: { type: 'launchpad_graduated' },
    metrics: { marketCap: 1_200_000, liquidity: 90_000, holders: 4200, price: 0.0012, launchpad: 'pump.fun', priceChange24h: 0.4 },
  };
}

export function lastTrade(id: string, walletAddress: string, address = SOL, symbol = 'SOL'): WebhookEvent {
  return {
    id,
    timestamp: '2026-01-05T12:00:00.000Z',
    event: 'token_last_trade_price_change',
    walletAddress,
    token: { symbol, address },
    lastTradePrice: 150,
    currentPrice: 180,
    percentage: 0.2,
    direction: 'up',
  };
}

/** POSTs a webhook body through `yoga.fetch`, signed with `secret` at `nowMs` unless headers say otherwise. */
export async function postWebhook(
  gw: TestGateway,
  body: unknown,
  options: { secret?: string; nowMs?: number; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const raw = typeof body === 'string' ? body : JSON.stringify(body);
  const response = await gw.app.yoga.fetch('http://gateway.test/webhooks/events', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...signatureHeaders(options.secret ?? SECRET, raw, options.nowMs), ...options.headers },
    body: raw,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed };
}

export interface EventStream {
  status: number;
  contentType: string | null;
  /** The next `next` message's payload (`{ data, errors }`), or `null` once the stream completes. */
  next(): Promise<{ data?: any; errors?: any[] } | null>;
  close(): Promise<void>;
}

/**
 * Opens a subscription over server-sent events through `yoga.fetch` and reads its messages from the
 * response body, as a browser's EventSource would.
 */
export async function openStream(
  gw: TestGateway,
  query: string,
  variables: Record<string, unknown> = {},
  options: { path?: string; method?: 'GET' | 'POST'; accept?: string } = {},
): Promise<EventStream> {
  const controller = new AbortController();
  const method = options.method ?? 'POST';
  const path = options.path ?? '/graphql';
  const url = new URL(path, 'http://gateway.test');
  if (method === 'GET') {
    url.searchParams.set('query', query);
    url.searchParams.set('variables', JSON.stringify(variables));
  }
  const response = await gw.app.yoga.fetch(url.href, {
    method,
    headers: { accept: options.accept ?? 'text/event-stream', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    ...(method === 'POST' ? { body: JSON.stringify({ query, variables }) } : {}),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let done = false;

  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    async next() {
      for (;;) {
        const end = buffer.indexOf('\n\n');
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = block.split('\n');
          const event = lines.find((l) => l.startsWith('event:'))?.slice(6).trim();
          const data = lines
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('\n');
          if (event === 'complete') return null;
          if (event === 'next') return JSON.parse(data);
          continue; // a keep-alive comment
        }
        if (done) return null;
        const chunk = await reader.read();
        if (chunk.done) done = true;
        else buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    async close() {
      controller.abort();
      await reader.cancel().catch(() => {});
    },
  };
}

/**
 * Opens `count` event subscriptions and waits until each is listening on the hub (a subscription
 * starts listening when its stream is first read, so a read is started here and handed back).
 */
export async function subscribeEvents(
  gw: TestGateway,
  query: string,
  variables: Record<string, unknown> = {},
): Promise<{ stream: EventStream; first: ReturnType<EventStream['next']> }> {
  const before = gw.services.events.subscriptions;
  const stream = await openStream(gw, query, variables);
  expect(stream.status).toBe(200);
  const first = stream.next();
  await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(before + 1));
  return { stream, first };
}

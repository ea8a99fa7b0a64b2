import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/plugins/events-webhook.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { priceChange, SECRET, startEventsGateway } from './helpers.js';

/**
 * The longest synchronous stretch `work` holds the event loop for, in the main thread's own CPU time
 * between two turns of the loop. Other processes on a busy machine lengthen the wall clock between
 * turns, not this thread's CPU time, and GC helper threads are not counted: the bound holds on two
 * shared cores. (The measured stretches are in the README's webhook row.)
 */
async function longestStretchCpuMs<T>(work: () => Promise<T>): Promise<{ result: T; longestMs: number }> {
  let longest = 0;
  let running = true;
  let last = process.threadCpuUsage();
  const tick = () => {
    const now = process.threadCpuUsage();
    longest = Math.max(longest, (now.user + now.system - last.user - last.system) / 1000);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  return { result, longestMs: longest };
}

/** A signed POST of `count` price-change events whose body arrives in 64 KiB pieces, as from a socket. */
function signedBatch(count: number, prefix: string): { size: number; init: RequestInit } {
  const raw = Buffer.from(JSON.stringify({ events: Array.from({ length: count }, (_, i) => priceChange(`${prefix}-${i}`)) }));
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let at = 0; at < raw.length; at += 65_536) controller.enqueue(raw.subarray(at, at + 65_536));
      controller.close();
    },
  });
  const headers = { 'content-type': 'application/json', 'content-length': String(raw.length), ...signatureHeaders(SECRET, raw.toString()) };
  return { size: raw.length, init: { method: 'POST', headers, body, duplex: 'half' } as RequestInit };
}

describe('a webhook batch of the largest size', () => {
  let gw: TestGateway;
  const post = async (init: RequestInit) => {
    const response = await gw.app.yoga.fetch('http://gateway.test/webhooks/events', init);
    return { status: response.status, body: (await response.json()) as unknown };
  };

  beforeAll(async () => {
    gw = await startEventsGateway();
  });
  afterAll(() => gw?.close());

  it('is read, verified, parsed and deduplicated without holding the event loop for 30 ms of CPU at a time', async () => {
    // A first, small batch compiles the code paths.
    expect((await post(signedBatch(500, 'warm').init)).status).toBe(200);
    const batch = signedBatch(17_500, 'largest');
    expect(batch.size).toBeGreaterThan(MAX_WEBHOOK_BODY_BYTES * 0.9);
    expect(batch.size).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);

    const { result, longestMs } = await longestStretchCpuMs(() => post(batch.init));
    expect(result).toEqual({ status: 200, body: { received: 17_500, duplicates: 0, ignored: 0 } });
    expect(longestMs).toBeLessThan(30);
  });

  it('still refuses a body whose signature does not match the bytes, and one that is not JSON', async () => {
    const tampered = signedBatch(10, 'tampered').init;
    (tampered.headers as Record<string, string>)['x-service-signature'] = `sha256=${'0'.repeat(64)}`;
    expect(await post(tampered)).toEqual({ status: 401, body: { error: 'signature does not match' } });
    const text = '{"events": [';
    const notJson = { method: 'POST', headers: { 'content-type': 'application/json', ...signatureHeaders(SECRET, text) }, body: text };
    expect(await post(notJson)).toEqual({ status: 400, body: { error: 'body is not valid JSON' } });
  });
});

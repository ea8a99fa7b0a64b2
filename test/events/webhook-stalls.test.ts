import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/plugins/events-webhook.js';
import { signatureHeaders } from '../../src/simulator/events/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { priceChange, SECRET, startEventsGateway } from './helpers.js';

/**
 * The longest synchronous stretch `work` holds the event loop for, and all the main thread's CPU time it
 * took, both counted in the thread's own CPU time between two turns of the loop. Other processes on a
 * busy machine lengthen the wall clock between turns, not this thread's CPU time, and a slower machine
 * lengthens both alike: the test bounds their ratio, not milliseconds.
 */
async function stretchesCpu<T>(work: () => Promise<T>): Promise<{ result: T; longest: number; total: number }> {
  let longest = 0;
  let running = true;
  const first = process.threadCpuUsage();
  let last = first;
  const tick = () => {
    const now = process.threadCpuUsage();
    longest = Math.max(longest, now.user + now.system - last.user - last.system);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  running = false;
  const end = process.threadCpuUsage();
  return { result, longest, total: end.user + end.system - first.user - first.system };
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

  it('is read, verified, parsed and deduplicated in slices: no stretch without a turn of the event loop holds a quarter of its CPU', async () => {
    // A first, small batch compiles the code paths.
    expect((await post(signedBatch(500, 'warm').init)).status).toBe(200);
    const batch = signedBatch(17_500, 'largest');
    expect(batch.size).toBeGreaterThan(MAX_WEBHOOK_BODY_BYTES * 0.9);
    expect(batch.size).toBeLessThanOrEqual(MAX_WEBHOOK_BODY_BYTES);

    const { result, longest, total } = await stretchesCpu(() => post(batch.init));
    expect(result).toEqual({ status: 200, body: { received: 17_500, duplicates: 0, ignored: 0 } });
    // Unsliced, one stretch is nearly all of it (the parse of the whole body at once).
    expect(longest).toBeLessThan(total / 4);
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

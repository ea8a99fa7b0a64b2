import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SUBSCRIBER_QUEUE } from '../../src/events/subscribers.js';
import { MAX_WEBHOOK_BODY_BYTES } from '../../src/plugins/events-webhook.js';
import type { TestGateway } from '../helpers/gateway.js';
import { postWebhook, priceChange, startEventsGateway, subscribeEvents, type EventStream } from './helpers.js';

const EVENTS = 'subscription { events { eventId } }';
const batch = (prefix: string, count: number) => ({ events: Array.from({ length: count }, (_, i) => priceChange(`${prefix}-${i}`)) });

/** Reads `count` events off a stream, in order. */
async function readIds(stream: EventStream, first: ReturnType<EventStream['next']>, count: number): Promise<string[]> {
  const ids = [(await first)?.data?.events.eventId as string];
  while (ids.length < count) {
    const message = await stream.next();
    if (!message) break;
    ids.push(message.data?.events.eventId);
  }
  return ids;
}

const dropped = async (gw: TestGateway) => (await gw.services.registry.getSingleMetric('gateway_event_subscribers_dropped_total')!.get()).values[0]?.value ?? 0;

describe('webhook batches of any size', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startEventsGateway();
  });
  afterAll(() => gw?.close());

  it('delivers a batch of 2,000 events (past the 1,024 pending pushes of a repeater) to every subscriber, in order', async () => {
    const a = await subscribeEvents(gw, EVENTS);
    const b = await subscribeEvents(gw, EVENTS);
    // Both read as the batch arrives, as clients do.
    const reads = [readIds(a.stream, a.first, 2000), readIds(b.stream, b.first, 2000)];
    const answer = await postWebhook(gw, batch('two-k', 2000));
    expect(answer).toEqual({ status: 200, body: { received: 2000, duplicates: 0, ignored: 0 } });
    const expected = Array.from({ length: 2000 }, (_, i) => `two-k-${i}`);
    expect(await Promise.all(reads)).toEqual([expected, expected]);
    await a.stream.close();
    await b.stream.close();
  });

  it('accepts a batch of 10,000 events (2.8 MB, over the old 1 MiB limit) and delivers all of it', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const body = JSON.stringify(batch('ten-k', 10_000));
    expect(body.length).toBeGreaterThan(2.5 * 1024 * 1024);
    expect(body.length).toBeLessThan(MAX_WEBHOOK_BODY_BYTES);
    const reading = readIds(stream, first, 10_000);
    const answer = await postWebhook(gw, body);
    expect(answer).toEqual({ status: 200, body: { received: 10_000, duplicates: 0, ignored: 0 } });
    const ids = await reading;
    expect(ids).toHaveLength(10_000);
    expect(ids.at(-1)).toBe('ten-k-9999');
    await stream.close();
  });

  it(`drops a subscriber that falls ${SUBSCRIBER_QUEUE} events behind, closing its stream with a final error, and counts it`, async () => {
    const before = await dropped(gw);
    const reader = await subscribeEvents(gw, EVENTS);
    const stalled = await subscribeEvents(gw, EVENTS);
    const open = gw.services.events.subscriptions;
    const count = 3 * SUBSCRIBER_QUEUE;
    // The reader keeps up while the batch is delivered; the stalled one reads nothing.
    const reading = readIds(reader.stream, reader.first, count);
    for (const part of ['a', 'b', 'c']) expect((await postWebhook(gw, batch(`slow-${part}`, SUBSCRIBER_QUEUE))).status).toBe(200);
    expect(await reading).toHaveLength(count);

    await vi.waitFor(() => expect(gw.services.events.subscriptions).toBe(open - 1));
    expect(await dropped(gw)).toBe(before + 1);
    // What the stalled client sees when it reads again: a few events, then the error, then the end.
    const messages: any[] = [await stalled.first];
    for (let message = await stalled.stream.next(); message; message = await stalled.stream.next()) messages.push(message);
    // Far fewer than the 3,072 sent: at most the queue's 1,024 plus what the transport buffered.
    expect(messages.length).toBeLessThan(2 * SUBSCRIBER_QUEUE);
    const last = messages.at(-1);
    expect(last.errors[0].message).toBe(`This subscription fell more than ${SUBSCRIBER_QUEUE} events behind and was closed; subscribe again.`);
    expect(last.errors[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'SUBSCRIBER_TOO_SLOW' });
    await reader.stream.close();
  });

  it('logs one warning per batch for its ignored events, with counts', async () => {
    const warn = vi.spyOn(gw.services.logger, 'warn');
    const unknown = Array.from({ length: 10_000 }, (_, i) => ({ ...priceChange(`unknown-${i}`), event: 'token_new_kind' }));
    const answer = await postWebhook(gw, { events: [...unknown, priceChange('known-1')] });
    expect(answer).toEqual({ status: 200, body: { received: 10_001, duplicates: 0, ignored: 10_000 } });
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]).toEqual([
      { ignored: 10_000, reasons: { 'unknown event kind "token_new_kind"': 10_000 } },
      'webhook: events ignored',
    ]);
    warn.mockRestore();
  });
});

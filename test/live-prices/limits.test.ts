import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LIVE_SUBSCRIBER_QUEUE } from '../../src/stores/live-prices/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { openStream, type EventStream } from '../events/helpers.js';
import { PRICES, startLiveGateway, subscribePrices, untilNoSubscribers, VOLATILE } from './helpers.js';

const metric = async (gw: TestGateway, name: string) => (await gw.services.registry.getSingleMetric(name)!.get()).values[0]?.value ?? 0;

/** Reads a stream until it ends, keeping each tick as `assetId asOf usd`; returns how many events it read. */
async function readAll(stream: EventStream, into: string[]): Promise<number> {
  let events = 0;
  for (let message = await stream.next(); message; message = await stream.next(), events++) {
    for (const t of message.data?.prices ?? []) into.push(`${t.assetId} ${t.asOf} ${t.usd}`);
  }
  return events;
}

describe('live price streams under load and limits', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startLiveGateway({ config: { maxStreamsPerClient: 3, maxStreams: 10 } });
  });
  afterAll(() => gw?.close());

  it(`drops a subscriber that stops reading (${LIVE_SUBSCRIBER_QUEUE} events behind) while the others get every change`, { timeout: 90_000 }, async () => {
    const dropsBefore = await metric(gw, 'gateway_live_price_subscribers_dropped_total');
    const readers = [await subscribePrices(gw, VOLATILE), await subscribePrices(gw, VOLATILE)];
    const stalled = await subscribePrices(gw, VOLATILE);
    const received: string[][] = [[], []];
    const reading = readers.map((r, i) => readAll(r.stream, received[i]!));

    await vi.waitFor(() => expect(gw.services.livePrices.subscribers).toBe(2), { timeout: 60_000, interval: 100 });
    expect(await metric(gw, 'gateway_live_price_subscribers_dropped_total')).toBe(dropsBefore + 1);
    // The readers kept up: they hold more events than the stalled one could queue, the same ones.
    const ticksSoFar = received[0]!.length;
    expect(ticksSoFar).toBeGreaterThan(LIVE_SUBSCRIBER_QUEUE);
    await vi.waitFor(() => expect(received[1]!.slice(0, ticksSoFar)).toEqual(received[0]!.slice(0, ticksSoFar)));

    // The stalled client, reading again: what was queued, then the error, then the end.
    const messages: any[] = [];
    for (let message = await stalled.stream.next(); message; message = await stalled.stream.next()) messages.push(message);
    for (const r of readers) await r.stream.close();
    // Fewer than the readers got: its queue's events and what the transport buffered, no more.
    expect(messages.length).toBeLessThan(Math.min(...(await Promise.all(reading))));
    expect(messages.at(-1).errors[0]).toMatchObject({
      message: `This subscription fell more than ${LIVE_SUBSCRIBER_QUEUE} price events behind and was closed; subscribe again.`,
      extensions: { code: 'RATE_LIMITED', reason: 'SUBSCRIBER_TOO_SLOW' },
    });
    await untilNoSubscribers(gw);
  });

  it('counts price streams against MAX_STREAMS_PER_CLIENT and frees the slot when one ends', async () => {
    await vi.waitFor(async () => expect(await metric(gw, 'gateway_streams_open')).toBe(0));
    const held = [await subscribePrices(gw, VOLATILE), await subscribePrices(gw, VOLATILE), await subscribePrices(gw, [VOLATILE[0]!])];
    const refused = await openStream(gw, PRICES, { ids: VOLATILE });
    expect(refused.status).toBe(429);
    expect((await refused.next())?.errors?.[0].extensions).toMatchObject({ code: 'RATE_LIMITED', reason: 'TOO_MANY_STREAMS' });
    await refused.close();
    expect(gw.services.livePrices.subscribers).toBe(3);
    await held.pop()!.stream.close();
    await vi.waitFor(() => expect(gw.services.livePrices.subscribers).toBe(2));
    const again = await subscribePrices(gw, VOLATILE);
    expect(again.first.data.prices).toHaveLength(3);
    for (const h of [...held, again]) await h.stream.close();
    await untilNoSubscribers(gw);
  });
});

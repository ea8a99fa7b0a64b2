import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import type { TestGateway } from '../helpers/gateway.js';
import { postWebhook, priceChange, startEventsGateway, subscribeEvents, trending } from './helpers.js';

const EVENTS = 'subscription { events { eventId } }';

/** JSON text of a value nested `depth` objects deep (JSON.stringify itself cannot write it). */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

describe('webhook batches judged per event', () => {
  let gw: TestGateway;
  let logBytes = 0;
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logBytes += chunk.length;
        done();
      },
    });
    gw = await startEventsGateway({ logger: createLogger({ logLevel: 'info' }, sink) });
  });
  afterAll(() => gw?.close());

  it('skips and counts an event nested 5,000 deep, delivers the others and acknowledges the batch', async () => {
    const { stream, first } = await subscribeEvents(gw, EVENTS);
    const deep = JSON.stringify({ ...priceChange('deep'), event: 'DEEP' }).replace('"DEEP"', nested(5000));
    const deepToken = JSON.stringify({ ...priceChange('deep-token'), token: 'DEEP' }).replace('"DEEP"', nested(5000));
    const good = [priceChange('before-deep'), trending('after-deep')].map((event) => JSON.stringify(event));
    const answer = await postWebhook(gw, `{"events":[${good[0]},${deep},${deepToken},${good[1]}]}`);
    expect(answer).toEqual({ status: 200, body: { received: 4, duplicates: 0, ignored: 2 } });
    expect((await first)?.data.events.eventId).toBe('before-deep');
    expect((await stream.next())?.data.events.eventId).toBe('after-deep');
    await stream.close();
  });

  it('logs a few hundred bytes, not megabytes, about ten unknown kinds named with 700 KB each', async () => {
    const before = logBytes;
    const events = Array.from({ length: 10 }, (_, i) => ({ ...priceChange(`huge-kind-${i}`), event: `${i}`.repeat(700_000) }));
    const answer = await postWebhook(gw, { events: [...events, priceChange('beside-huge-kinds')] });
    expect(answer).toEqual({ status: 200, body: { received: 11, duplicates: 0, ignored: 10 } });
    expect(logBytes - before).toBeGreaterThan(0);
    expect(logBytes - before).toBeLessThan(4096);
  });
});

import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseWebhookBody } from '../../src/events/parse.js';
import { verifySignature } from '../../src/events/signature.js';
import {
  createWebhookSender,
  eventsAt,
  priceChangeEvents,
  startEventEmitter,
  type WebhookEvent,
} from '../../src/simulator/events/index.js';
import { generateWorld, type AssetRecord, type World } from '../../src/simulator/world/index.js';
import type { TestGateway } from '../helpers/gateway.js';
import { SECRET, startEventsGateway, subscribeEvents } from './helpers.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-03-01T00:00:00.000Z');

/** A world whose one token is flat at 100 until T0, then moves `perMinute` USD a minute. */
function rampWorld(perMinute: number): { world: World; tokens: AssetRecord[] } {
  const world = { priceAt: (_id: string, t: number | Date) => 100 + (Math.max(0, Number(t) - T0) / MINUTE) * perMinute } as unknown as World;
  const tokens = [{ id: 'solana:RampToken111', address: 'RampToken111', symbol: 'RAMP' }] as AssetRecord[];
  return { world, tokens };
}

/** The ticks from T0 to `T0 + minutes` at which events fire. */
function firingTicks(world: World, tokens: AssetRecord[], minutes: number, threshold: number) {
  const fired: { minute: number; events: WebhookEvent[] }[] = [];
  for (let minute = 0; minute <= minutes; minute++) {
    const events = priceChangeEvents(world, tokens, T0 + minute * MINUTE, MINUTE, { '1h': threshold });
    if (events.length) fired.push({ minute, events });
  }
  return fired;
}

describe('simulator events: sliding window and threshold', () => {
  it('fires once, on the tick where the 1 h move first reaches the threshold', () => {
    const { world, tokens } = rampWorld(1); // +1 %/min of the starting price: 5 % after 5 minutes
    const fired = firingTicks(world, tokens, 30, 0.05);
    expect(fired.map((f) => f.minute)).toEqual([5]);
    expect(fired[0]!.events).toEqual([
      {
        id: `token_price_change:1h:RampToken111:${T0 + 5 * MINUTE}`,
        timestamp: new Date(T0 + 5 * MINUTE).toISOString(),
        event: 'token_price_change',
        token: { symbol: 'RAMP', address: 'RampToken111', assetId: 'solana:RampToken111' },
        trigger: { type: 'sliding_window_percentage_change', window: { duration: '1h' }, threshold: 0.05 },
        change: {
          direction: 'up',
          from: { timestamp: new Date(T0 + 5 * MINUTE - HOUR).toISOString(), value: 100 },
          to: { timestamp: new Date(T0 + 5 * MINUTE).toISOString(), value: 105 },
          absolute: 5,
          percentage: expect.closeTo(0.05, 10),
        },
      },
    ]);
  });

  it('fires downwards too, and not at all below the threshold', () => {
    const down = rampWorld(-0.5);
    const fired = firingTicks(down.world, down.tokens, 30, 0.05);
    expect(fired.map((f) => f.minute)).toEqual([10]);
    expect(fired[0]!.events[0]).toMatchObject({ change: { direction: 'down', absolute: -5 } });

    expect(firingTicks(down.world, down.tokens, 30, 0.2)).toEqual([]);
  });

  it("computes the same events with the same ids from the world's real series, each one the gateway accepts", () => {
    const world = generateWorld(7);
    const between = T0 + 17 * MINUTE + 30_000;
    expect(eventsAt(world, between, 10_000)).toEqual(eventsAt(world, between, 10_000));
    expect(eventsAt(world, between, 10_000).filter((e) => e.event === 'trending_token')).toEqual([]);

    const at = T0 + 18 * MINUTE; // a minute boundary: one trending token with the price events
    const events = eventsAt(world, at, 10_000);
    expect(events.filter((e) => e.event === 'trending_token')).toHaveLength(1);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);

    // Every price event really is a move past its threshold in the world's own series.
    const priceEvents = events.filter((e) => e.event === 'token_price_change');
    expect(priceEvents.length).toBeGreaterThan(0);
    for (const e of priceEvents) {
      expect(e.change.from.value).toBe(world.priceAt(e.token.assetId!, Date.parse(e.change.from.timestamp)));
      expect(e.change.to.value).toBe(world.priceAt(e.token.assetId!, at));
      expect(Math.abs(e.change.percentage)).toBeGreaterThanOrEqual(e.trigger.threshold);
    }
    const parsed = parseWebhookBody(JSON.parse(JSON.stringify({ events })));
    expect(parsed).toMatchObject({ ignored: [] });
    expect('events' in parsed && parsed.events).toHaveLength(events.length);
  });
});

describe('simulator events: delivery', () => {
  let server: Server;
  let url: string;
  let statuses: number[] = [];
  const received: { body: string; timestamp: string | null; signature: string | null }[] = [];

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({
          body: Buffer.concat(chunks).toString('utf8'),
          timestamp: req.headers['x-service-timestamp'] as string,
          signature: req.headers['x-service-signature'] as string,
        });
        res.writeHead(statuses.shift() ?? 200).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/events`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    received.length = 0;
    statuses = [];
  });

  const batch = [{ id: 'e-1', timestamp: new Date(T0).toISOString(), event: 'trending_token' } as unknown as WebhookEvent];

  it('retries a 500 with the same body, signed afresh each time, until it is accepted', async () => {
    statuses = [500, 503];
    const sender = createWebhookSender({ targetUrl: url, secret: SECRET, retryBaseMs: 1 });
    expect(await sender.send(batch)).toEqual({ events: 1, delivered: true, attempts: 3, status: 200 });
    expect(received).toHaveLength(3);
    expect(new Set(received.map((r) => r.body))).toEqual(new Set([JSON.stringify({ events: batch })]));
    for (const r of received) {
      expect(verifySignature(SECRET, { timestamp: r.timestamp, signature: r.signature, rawBody: Buffer.from(r.body) })).toEqual({ ok: true });
    }
    await sender.close();
  });

  it('gives up after 5 retries', async () => {
    statuses = Array(10).fill(500);
    const sender = createWebhookSender({ targetUrl: url, secret: SECRET, retryBaseMs: 1 });
    expect(await sender.send(batch)).toEqual({ events: 1, delivered: false, attempts: 6, status: 500 });
    expect(received).toHaveLength(6);
    await sender.close();
  });

  it('retries when nothing answers', async () => {
    const sender = createWebhookSender({ targetUrl: 'http://127.0.0.1:1/webhooks/events', secret: SECRET, retryBaseMs: 1, maxRetries: 2 });
    expect(await sender.send(batch)).toEqual({ events: 1, delivered: false, attempts: 3, status: null });
    await sender.close();
  });
});

describe('simulator events into the gateway', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startEventsGateway();
  });
  afterAll(() => gw?.close());

  it('reaches a subscriber, signed and deduplicated, when a tick is delivered twice', async () => {
    const emitter = startEventEmitter({
      world: gw.sim.world,
      targetUrl: 'http://gateway.test/webhooks/events',
      secret: SECRET,
      intervalMs: MINUTE,
      fetch: (target, init) => Promise.resolve(gw.app.yoga.fetch(target, init)),
    });
    const { stream, first } = await subscribeEvents(gw, 'subscription { events(kinds: [TRENDING_TOKEN]) { eventId symbol asset { assetId } } }');

    const at = T0 + 42 * MINUTE;
    expect(await emitter.tick(at)).toMatchObject({ delivered: true, attempts: 1, status: 200 });
    expect(await emitter.tick(at)).toMatchObject({ delivered: true, status: 200 });
    await emitter.tick(at + MINUTE);

    const one = (await first)?.data.events;
    expect(one.eventId).toBe(`trending_token:${(at / MINUTE).toString()}`);
    expect(one.asset.assetId).toMatch(/^solana:/);
    expect((await stream.next())?.data.events.eventId).toBe(`trending_token:${at / MINUTE + 1}`);
    await stream.close();
    await emitter.stop();
  });
});

import { describe, expect, it, vi } from 'vitest';
import { openStream, type EventStream } from '../events/helpers.js';
import { useRedisReplicas, type TestGateway } from '../helpers/gateway.js';
import { needsRedis } from '../helpers/processes.js';
import { INTERVAL_MS, livePricesConfig, readsOf } from './helpers.js';

const SUBSCRIBERS = 1000;
const PRICES = 'subscription Prices($ids: [ID!]!) { prices(assetIds: $ids) { assetId usd asOf } }';
/** Twenty assets whose simulated price moves between two reads an interval apart. */
const ASSETS = [
  ...['So11111111111111111111111111111111111111112', 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
    'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr', 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3',
    'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE',
    'rndrizKT3MK1iimdxRdWabcF7Zg7AR5T4nud4EkHBof', '85VBFQZC9TZkfaptBWjvUw7YbZjy52A6mjtPGjstQAmQ', 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS',
    'DriFtupJYLTosbwoN8koMbEYSx54aFAVLddWsbksjwg7'].map((a) => `solana:${a}`),
  'bitcoin:native', 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'ethereum:0x514910771af9ca656af840dff83e8264ecf986ca',
  'stock:AAPL', 'stock:TSLA', 'stock:NVDA', 'stock:COIN',
];

interface Subscriber {
  assets: string[];
  stream: EventStream;
  /** Every tick received, per asset: `asOf usd`. */
  ticks: Map<string, string[]>;
  reading: Promise<void>;
}

async function subscribe(gw: TestGateway, assets: string[]): Promise<Subscriber> {
  const stream = await openStream(gw, PRICES, { ids: assets });
  const ticks = new Map<string, string[]>(assets.map((id) => [id, []]));
  const first = await stream.next();
  expect(first?.data?.prices).toHaveLength(assets.length);
  const record = (message: any) => {
    for (const t of message.data.prices) ticks.get(t.assetId)!.push(`${t.asOf} ${t.usd}`);
  };
  record(first);
  const reading = (async () => {
    for (let message = await stream.next(); message; message = await stream.next()) {
      expect(message.errors).toBeUndefined();
      record(message);
    }
  })();
  return { assets, stream, ticks, reading };
}

/** Waits until both replicas have run their round of the current slot, and returns that slot. */
async function betweenRounds(a: TestGateway, b: TestGateway): Promise<number> {
  for (;;) {
    const slot = Math.floor(Date.now() / INTERVAL_MS);
    const done = [a, b].every((gw) => gw.services.livePrices.recentRounds().at(-1)?.slot === slot);
    if (done && Math.floor(Date.now() / INTERVAL_MS) === slot) return slot;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const roundsAfter = (gw: TestGateway, slot: number) => gw.services.livePrices.recentRounds().filter((r) => r.slot > slot);

describe.runIf(needsRedis(import.meta.filename))('live prices over two replicas sharing Redis', () => {
  const cluster = useRedisReplicas({ config: { livePrices: livePricesConfig(), maxStreamsPerClient: SUBSCRIBERS } });

  it('reads each asset once per interval for the cluster, hands every change to 1,000 subscribers, and stops when they leave', { timeout: 120_000 }, async () => {
    const { a, b, sim } = cluster;
    const subscribers: Subscriber[] = [];
    for (let i = 0; i < SUBSCRIBERS; i++) {
      const assets = [ASSETS[i % 20]!, ASSETS[(i + 7) % 20]!, ASSETS[(i + 13) % 20]!];
      subscribers.push(await subscribe(i % 2 === 0 ? a : b, assets));
    }
    expect(a.services.livePrices.subscribers + b.services.livePrices.subscribers).toBe(SUBSCRIBERS);
    expect(a.services.livePrices.assets).toBe(20);

    const start = await betweenRounds(a, b);
    sim.controls.resetCounts();
    const startedAt = Date.now();
    // Ten intervals' worth of rounds, counted, not timed.
    await vi.waitFor(() => expect(Math.max(...[a, b].map((gw) => gw.services.livePrices.recentRounds().at(-1)!.slot))).toBeGreaterThan(start + 10), {
      timeout: 60_000,
      interval: 50,
    });
    const end = await betweenRounds(a, b);
    // Every subscriber, on either replica, holds each of its assets' ticks read in the window.
    const inWindow = (entry: string) => {
      const asOf = Date.parse(entry.split(' ')[0]!);
      return asOf >= startedAt && Math.floor(asOf / INTERVAL_MS) <= end;
    };
    await vi.waitFor(
      () => {
        for (const id of ASSETS) {
          const lists = subscribers.filter((s) => s.assets.includes(id)).map((s) => s.ticks.get(id)!.filter(inWindow).join());
          expect(new Set(lists).size).toBe(1);
        }
      },
      { timeout: 30_000, interval: 100 },
    );
    const changes = ASSETS.map((id) => subscribers.find((s) => s.assets.includes(id))!.ticks.get(id)!.filter(inWindow).length);
    expect(Math.min(...changes)).toBeGreaterThan(3);

    await Promise.all(subscribers.map((s) => s.stream.close()));
    await Promise.all(subscribers.map((s) => s.reading.catch(() => {})));
    await vi.waitFor(() => expect(a.services.livePrices.subscribers + b.services.livePrices.subscribers).toBe(0), { timeout: 30_000 });
    expect(a.services.livePrices.assets + b.services.livePrices.assets).toBe(0);
    // Polling stops: a round that finds nobody watching schedules no other.
    await vi.waitFor(() => expect([a, b].map((gw) => gw.services.livePrices.polling)).toEqual([false, false]), { timeout: 30_000 });
    const settled = [a, b].map((gw) => gw.services.livePrices.recentRounds().length);
    await new Promise((resolve) => setTimeout(resolve, 4 * INTERVAL_MS));
    expect([a, b].map((gw) => gw.services.livePrices.recentRounds().length)).toEqual(settled);
    const readsAfterStop = ASSETS.map((id) => readsOf({ sim }, id));

    // One replica won each asset's lease in each slot; the simulator saw exactly the reads it made.
    const rounds = [...roundsAfter(a, start), ...roundsAfter(b, start)];
    for (const id of ASSETS) {
      const claimed = rounds.filter((r) => r.claimed.includes(id)).map((r) => r.slot).sort((x, y) => x - y);
      expect(new Set(claimed).size).toBe(claimed.length);
      // A slot whose rounds both ran late (one busy event loop runs both replicas and the 1,000 clients here) is skipped, never read twice.
      expect(claimed.length).toBeGreaterThan(5);
      expect(rounds.filter((r) => r.asked.includes(id))).toHaveLength(readsOf({ sim }, id));
    }
    expect(readsAfterStop).toEqual(ASSETS.map((id) => readsOf({ sim }, id)));
    expect(rounds.some((r) => r.claimed.length > 0 && a.services.livePrices.recentRounds().includes(r))).toBe(true);
  });
});

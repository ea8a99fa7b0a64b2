import { vi, expect } from 'vitest';
import type { Config } from '../../src/config.js';
import { WELL_KNOWN_SOLANA } from '../../src/simulator/world/assets.js';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../helpers/gateway.js';
import { openStream, type EventStream } from '../events/helpers.js';

/** A short interval: tests count rounds, never time them. */
export const INTERVAL_MS = 250;
export const livePricesConfig = (over: Partial<Config['livePrices']> = {}): Config['livePrices'] => ({
  intervalMs: INTERVAL_MS,
  maxAssets: 100,
  maxProcessAssets: 2000,
  ...over,
});

export const PRICES = 'subscription Prices($ids: [ID!]!) { prices(assetIds: $ids) { assetId usd change24h asOf source stale } }';

/** Volatile assets of the simulator (their price moves between two reads 250 ms apart). */
export const VOLATILE = ['SOL', 'JUP', 'BONK'].map((s) => `solana:${WELL_KNOWN_SOLANA[s as keyof typeof WELL_KNOWN_SOLANA]}`);

export function startLiveGateway(options: TestGatewayOptions = {}, over: Partial<Config['livePrices']> = {}): Promise<TestGateway> {
  return startTestGateway({ ...options, config: { ...options.config, livePrices: livePricesConfig(over) } });
}

/** Reads by the assets service of one asset (`GET /v0/assets/:id`), from the simulator's log. */
export function readsOf(gw: Pick<TestGateway, 'sim'>, assetId: string): number {
  return gw.sim.controls.headerLog({ service: 'assets', route: 'GET /v0/assets/:id' }).filter((e) => decodeURIComponent(e.path).endsWith(`/${assetId}`)).length;
}

/** Opens a `prices` stream and waits for its first event. */
export async function subscribePrices(gw: TestGateway, ids: readonly string[]): Promise<{ stream: EventStream; first: any }> {
  const stream = await openStream(gw, PRICES, { ids });
  expect(stream.status).toBe(200);
  const first = await stream.next();
  return { stream, first };
}

export async function untilNoSubscribers(gw: TestGateway): Promise<void> {
  await vi.waitFor(() => expect(gw.services.livePrices.subscribers).toBe(0), { timeout: 10_000 });
  await vi.waitFor(() => expect(gw.services.livePrices.polling).toBe(false), { timeout: 10_000 });
}

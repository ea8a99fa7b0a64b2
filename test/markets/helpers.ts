import { Registry } from 'prom-client';
import { createMarketIndex, type MarketIndex, type MarketIndexOptions } from '../../src/stores/market-index.js';
import { createLogger } from '../../src/logger.js';
import { marketTokenAddresses } from '../../src/simulator/markets/routes.js';
import type { Market as RawMarket } from '../../src/simulator/world/index.js';
import type { TestGateway } from '../helpers/gateway.js';

export const LISTING = 'GET /v0/markets';
export const HISTORY = 'GET /v0/markets/history';
export const ASSET = 'GET /v0/assets/:id';

export const listingCalls = (gw: TestGateway): number => gw.sim.controls.count('markets', LISTING);
export { totalCalls } from '../helpers/gateway.js';

export interface RawFilter {
  types?: string[];
  providers?: string[];
  assets?: string[];
  /** Prediction statuses; default open, as the upstream does. */
  statuses?: string[];
}

/** The markets the upstream lists for a filter, in its order: the reference the gateway is checked against. */
export function rawListing(gw: TestGateway, f: RawFilter = {}): RawMarket[] {
  const statuses = f.statuses ?? ['open'];
  return gw.sim.world.markets.filter(
    (m) =>
      (!f.types || f.types.includes(m.type)) &&
      (!f.providers || f.providers.includes(m.provider.id)) &&
      (!f.assets || marketTokenAddresses(m).some((a) => f.assets!.includes(a))) &&
      (m.type !== 'prediction' || statuses.includes(m.status)),
  );
}

export const rawById = (gw: TestGateway, id: string): RawMarket => gw.sim.world.marketsById.get(id)!;

export interface IndexUnderTest {
  index: MarketIndex;
  logger: ReturnType<typeof createLogger>;
  tokens: number;
}

/**
 * A market index of its own over the gateway's upstream clients (a fresh metrics registry, a silent
 * logger tests can spy on), for timings the shared index does not use.
 */
export function indexOver(gw: TestGateway, options: Omit<MarketIndexOptions, 'onTokens'> = {}): IndexUnderTest {
  const logger = createLogger({ logLevel: 'silent' });
  const state: IndexUnderTest = {
    logger,
    tokens: 0,
    index: undefined as unknown as MarketIndex,
  };
  state.index = createMarketIndex(
    { logger, upstream: gw.services.upstream, registry: new Registry() },
    { ...options, onTokens: (tokens) => (state.tokens += tokens.length) },
  );
  return state;
}

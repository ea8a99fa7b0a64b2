import type { Credentials } from '../credentials.js';
import type { Services } from '../services.js';
import { createAlertsLoaders, type AlertsLoaders } from './alerts.js';
import { createAssetLoaders, type AssetLoaders } from './assets.js';
import { createMarketLoaders, type MarketLoaders } from './markets.js';
import { createPositionLoaders, type PositionLoaders } from './positions.js';

/** Every per-request loader, by domain. Built once per request by `createContext` (and per event of a subscription). */
export interface Loaders {
  assets: AssetLoaders;
  markets: MarketLoaders;
  positions: PositionLoaders;
  alerts: AlertsLoaders;
}

/**
 * `signal` is the request's own: its abort (the client went away) abandons the upstream reads these
 * loaders make for it. Writes and the shared caches they read through never take it.
 */
export function createLoaders(services: Services, credentials: Credentials, signal: AbortSignal): Loaders {
  return {
    assets: createAssetLoaders(services, signal),
    markets: createMarketLoaders(services, signal),
    positions: createPositionLoaders(services, signal),
    alerts: createAlertsLoaders(services, credentials, signal),
  };
}

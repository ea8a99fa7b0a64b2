import type { Credentials } from '../context.js';
import type { Services } from '../services.js';
import { createAlertsLoaders, type AlertsLoaders } from './alerts.js';
import { createAssetLoaders, type AssetLoaders } from './assets.js';
import { createMarketLoaders, type MarketLoaders } from './markets.js';
import { createPositionLoaders, type PositionLoaders } from './positions.js';

/** Every per-request loader, by domain. Built once per request by `createContext`. */
export interface Loaders {
  assets: AssetLoaders;
  markets: MarketLoaders;
  positions: PositionLoaders;
  alerts: AlertsLoaders;
}

export function createLoaders(services: Services, credentials: Credentials): Loaders {
  return {
    assets: createAssetLoaders(services),
    markets: createMarketLoaders(services),
    positions: createPositionLoaders(services),
    alerts: createAlertsLoaders(services, credentials),
  };
}

import type { Credentials } from '../credentials.js';
import type { Services } from '../services.js';
import { createAlertsLoaders, type AlertsLoaders } from './alerts.js';
import { createAssetLoaders, type AssetLoaders } from './assets.js';
import { createMarketLoaders, type MarketLoaders } from './markets.js';
import { createPositionLoaders, type PositionLoaders } from './positions.js';
import type { CallScope } from '../upstream/scope.js';

/** Every per-request loader, by domain. Built once per request by `createContext` (and per event of a subscription). */
export interface Loaders {
  assets: AssetLoaders;
  markets: MarketLoaders;
  positions: PositionLoaders;
  alerts: AlertsLoaders;
}

/**
 * `scope` is the operation's own: its signal's abort (the client went away) abandons the upstream reads
 * these loaders make for it, and its budget counts every call. Writes and the shared stores they read
 * through take it without the signal.
 */
export function createLoaders(services: Services, credentials: Credentials, scope: CallScope): Loaders {
  return {
    assets: createAssetLoaders(services, scope),
    markets: createMarketLoaders(services, scope),
    positions: createPositionLoaders(services, scope),
    alerts: createAlertsLoaders(services, credentials, scope),
  };
}

// STUB: replaced by the alerts domain.
import type { Credentials } from '../context.js';
import type { Services } from '../services.js';
export type AlertsLoaders = Record<string, never>;
export function createAlertsLoaders(_services: Services, _credentials: Credentials): AlertsLoaders {
  return {};
}

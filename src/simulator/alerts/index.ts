import { AlertsState, type AlertsStateOptions } from './state.js';

export { AlertsState, EMAIL_CODE_TTL_MS, IDEMPOTENCY_WINDOW_MS, type AlertsStateOptions } from './state.js';
export { registerAlertsRoutes } from './routes.js';
export { validateSendBody, MAX_RECIPIENTS } from './send.js';
export { DEMO_CLIENT_KEY } from './data.js';
export type * from './types.js';

/** The alerts service's state, generated from `seed` over the given wallets (the markets world's). */
export function createAlertsState(seed: number, walletAddresses: string[], options?: AlertsStateOptions): AlertsState {
  return new AlertsState(seed, walletAddresses, options);
}

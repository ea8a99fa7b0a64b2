import type { Router } from '../router.js';
import { registerAppRoutes } from './apps.js';
import { registerChannelRoutes } from './channels.js';
import { registerInboxRoutes } from './inbox.js';
import { registerSendRoutes } from './send.js';
import type { AlertsState } from './state.js';

/** Registers every route of docs/upstream.md section 1 on the alerts router, a file per section. */
export function registerAlertsRoutes(router: Router, state: AlertsState): void {
  registerChannelRoutes(router, state);
  registerAppRoutes(router, state);
  registerInboxRoutes(router, state);
  // 1.5 Application calls
  registerSendRoutes(router, state);
}

import { header, unauthorized, type Handler, type SimRequest, type SimResponse } from '../router.js';
import type { AlertsState } from './state.js';
import type { SubscriberRecord } from './types.js';

/** A route of a subscriber: its handler runs for an authenticated subscriber only, else 401. */
export type SubscriberRoute = (fn: (s: SubscriberRecord, req: SimRequest) => SimResponse) => Handler;

export function subscriberRoute(state: AlertsState): SubscriberRoute {
  return (fn) => {
    return (req) => {
      const s = authenticate(state, req);
      return s ? fn(s, req) : unauthorized();
    };
  };
}

/** The subscriber behind `Authorization: Bearer` when `X-Service-Client-Key` is valid too. */
function authenticate(state: AlertsState, req: SimRequest): SubscriberRecord | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '');
  const clientKey = header(req, 'x-service-client-key');
  if (!m || !clientKey || !state.isClientKey(clientKey)) return undefined;
  return state.subscriberByToken(m[1]!);
}

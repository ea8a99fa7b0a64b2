import type { Channel, PushDevice } from '../../models/alerts.js';
import { badBody } from '../errors.js';
import { path, type HttpClient } from '../http.js';
import {
  mapApps,
  mapChannel,
  mapChannelListing,
  mapInbox,
  mapInboxSummary,
  mapSubscribers,
  mapTelegramPrepared,
  toSendBody,
} from './map.js';
import type {
  RawAppsResponse,
  RawChannel,
  RawHistoryMarkBody,
  RawHistoryResponse,
  RawIdentity,
  RawPushBody,
  RawSubscribersResponse,
  RawSubscriptionBody,
  RawTelegramPrepared,
} from './types.js';
import { type CallScope, detached } from '../../operation/index.js';
import type { AlertsClient, SubscriberCredentials, SubscriptionChange } from './client-types.js';
import { KeyedCredentials, subscriberKey } from '../../subscriber-key.js';

/** A subscriber read's headers and the caller they speak for (the key the request made of its credentials: the transport shares its identical reads by it). */
interface Caller {
  headers: Readonly<Record<string, string | undefined>>;
  caller: string;
}

function appIdsBody(appIds: readonly string[] | undefined): RawHistoryMarkBody {
  return appIds?.length ? { appId: [...appIds] } : {};
}

export function createAlertsClient(http: HttpClient): AlertsClient {
  const service = http.service;

  // Built once per credentials object: a request's every call carries the same headers, merged once
  // (http.ts), kept on credentials read from a request and in a WeakMap for any other.
  const callers = new WeakMap<SubscriberCredentials, Caller>();
  const callerOf = (creds: SubscriberCredentials): Caller => ({
    headers: http.callerHeaders({ authorization: creds.authorization, 'x-service-client-key': creds.clientKey }),
    caller: subscriberKey(creds),
  });
  function asCaller(creds: SubscriberCredentials): Caller {
    if (creds instanceof KeyedCredentials) return creds.heldBy(callers, callerOf);
    let caller = callers.get(creds);
    if (!caller) callers.set(creds, (caller = callerOf(creds)));
    return caller;
  }

  const post = <T = unknown>(route: string, creds: SubscriberCredentials, body: unknown, scope: CallScope | undefined) =>
    http.post<T>(route.slice('POST '.length), { route, body, headers: asCaller(creds).headers, scope: detached(scope) });

  function channel(raw: RawChannel, key: string): Channel {
    const mapped = mapChannel(raw, key);
    if (!mapped) throw badBody(service, 'not a channel');
    return mapped;
  }

  // Each read's answer as its caller gets it, made as the transport hands it over (http.ts `map`): no `await` step per call.
  const identity = (raw: RawIdentity) => {
    if (typeof raw.walletAddress !== 'string' || !raw.walletAddress) throw badBody(service, 'walletAddress missing');
    return { walletAddress: raw.walletAddress };
  };
  const apps = (raw: RawAppsResponse) => {
    if (!Array.isArray(raw.apps)) throw badBody(service, 'apps is not a list');
    return mapApps(raw);
  };
  const inbox = (raw: RawHistoryResponse) => {
    if (!Array.isArray(raw.alerts)) throw badBody(service, 'alerts is not a list');
    return mapInbox(raw);
  };

  function subscriptionBody(change: SubscriptionChange | undefined): RawSubscriptionBody {
    return {
      ...(change?.appIds?.length ? { appId: [...change.appIds] } : {}),
      ...(change?.channels?.length ? { channel: [...change.channels] } : {}),
    };
  }

  return {
    getIdentity(creds, opts = {}) {
      const { headers, caller } = asCaller(creds);
      return http.get('/v2/auth', { route: 'GET /v2/auth', headers, caller, scope: opts.scope, map: identity });
    },

    listChannels(creds, opts = {}) {
      const { headers, caller } = asCaller(creds);
      return http.get('/v2/channels', { route: 'GET /v2/channels', headers, caller, scope: opts.scope, map: mapChannelListing });
    },

    async prepareEmailChannel(creds, email, scope) {
      return channel(await post<RawChannel>('POST /v2/channel/email/prepare', creds, { email }, scope), 'EMAIL');
    },

    async verifyEmailChannel(creds, code, scope) {
      return channel(await post<RawChannel>('POST /v2/channel/email/verify', creds, { code }, scope), 'EMAIL');
    },

    async resendEmailVerification(creds, scope) {
      await post('POST /v2/channel/email/resend', creds, undefined, scope);
    },

    async deleteEmailChannel(creds, scope) {
      await post('POST /v2/channel/email/delete', creds, undefined, scope);
    },

    async prepareTelegramChannel(creds, scope) {
      const setup = mapTelegramPrepared(await post<RawTelegramPrepared>('POST /v2/channel/telegram/prepare', creds, undefined, scope));
      if (!setup) throw badBody(service, 'not a channel');
      return setup;
    },

    async deleteTelegramChannel(creds, scope) {
      await post('POST /v2/channel/telegram/delete', creds, undefined, scope);
    },

    async registerPushDevice(creds, device, scope) {
      await post('POST /v2/push/subscribe', creds, pushBody(device), scope);
    },

    async unregisterPushDevice(creds, device, scope) {
      await post('POST /v2/push/unsubscribe', creds, pushBody(device), scope);
    },

    listApps(creds, opts = {}) {
      const { headers, caller } = asCaller(creds);
      return http.get('/v2/apps', { route: 'GET /v2/apps', headers, caller, scope: opts.scope, map: apps });
    },

    async subscribe(creds, change, scope) {
      await post('POST /v2/subscribe', creds, subscriptionBody(change), scope);
    },

    async unsubscribe(creds, change, scope) {
      await post('POST /v2/unsubscribe', creds, subscriptionBody(change), scope);
    },

    getInbox(creds, params = {}) {
      const { headers, caller } = asCaller(creds);
      return http.get('/v2/history', {
        route: 'GET /v2/history',
        headers,
        caller,
        scope: params.scope,
        query: { appId: params.appId, limit: params.limit, cursor: params.cursor ?? undefined },
        map: inbox,
      });
    },

    getInboxSummary(creds, params = {}) {
      const { headers, caller } = asCaller(creds);
      return http.get('/v2/history/summary', {
        route: 'GET /v2/history/summary',
        headers,
        caller,
        scope: params.scope,
        query: { appId: params.appId },
        map: mapInboxSummary,
      });
    },

    async markRead(creds, appIds, scope) {
      await post('POST /v2/history/read', creds, appIdsBody(appIds), scope);
    },

    async clearRead(creds, appIds, scope) {
      await post('POST /v2/history/clear', creds, appIdsBody(appIds), scope);
    },

    async send(creds, appId, notification, scope) {
      await http.post(path`/v2/${appId}/send`, {
        route: 'POST /v2/{appId}/send',
        scope: detached(scope),
        body: toSendBody(notification),
        headers: { 'x-service-api-key': creds.apiKey, 'idempotency-key': creds.idempotencyKey },
      });
    },

    async listSubscribers(creds, appId, params = {}) {
      const raw = await http.get<RawSubscribersResponse>(path`/v2/${appId}/subscribers`, {
        route: 'GET /v2/{appId}/subscribers',
        headers: { 'x-service-api-key': creds.apiKey },
        scope: params.scope,
        query: { offset: params.offset, limit: params.limit },
      });
      if (!Array.isArray(raw.subscribers)) throw badBody(service, 'subscribers is not a list');
      return mapSubscribers(raw);
    },
  };
}

function pushBody(device: PushDevice): RawPushBody {
  return {
    fcmToken: device.fcmToken,
    ...(device.deviceId ? { deviceId: device.deviceId } : {}),
    ...(device.appId ? { appId: device.appId } : {}),
  };
}

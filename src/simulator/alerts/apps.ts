import { badRequest, ok, unprocessable, type Router, type SimRequest, type SimResponse } from '../router.js';
import { isObject, subscribedAppIds } from './common.js';
import type { AlertsState } from './state.js';
import { subscriberRoute } from './subscriber-route.js';
import { CHANNEL_NAMES, type ChannelName, type SubscriberRecord } from './types.js';

/** docs/upstream.md section 1.3: applications and the subscriber's subscriptions to them. */
export function registerAppRoutes(router: Router, state: AlertsState): void {
  const sub = subscriberRoute(state);

  // 1.3 Applications and subscriptions
  router.get(
    '/v2/apps',
    sub((s) => {
      const subscribed = subscribedAppIds(s);
      return ok({
        apps: state.apps.map((app) => {
          const out: Record<string, unknown> = { id: app.id, name: app.name };
          if (app.description !== undefined) out['description'] = app.description;
          out['icon'] = app.icon;
          out['subscribed'] = subscribed.has(app.id);
          if (app.topics) {
            out['topics'] = app.topics.map((t) => ({
              id: t.id,
              name: t.name,
              slug: t.slug,
              ...(t.description !== undefined ? { description: t.description } : {}),
              subscribed: s.topics.has(t.id),
            }));
          }
          return out;
        }),
      });
    }),
  );

  router.post('/v2/subscribe', sub((s, req) => subscription(state, s, req, true)));
  router.post('/v2/unsubscribe', sub((s, req) => subscription(state, s, req, false)));
}

function subscription(state: AlertsState, s: SubscriberRecord, req: SimRequest, subscribe: boolean): SimResponse {
  if (req.body !== undefined && req.body !== null && !isObject(req.body)) return badRequest('body must be an object');
  const body = isObject(req.body) ? req.body : {};

  let appIds: string[];
  const rawApp = body['appId'];
  if (rawApp === undefined || rawApp === null) appIds = state.apps.map((a) => a.id);
  else {
    const list: unknown[] = Array.isArray(rawApp) ? rawApp : [rawApp];
    if (list.length === 0) return unprocessable('appId must not be an empty list');
    for (const id of list) {
      if (typeof id !== 'string' || !state.appById(id)) return unprocessable(`unknown app ${String(id)}`);
    }
    appIds = [...new Set(list as string[])];
  }

  let channels: ChannelName[];
  const rawChannel = body['channel'];
  if (rawChannel === undefined || rawChannel === null) channels = [...CHANNEL_NAMES];
  else {
    const list: unknown[] = Array.isArray(rawChannel) ? rawChannel : [rawChannel];
    if (list.length === 0) return unprocessable('channel must not be an empty list');
    for (const c of list) {
      if (!CHANNEL_NAMES.includes(c as ChannelName)) return unprocessable(`unknown channel ${String(c)}; use IN_APP, EMAIL or TELEGRAM`);
    }
    channels = [...new Set(list as ChannelName[])];
  }

  for (const id of appIds) {
    const set = s.apps.get(id) ?? new Set<ChannelName>();
    for (const c of channels) {
      if (subscribe) set.add(c);
      else set.delete(c);
    }
    if (set.size > 0) s.apps.set(id, set);
    else s.apps.delete(id);
  }
  return ok({}, 201);
}

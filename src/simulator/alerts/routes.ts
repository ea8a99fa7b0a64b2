import {
  badRequest,
  conflict,
  header,
  ok,
  unauthorized,
  unprocessable,
  type Handler,
  type Router,
  type SimRequest,
  type SimResponse,
} from '../router.js';
import { intParam } from '../world/query.js';
import {
  alertView,
  isObject,
  isUuid,
  parseAppIdList,
  subscribedAppIds,
  subscribedAppView,
} from './common.js';
import { TELEGRAM_BOT } from './data.js';
import { registerSendRoutes } from './send.js';
import { EMAIL_CODE_TTL_MS, type AlertsState } from './state.js';
import { CHANNEL_NAMES, type AlertRecord, type ChannelName, type ChannelRecord, type SubscriberRecord } from './types.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const HISTORY_DEFAULT_LIMIT = 10;
const HISTORY_MAX_LIMIT = 20;

/** Registers every route of UPSTREAM.md section 1 on the alerts router. */
export function registerAlertsRoutes(router: Router, state: AlertsState): void {
  const sub = (fn: (s: SubscriberRecord, req: SimRequest) => SimResponse): Handler => {
    return (req) => {
      const s = authenticate(state, req);
      return s ? fn(s, req) : unauthorized();
    };
  };

  // 1.1 Identity
  router.get('/v2/auth', sub((s) => ok({ walletAddress: s.walletAddress })));

  // 1.2 Channels
  router.get('/v2/channels', sub((s) => ok(channelListing(state, s))));

  router.post(
    '/v2/channel/email/prepare',
    sub((s, req) => {
      const email = isObject(req.body) ? req.body['email'] : undefined;
      if (typeof email !== 'string' || email.trim().length > 254 || !EMAIL_RE.test(email.trim())) {
        return badRequest('email must be a valid email address');
      }
      if (s.channels.has('EMAIL')) return conflict('an email channel already exists; delete it first');
      const rec: ChannelRecord = { id: state.newId(), type: 'EMAIL', value: email.trim(), verified: false, subscribed: false };
      s.channels.set('EMAIL', rec);
      s.pendingEmail = { code: state.newCode(), expiresAt: state.now() + EMAIL_CODE_TTL_MS };
      return ok(channelView(state, s, 'EMAIL', rec));
    }),
  );

  router.post(
    '/v2/channel/email/verify',
    sub((s, req) => {
      const code = isObject(req.body) ? req.body['code'] : undefined;
      if (typeof code !== 'string') return badRequest('code must be a string of 6 digits');
      const rec = s.channels.get('EMAIL');
      const pending = s.pendingEmail;
      if (!rec || !pending) return unprocessable('no email verification is pending');
      if (state.now() > pending.expiresAt) return unprocessable('verification code expired; request a new one');
      if (code.trim() !== pending.code) return unprocessable('wrong verification code');
      rec.verified = true;
      rec.subscribed = true;
      delete s.pendingEmail;
      return ok(channelView(state, s, 'EMAIL', rec));
    }),
  );

  router.post(
    '/v2/channel/email/resend',
    sub((s) => {
      const rec = s.channels.get('EMAIL');
      if (!rec) return unprocessable('no email channel to verify');
      if (rec.verified) return conflict('email already verified');
      s.pendingEmail = { code: state.newCode(), expiresAt: state.now() + EMAIL_CODE_TTL_MS };
      return ok({}, 201);
    }),
  );

  router.post(
    '/v2/channel/email/delete',
    sub((s) => {
      s.channels.delete('EMAIL');
      delete s.pendingEmail;
      return ok({}, 201);
    }),
  );

  router.post(
    '/v2/channel/telegram/prepare',
    sub((s) => {
      let rec = s.channels.get('TELEGRAM');
      if (!rec) {
        rec = { id: state.newId(), type: 'TELEGRAM', value: '', verified: false, subscribed: false };
        s.channels.set('TELEGRAM', rec);
      }
      s.telegramLinkCode = state.newHex(8);
      return ok({ ...channelView(state, s, 'TELEGRAM', rec), verification: { link: `${TELEGRAM_BOT}?start=${s.telegramLinkCode}` } });
    }),
  );

  router.post(
    '/v2/channel/telegram/delete',
    sub((s) => {
      s.channels.delete('TELEGRAM');
      delete s.telegramLinkCode;
      return ok({});
    }),
  );

  router.post('/v2/push/subscribe', sub((s, req) => push(state, s, req, true)));
  router.post('/v2/push/unsubscribe', sub((s, req) => push(state, s, req, false)));

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

  // 1.4 Inbox
  router.get(
    '/v2/history',
    sub((s, req) => {
      const limit = intParam(req.query, 'limit', 1, HISTORY_MAX_LIMIT, HISTORY_DEFAULT_LIMIT);
      const scope = historyScope(s, req.query.get('appId'));
      if (!scope.ok) return badRequest(scope.error);
      const rawCursor = req.query.get('cursor');
      let after: { t: string; i: string } | undefined;
      if (rawCursor !== null && rawCursor !== '') {
        after = decodeCursor(rawCursor);
        if (!after) return badRequest('cursor is not valid');
      }
      const sorted = s.inbox.filter((a) => scope.apps.has(a.appId)).sort(newestFirst);
      const start = after ? sorted.findIndex((a) => isAfter(a, after)) : 0;
      const rest = start < 0 ? [] : sorted.slice(start);
      const page = rest.slice(0, limit);
      const last = page[page.length - 1];
      const cursor = rest.length > limit && last ? encodeCursor(last) : null;
      return ok({
        alerts: page.map((a) => alertView(state, a)),
        summary: summary(s, scope.apps),
        limit,
        cursor,
      });
    }),
  );

  router.get(
    '/v2/history/summary',
    sub((s, req) => {
      const scope = historyScope(s, req.query.get('appId'));
      if (!scope.ok) return badRequest(scope.error);
      return ok(summary(s, scope.apps));
    }),
  );

  router.post(
    '/v2/history/read',
    sub((s, req) => {
      const ids = bodyAppIds(req);
      if (!ids.ok) return badRequest(ids.error);
      const apps = new Set(ids.ids ?? state.apps.map((a) => a.id));
      for (const alert of s.inbox) if (apps.has(alert.appId)) alert.read = true;
      const at = new Date(state.now()).toISOString();
      for (const id of apps) s.lastRead.set(id, at);
      return ok({});
    }),
  );

  router.post(
    '/v2/history/clear',
    sub((s, req) => {
      const ids = bodyAppIds(req);
      if (!ids.ok) return badRequest(ids.error);
      const apps = ids.ids ? new Set(ids.ids) : undefined;
      s.inbox = s.inbox.filter((a) => !(a.read && (!apps || apps.has(a.appId))));
      return ok({});
    }),
  );

  // 1.5 Application calls
  registerSendRoutes(router, state);
}

/** The subscriber behind `Authorization: Bearer` when `X-Service-Client-Key` is valid too. */
function authenticate(state: AlertsState, req: SimRequest): SubscriberRecord | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header(req, 'authorization') ?? '');
  const clientKey = header(req, 'x-service-client-key');
  if (!m || !clientKey || !state.isClientKey(clientKey)) return undefined;
  return state.subscriberByToken(m[1]!);
}

const LISTING_ORDER = ['EMAIL', 'TELEGRAM'];

function channelListing(state: AlertsState, s: SubscriberRecord): Record<string, unknown> {
  const keys = [...s.channels.keys()].sort((a, b) => rank(a) - rank(b));
  return Object.fromEntries(keys.map((k) => [k, channelView(state, s, k, s.channels.get(k)!)]));
}

function rank(key: string): number {
  const i = LISTING_ORDER.indexOf(key);
  return i < 0 ? LISTING_ORDER.length : i;
}

/**
 * One channel as listed. `subscribedApps` derives from the subscription preferences of the listing key's
 * channel (EMAIL or TELEGRAM), whatever the record's `type`; other keys carry a fixed list.
 */
function channelView(state: AlertsState, s: SubscriberRecord, key: string, rec: ChannelRecord): Record<string, unknown> {
  const appIds =
    rec.staticAppIds ??
    (key === 'EMAIL' || key === 'TELEGRAM'
      ? [...s.apps].filter(([, set]) => set.has(key)).map(([id]) => id)
      : []);
  const apps = appIds.flatMap((id) => {
    const app = state.appById(id);
    return app ? [subscribedAppView(app)] : [];
  });
  const out: Record<string, unknown> = {
    id: rec.id,
    type: rec.type,
    value: rec.value,
    verified: rec.verified,
    subscribed: rec.subscribed,
  };
  if (!(rec.omitSubscribedApps && apps.length === 0)) out['subscribedApps'] = apps;
  return out;
}

function push(state: AlertsState, s: SubscriberRecord, req: SimRequest, subscribe: boolean): SimResponse {
  if (!isObject(req.body)) return badRequest('body must be an object with fcmToken');
  const { fcmToken, deviceId, appId } = req.body;
  if (typeof fcmToken !== 'string' || fcmToken.length === 0 || fcmToken.length > 4096) {
    return badRequest('fcmToken is required (a non-empty string)');
  }
  if (deviceId !== undefined && deviceId !== null && typeof deviceId !== 'string') return badRequest('deviceId must be a string');
  if (appId !== undefined && appId !== null && !isUuid(appId)) return badRequest('appId must be a UUID');
  if (typeof appId === 'string' && !state.appById(appId)) return unprocessable(`unknown app ${appId}`);
  const app = typeof appId === 'string' ? appId : undefined;
  s.push = s.push.filter((p) => !(p.fcmToken === fcmToken && (subscribe ? p.appId === app : app === undefined || p.appId === app)));
  if (subscribe) {
    s.push.push({
      fcmToken,
      ...(typeof deviceId === 'string' ? { deviceId } : {}),
      ...(app ? { appId: app } : {}),
      at: new Date(state.now()).toISOString(),
    });
  }
  return ok({}, 202);
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

function historyScope(
  s: SubscriberRecord,
  appId: string | null,
): { ok: true; apps: Set<string> } | { ok: false; error: string } {
  if (appId === null || appId === '') return { ok: true, apps: subscribedAppIds(s) };
  if (!isUuid(appId)) return { ok: false, error: 'appId must be a UUID' };
  return { ok: true, apps: new Set([appId]) };
}

function bodyAppIds(req: SimRequest): ReturnType<typeof parseAppIdList> {
  if (req.body === undefined || req.body === null) return { ok: true, ids: undefined };
  if (!isObject(req.body)) return { ok: false, error: 'body must be an object' };
  return parseAppIdList(req.body['appId']);
}

function summary(s: SubscriberRecord, apps: Set<string>): { unreadCount: number; lastRead?: { timestamp: string } } {
  let unreadCount = 0;
  for (const a of s.inbox) if (!a.read && apps.has(a.appId)) unreadCount++;
  let lastRead: string | undefined;
  for (const id of apps) {
    const t = s.lastRead.get(id);
    if (t && (!lastRead || t > lastRead)) lastRead = t;
  }
  return lastRead ? { unreadCount, lastRead: { timestamp: lastRead } } : { unreadCount };
}

/** Newest first; ties broken by id (descending) so paging is stable. */
function newestFirst(a: AlertRecord, b: AlertRecord): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

function isAfter(a: AlertRecord, c: { t: string; i: string }): boolean {
  return a.timestamp < c.t || (a.timestamp === c.t && a.id < c.i);
}

function encodeCursor(a: AlertRecord): string {
  return Buffer.from(JSON.stringify({ t: a.timestamp, i: a.id })).toString('base64url');
}

function decodeCursor(raw: string): { t: string; i: string } | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (isObject(v) && typeof v['t'] === 'string' && typeof v['i'] === 'string') return { t: v['t'], i: v['i'] };
  } catch {
    // fall through
  }
  return undefined;
}

import { badRequest, ok, type Router, type SimRequest } from '../router.js';
import { intParam } from '../world/query.js';
import { alertView, isObject, isUuid, parseAppIdList, subscribedAppIds } from './common.js';
import type { AlertsState } from './state.js';
import { subscriberRoute } from './subscriber-route.js';
import type { AlertRecord, SubscriberRecord } from './types.js';

const HISTORY_DEFAULT_LIMIT = 10;
const HISTORY_MAX_LIMIT = 20;

/** docs/upstream.md section 1.4: the subscriber's inbox. */
export function registerInboxRoutes(router: Router, state: AlertsState): void {
  const sub = subscriberRoute(state);

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

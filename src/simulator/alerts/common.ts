import type { AlertsState } from './state.js';
import type { AlertRecord, AppRecord, SubscriberRecord } from './types.js';

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Length in Unicode code points (an emoji counts once). */
export function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(v: unknown): v is string {
  return typeof v === 'string' && UUID_RE.test(v);
}

export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Parses an optional `appId` that is a UUID or a non-empty list of UUIDs; `null`/absent → undefined (= all). */
export function parseAppIdList(v: unknown): { ok: true; ids: string[] | undefined } | { ok: false; error: string } {
  if (v === undefined || v === null) return { ok: true, ids: undefined };
  const list = Array.isArray(v) ? v : [v];
  if (list.length === 0) return { ok: false, error: 'appId must not be an empty list' };
  for (const id of list) if (!isUuid(id)) return { ok: false, error: `appId must be a UUID or a list of UUIDs` };
  return { ok: true, ids: [...new Set(list as string[])] };
}

export function subscribedAppView(app: AppRecord): { id: string; name: string; icon: string | null } {
  return { id: app.id, name: app.name, icon: app.icon };
}

/** Apps the subscriber is subscribed to on at least one channel. */
export function subscribedAppIds(sub: SubscriberRecord): Set<string> {
  return new Set([...sub.apps].filter(([, set]) => set.size > 0).map(([id]) => id));
}

export function alertView(state: AlertsState, alert: AlertRecord): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: alert.id,
    timestamp: alert.timestamp,
    title: alert.title,
    body: alert.body,
  };
  if (alert.image !== undefined) out['image'] = alert.image;
  if (alert.actions !== undefined) out['actions'] = alert.actions.map((a) => ({ ...a, ...(a.context ? { context: { ...a.context } } : {}) }));
  if (alert.data !== undefined) out['data'] = { ...alert.data };
  const app = state.appById(alert.appId);
  if (alert.topicId !== undefined) {
    const topic = app?.topics?.find((t) => t.id === alert.topicId);
    if (topic) out['topic'] = { id: topic.id, name: topic.name, slug: topic.slug };
  }
  if (app) out['app'] = subscribedAppView(app);
  out['read'] = alert.read;
  return out;
}

/** JSON with object keys sorted, so two bodies that differ only in key order compare equal. */
export function stableStringify(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stableStringify).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableStringify(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

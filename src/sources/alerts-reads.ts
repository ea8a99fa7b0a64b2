import DataLoader from 'dataloader';
import { subscriberKey } from '../credentials.js';
import type { App, Channel, Identity, InboxPage, InboxSummary } from '../models/alerts.js';
import type { Services } from '../services.js';
import { UpstreamError, type SubscriberCredentials } from '../upstream/index.js';
import type { CallScope } from '../operation/index.js';
import { asError } from './common.js';

/** What a mutation can make stale; `inbox` covers the inbox pages and the unread counts. */
export type AlertsDataKind = 'channels' | 'apps' | 'inbox';

/** One upstream inbox page: every argument of `GET /v2/history`. */
export interface InboxPageKey {
  /** `null`: the unified inbox over every subscribed app. */
  appId: string | null;
  /** 1–20. */
  limit: number;
  /** The upstream's opaque cursor; `null` for the newest page. */
  cursor: string | null;
}

/** The upstream's page size limit of `GET /v2/history`. */
export const INBOX_MAX_LIMIT = 20;
/** How far `inboxCount` walks before it gives up (pages of `INBOX_MAX_LIMIT`). */
export const INBOX_COUNT_MAX_PAGES = 10;

/**
 * The caller's alerts data, loaded at most once per request each (per key for the inbox), with the
 * caller's own credentials. Built by `AlertsSource` (alerts.ts) once the request has shown it carries
 * subscriber credentials; a load rejects with the client's `UpstreamError` (`maskError` gives it its
 * public code).
 */
export interface AlertsReads {
  /** `GET /v2/auth`: whose token this is. */
  identity(): Promise<Identity>;
  /** `GET /v2/channels`: one channel per listing key. */
  channels(): Promise<Channel[]>;
  /** `GET /v2/apps`: every app, with the caller's subscription state and topics. */
  apps(): Promise<App[]>;
  /** `GET /v2/history` for exactly these arguments. */
  inbox(key: InboxPageKey): Promise<InboxPage>;
  /**
   * The unread count and last-read mark of one app's inbox (`null`: the unified inbox). Taken from an
   * inbox page of the same scope when this request loads one anyway; else `GET /v2/history/summary`.
   */
  summary(appId: string | null): Promise<InboxSummary>;
  /**
   * How many notifications the inbox holds, counted by walking it in pages of 20; `null` when it holds
   * more than `INBOX_COUNT_MAX_PAGES` pages.
   */
  inboxCount(appId: string | null): Promise<number | null>;
  /** Forgets what a write changed, so later reads in the same request see the new state. */
  invalidate(kind: AlertsDataKind): void;
}

/** What the reads tell their source, and how they treat the identity memo. */
export interface AlertsReadsOptions {
  /** Called when the alerts service refuses these credentials (401 or 403): a bad or revoked token. */
  refused?: () => void;
  /** Asks who the token belongs to even when it is remembered: a cache refresh re-verifies what it stores. */
  verify?: boolean;
}

/** Whether the alerts service refused the subscriber's credentials (a subscriber call answered 401 or 403). */
export function refusesCredentials(error: unknown): boolean {
  return error instanceof UpstreamError && error.service === 'alerts' && (error.kind === 'UNAUTHENTICATED' || error.kind === 'FORBIDDEN');
}

/** `scope` is the operation's: its signal aborts the reads. */
export function createAlertsReads(
  services: Pick<Services, 'upstream' | 'verifiedCallers'>,
  creds: SubscriberCredentials,
  scope: CallScope,
  options: AlertsReadsOptions = {},
): AlertsReads {
  const client = services.upstream.alerts;
  const watched = <T>(call: Promise<T>): Promise<T> =>
    call.catch((error: unknown) => {
      if (refusesCredentials(error)) options.refused?.();
      throw error;
    });

  function memo<T>(load: () => Promise<T>): { get(): Promise<T>; clear(): void } {
    let promise: Promise<T> | undefined;
    return { get: () => (promise ??= load()), clear: () => (promise = undefined) };
  }

  // Who the token belongs to, asked once per token for AUTH_IDENTITY_TTL_MS (a token lives a year); only
  // an answer of the alerts service is remembered, so a forged token is asked about every time.
  const identity = memo(async () => {
    const key = subscriberKey(creds);
    const known = options.verify ? undefined : services.verifiedCallers.identity(key);
    if (known) return known;
    const verified = await watched(client.getIdentity(creds, { scope }));
    services.verifiedCallers.rememberIdentity(key, verified);
    return verified;
  });
  const channels = memo(() => watched(client.listChannels(creds, { scope })));
  const apps = memo(() => watched(client.listApps(creds, { scope })));

  const pages = new Map<string, Promise<InboxPage>>();
  const pageKey = (key: InboxPageKey) => JSON.stringify([key.appId, key.limit, key.cursor]);
  function inbox(key: InboxPageKey): Promise<InboxPage> {
    const id = pageKey(key);
    let page = pages.get(id);
    if (!page) {
      page = watched(client.getInbox(creds, { ...(key.appId ? { appId: key.appId } : {}), limit: key.limit, cursor: key.cursor, scope }));
      pages.set(id, page);
    }
    return page;
  }

  /** A page of this scope that this request already asked for, if any. */
  function pageOfScope(appId: string | null): Promise<InboxPage> | undefined {
    const prefix = JSON.stringify([appId]).slice(0, -1) + ',';
    for (const [id, page] of pages) if (id.startsWith(prefix)) return page;
    return undefined;
  }

  async function loadSummary(appId: string | null): Promise<InboxSummary> {
    const page = pageOfScope(appId);
    if (page) {
      try {
        const { unreadCount, lastReadAt } = await page;
        return { unreadCount, lastReadAt };
      } catch {
        // That page failed for its own reasons (e.g. a stale cursor): ask for the summary itself.
      }
    }
    return watched(client.getInboxSummary(creds, { ...(appId ? { appId } : {}), scope }));
  }

  // Batched to the end of the tick so that an inbox page requested beside the count (as the
  // `ViewerInbox` operation does) is seen, and its summary used instead of a second call.
  const summaries = new DataLoader<string, InboxSummary>(
    // An Error in the batch's answer rejects that key's load alone.
    (keys) => Promise.all(keys.map((key) => loadSummary(key || null).catch((error: unknown) => asError(error)))),
  );

  const counts = new Map<string, Promise<number | null>>();
  async function walk(appId: string | null): Promise<number | null> {
    let total = 0;
    let cursor: string | null = null;
    for (let n = 0; n < INBOX_COUNT_MAX_PAGES; n++) {
      const page: InboxPage = await inbox({ appId, limit: INBOX_MAX_LIMIT, cursor });
      total += page.notifications.length;
      if (!page.cursor) return total;
      cursor = page.cursor;
    }
    return null;
  }

  return {
    identity: () => identity.get(),
    channels: () => channels.get(),
    apps: () => apps.get(),
    inbox,
    summary: (appId) => summaries.load(appId ?? ''),
    inboxCount(appId) {
      const key = appId ?? '';
      let count = counts.get(key);
      if (!count) counts.set(key, (count = walk(appId)));
      return count;
    },
    invalidate(kind) {
      if (kind === 'channels') channels.clear();
      else if (kind === 'apps') apps.clear();
      else {
        pages.clear();
        counts.clear();
        summaries.clearAll();
      }
    },
  };
}

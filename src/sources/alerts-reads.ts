import { subscriberKey } from '../credentials.js';
import type { App, Channel, Identity, InboxPage, InboxSummary } from '../models/alerts.js';
import type { Services } from '../services.js';
import { UpstreamError, type SubscriberCredentials } from '../upstream/index.js';
import type { CallScope } from '../operation/index.js';
import { afterBatchTick } from './common.js';

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
  return new CallerReads(services, creds, scope, options);
}

/** A promise settled when a DataLoader's batch would run (`afterBatchTick`). */
function afterTick(): Promise<void> {
  return new Promise((resolve) => afterBatchTick(resolve));
}

/**
 * One request's reads, as one object with its memos in fields: a request builds it on its first alerts
 * read, so what it holds is made only when that read asks for it (no loader or closure per request).
 */
class CallerReads implements AlertsReads {
  readonly #services: Pick<Services, 'upstream' | 'verifiedCallers'>;
  readonly #creds: SubscriberCredentials;
  readonly #scope: CallScope;
  readonly #options: AlertsReadsOptions;
  #identity: Promise<Identity> | undefined;
  #channels: Promise<Channel[]> | undefined;
  #apps: Promise<App[]> | undefined;
  /** Inbox pages by their key, and the first page asked of each scope (`''`: the unified inbox) for `summary`. */
  #pages: Map<string, Promise<InboxPage>> | undefined;
  #pageOfScope: Map<string, Promise<InboxPage>> | undefined;
  #summaries: Map<string, Promise<InboxSummary>> | undefined;
  #counts: Map<string, Promise<number | null>> | undefined;

  constructor(services: Pick<Services, 'upstream' | 'verifiedCallers'>, creds: SubscriberCredentials, scope: CallScope, options: AlertsReadsOptions) {
    this.#services = services;
    this.#creds = creds;
    this.#scope = scope;
    this.#options = options;
  }

  // Who the token belongs to, asked once per token for AUTH_IDENTITY_TTL_MS (a token lives a year); only
  // an answer of the alerts service is remembered, so a forged token is asked about every time.
  identity(): Promise<Identity> {
    return (this.#identity ??= this.#verifiedIdentity());
  }

  channels(): Promise<Channel[]> {
    return (this.#channels ??= this.#watched(this.#client.listChannels(this.#creds, { scope: this.#scope })));
  }

  apps(): Promise<App[]> {
    return (this.#apps ??= this.#watched(this.#client.listApps(this.#creds, { scope: this.#scope })));
  }

  inbox(key: InboxPageKey): Promise<InboxPage> {
    const id = JSON.stringify([key.appId, key.limit, key.cursor]);
    const pages = (this.#pages ??= new Map<string, Promise<InboxPage>>());
    let page = pages.get(id);
    if (!page) {
      page = this.#watched(this.#client.getInbox(this.#creds, { ...(key.appId ? { appId: key.appId } : {}), limit: key.limit, cursor: key.cursor, scope: this.#scope }));
      pages.set(id, page);
      const ofScope = (this.#pageOfScope ??= new Map<string, Promise<InboxPage>>());
      if (!ofScope.has(key.appId ?? '')) ofScope.set(key.appId ?? '', page);
    }
    return page;
  }

  // Answered after the tick, as a DataLoader's batch, so that an inbox page requested beside the count
  // (as the `ViewerInbox` operation does) is seen, and its summary used instead of a second call.
  summary(appId: string | null): Promise<InboxSummary> {
    const key = appId ?? '';
    const summaries = (this.#summaries ??= new Map<string, Promise<InboxSummary>>());
    let summary = summaries.get(key);
    if (!summary) summaries.set(key, (summary = afterTick().then(() => this.#loadSummary(key || null))));
    return summary;
  }

  inboxCount(appId: string | null): Promise<number | null> {
    const key = appId ?? '';
    const counts = (this.#counts ??= new Map<string, Promise<number | null>>());
    let count = counts.get(key);
    if (!count) counts.set(key, (count = this.#walk(appId)));
    return count;
  }

  invalidate(kind: AlertsDataKind): void {
    if (kind === 'channels') this.#channels = undefined;
    else if (kind === 'apps') this.#apps = undefined;
    else {
      this.#pages = undefined;
      this.#pageOfScope = undefined;
      this.#counts = undefined;
      this.#summaries = undefined;
    }
  }

  get #client() {
    return this.#services.upstream.alerts;
  }

  #watched<T>(call: Promise<T>): Promise<T> {
    return call.catch((error: unknown) => {
      if (refusesCredentials(error)) this.#options.refused?.();
      throw error;
    });
  }

  async #verifiedIdentity(): Promise<Identity> {
    const { verifiedCallers } = this.#services;
    const key = subscriberKey(this.#creds);
    const known = this.#options.verify ? undefined : verifiedCallers.identity(key);
    if (known) return known;
    const verified = await this.#watched(this.#client.getIdentity(this.#creds, { scope: this.#scope }));
    verifiedCallers.rememberIdentity(key, verified);
    return verified;
  }

  async #loadSummary(appId: string | null): Promise<InboxSummary> {
    // A page of this scope that this request already asked for, if any.
    const page = this.#pageOfScope?.get(appId ?? '');
    if (page) {
      try {
        const { unreadCount, lastReadAt } = await page;
        return { unreadCount, lastReadAt };
      } catch {
        // That page failed for its own reasons (e.g. a stale cursor): ask for the summary itself.
      }
    }
    return this.#watched(this.#client.getInboxSummary(this.#creds, { ...(appId ? { appId } : {}), scope: this.#scope }));
  }

  async #walk(appId: string | null): Promise<number | null> {
    let total = 0;
    let cursor: string | null = null;
    for (let n = 0; n < INBOX_COUNT_MAX_PAGES; n++) {
      const page: InboxPage = await this.inbox({ appId, limit: INBOX_MAX_LIMIT, cursor });
      total += page.notifications.length;
      if (!page.cursor) return total;
      cursor = page.cursor;
    }
    return null;
  }
}

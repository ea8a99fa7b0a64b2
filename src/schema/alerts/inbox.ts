import { INBOX_MAX_LIMIT, type AlertsSource } from '../../sources/index.js';
import type { Notification } from '../../models/alerts.js';
import type { CursorSigning, PageInfo } from '../common/cursor.js';
import { boundCursors, type UpstreamCursors, type UpstreamPosition } from '../common/upstream-page.js';

/**
 * Paging the inbox over the upstream's cursors. The upstream gives one opaque cursor per page (after its
 * last alert), but a Relay edge needs a cursor of its own. An edge's cursor therefore names a position:
 * an upstream cursor (or the start) plus how many alerts to skip from there. The cursor of the last
 * edge of an upstream page is that page's own cursor with nothing to skip, so paging on from `endCursor`
 * costs one upstream call per page; resuming from a cursor inside a page re-reads that page.
 * A cursor is tied to its scope (the app, or the unified inbox).
 */

/** A notification as listed in an inbox, with the app whose inbox it came from (when scoped to one). */
export type InboxNotification = Notification & { scopeAppId?: string | null };

export interface InboxEdge {
  cursor: string;
  node: InboxNotification;
}

export interface InboxConnection {
  edges: InboxEdge[];
  pageInfo: PageInfo;
  /** Kept for `totalCount`. */
  appId: string | null;
}

/** At most this many upstream calls per connection (a position inside a page needs two at most). */
const MAX_CALLS = 3;

/** The cursors of one inbox: bound to its scope, one app's inbox or (`null`) the unified one; any other `after` is a `BAD_USER_INPUT`. */
export function inboxCursors(appId: string | null, signing: CursorSigning): UpstreamCursors {
  const message = 'after must be a cursor from this inbox (an edge cursor or pageInfo.endCursor of the same appId).';
  return boundCursors({
    signing,
    kind: 'inbox',
    // An app id is a UUID: the empty scope can only be the unified inbox.
    fingerprint: appId ?? '',
    maxSkip: INBOX_MAX_LIMIT,
    maxUpstreamCursor: 1024,
    notOurs: message,
    otherArguments: message,
  });
}

/** `first` notifications after `after` (newest first) in one app's inbox or the unified one. */
export async function readInbox(
  alerts: AlertsSource,
  args: { appId: string | null; first: number; after: UpstreamPosition | null },
  cursors: UpstreamCursors,
): Promise<InboxConnection> {
  const { appId, first, after } = args;
  const found: { node: InboxNotification; position: UpstreamPosition }[] = [];
  let position: UpstreamPosition = after ?? { cursor: null, skip: 0 };
  let hasNextPage = true;

  for (let calls = 0; calls < MAX_CALLS && found.length < first; calls++) {
    const want = first - found.length;
    const page = await alerts.inbox({ appId, limit: Math.min(INBOX_MAX_LIMIT, position.skip + want), cursor: position.cursor });
    const from = position;
    const taken = page.notifications.slice(from.skip, from.skip + want);
    taken.forEach((notification, i) =>
      found.push({ node: appId ? { ...notification, scopeAppId: appId } : notification, position: { cursor: from.cursor, skip: from.skip + i + 1 } }),
    );
    if (page.notifications.length > from.skip + taken.length) break; // this page holds more
    if (!page.cursor) {
      hasNextPage = false;
      break;
    }
    // The page is used up: what follows starts at its cursor.
    const last = found[found.length - 1];
    if (taken.length > 0 && last) last.position = { cursor: page.cursor, skip: 0 };
    position = { cursor: page.cursor, skip: Math.max(0, from.skip - page.notifications.length) };
  }

  const edges = found.map(({ node, position }) => ({ node, cursor: cursors.encode(position) }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: after !== null,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges[edges.length - 1]?.cursor ?? null,
    },
    appId,
  };
}

/** How many inbox pages `node(id:)` reads to find a notification (there is no by-id call upstream). */
export const NODE_SCAN_PAGES = 5;

/**
 * Finds a notification by scanning the inbox newest first, `NODE_SCAN_PAGES` pages of 20 at most,
 * stopping early once past its timestamp. Older notifications are not found (`null`).
 */
export async function findNotification(
  alerts: AlertsSource,
  key: { appId: string | null; timestamp: string; notificationId: string },
): Promise<InboxNotification | null> {
  const target = Date.parse(key.timestamp);
  let cursor: string | null = null;
  for (let n = 0; n < NODE_SCAN_PAGES; n++) {
    const page = await alerts.inbox({ appId: key.appId, limit: INBOX_MAX_LIMIT, cursor });
    const hit = page.notifications.find((notification) => notification.notificationId === key.notificationId);
    if (hit) return key.appId ? { ...hit, scopeAppId: key.appId } : hit;
    const oldest = page.notifications[page.notifications.length - 1];
    if (!page.cursor || (oldest && Date.parse(oldest.timestamp) < target)) return null;
    cursor = page.cursor;
  }
  return null;
}

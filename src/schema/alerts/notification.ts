import type { NotificationAction } from '../../models/alerts.js';
import { builder } from '../builder.js';
import { NotificationRef, SubscribedAppRef } from '../refs.js';
import { TopicRef } from './app.js';
import { findNotification, type InboxConnection, type InboxNotification } from './inbox.js';
import { isUuid } from './inputs.js';

/** What a notification's global id carries: enough to find it again by scanning its inbox. */
interface NotificationKey {
  appId: string | null;
  timestamp: string;
  notificationId: string;
}

function parseNotificationKey(raw: string): NotificationKey | null {
  try {
    const value: unknown = JSON.parse(raw);
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [appId, timestamp, notificationId] = value as unknown[];
    if (typeof timestamp !== 'string' || typeof notificationId !== 'string' || !notificationId) return null;
    if (appId !== null && (typeof appId !== 'string' || !isUuid(appId))) return null;
    return { appId, timestamp, notificationId };
  } catch {
    return null;
  }
}

export const NotificationActionRef = builder.objectRef<NotificationAction>('NotificationAction').implement({
  description: 'A link the notification offers, shown as a button.',
  fields: (t) => ({
    label: t.exposeString('label', { nullable: false, description: 'Button text.' }),
    url: t.exposeString('url', { nullable: false, description: 'Where the button leads.' }),
  }),
});

builder.node(NotificationRef, {
  description:
    "A notification in the caller's inbox. `node(id:)` finds one among the 100 newest of its app's inbox (the alerts service has no lookup by id); older ones resolve to null.",
  id: {
    description: 'Opaque global id (for `node(id:)`).',
    resolve: (n: InboxNotification) => JSON.stringify([n.app?.appId ?? n.scopeAppId ?? null, n.timestamp, n.notificationId]),
    parse: parseNotificationKey,
  },
  loadOne: (key, ctx) => (key ? findNotification(ctx.alerts, key) : null),
  fields: (t) => ({
    notificationId: t.exposeString('notificationId', { nullable: false, description: "The alerts service's own id of the notification." }),
    title: t.exposeString('title', { nullable: false, description: 'Headline.' }),
    body: t.exposeString('body', { nullable: false, description: 'Text of the notification.' }),
    image: t.exposeString('image', { description: 'URL of an image to show with it.' }),
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'When it was sent.', resolve: (n) => n.timestamp }),
    read: t.exposeBoolean('read', { description: 'Whether the caller has read it; null when the alerts service does not tell.' }),
    app: t.field({
      type: SubscribedAppRef,
      description: 'The app that sent it.',
      resolve: (n: InboxNotification, _args, ctx) => n.app ?? (n.scopeAppId ? ctx.alerts.app(n.scopeAppId) : null),
    }),
    topic: t.field({ type: TopicRef, description: 'The topic it belongs to, if any.', resolve: (n) => n.topic }),
    actions: t.field({
      type: [NotificationActionRef],
      nullable: false,
      description: 'Links it offers (three at most); empty when none.',
      resolve: (n) => n.actions,
    }),
    data: t.field({ type: 'JSON', description: 'Data the sending app attached: an object of string values.', resolve: (n) => n.data }),
  }),
});

export const NotificationConnectionRef = builder.connectionObject(
  {
    name: 'NotificationConnection',
    type: NotificationRef,
    description: 'A page of the inbox, newest first.',
    fields: (t) => ({
      totalCount: t.int({
        description:
          'How many notifications the inbox holds. The alerts service does not say, so the gateway counts them page by page (one call per 20) when this field is asked for; null beyond 200.',
        resolve: (connection, _args, ctx) => ctx.alerts.inboxCount((connection as unknown as InboxConnection).appId),
      }),
    }),
  },
  { description: 'A notification and the cursor to page on after it.' },
);

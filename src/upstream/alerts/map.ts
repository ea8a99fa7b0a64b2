import type {
  App,
  Channel,
  ChannelType,
  InboxPage,
  InboxSummary,
  Notification,
  NotificationAction,
  SendNotification,
  SubscribedApp,
  SubscriberPage,
  TelegramChannelSetup,
  Topic,
  TopicRef,
} from '../../models/alerts.js';
import { array, distinctBy, isObject, mapEach, optBoolean, optNumber, optObject, optString, orNull, reqString, type Raw } from '../read.js';
import type {
  RawAlert,
  RawAppsResponse,
  RawChannel,
  RawChannelListing,
  RawHistoryResponse,
  RawInboxSummary,
  RawSendBody,
  RawSubscribedApp,
  RawSubscribersResponse,
  RawTelegramPrepared,
} from './types.js';

const CHANNEL_TYPES: readonly ChannelType[] = ['EMAIL', 'TELEGRAM', 'PUSH', 'IN_APP'];

export function channelType(raw: unknown): ChannelType {
  if (typeof raw !== 'string') return 'UNKNOWN';
  const upper = raw.toUpperCase();
  return (CHANNEL_TYPES as readonly string[]).includes(upper) ? (upper as ChannelType) : 'UNKNOWN';
}

export function mapSubscribedApp(raw: RawSubscribedApp): SubscribedApp | null {
  if (!isObject(raw)) return null;
  return orNull(() => ({ appId: reqString(raw.id, 'app.id'), name: optString(raw.name) ?? '', icon: optString(raw.icon) }));
}

/** One channel record; `key` is where it is listed (or set up), kept as sent. */
export function mapChannel(raw: RawChannel, key: string): Channel | null {
  if (!isObject(raw)) return null;
  return orNull(() => ({
    id: reqString(raw.id, 'channel.id'),
    key,
    type: channelType(raw.type),
    rawType: optString(raw.type) ?? '',
    value: optString(raw.value) ?? '',
    verified: optBoolean(raw.verified) ?? false,
    subscribed: optBoolean(raw.subscribed) ?? false,
    subscribedApps: mapEach(raw.subscribedApps, (a) => mapSubscribedApp(a as RawSubscribedApp)),
  }));
}

/** One channel per listing key, in the order sent; a channel (by id) listed under two keys keeps its first. */
export function mapChannelListing(raw: RawChannelListing): Channel[] {
  if (!isObject(raw)) return [];
  const channels = mapEach(Object.entries(raw), (entry) => {
    const [key, channel] = entry as [string, RawChannel];
    return mapChannel(channel, key);
  });
  return distinctBy(channels, (c) => c.id);
}

export function mapTelegramPrepared(raw: RawTelegramPrepared): TelegramChannelSetup | null {
  const channel = mapChannel(raw, 'TELEGRAM');
  if (!channel) return null;
  return { channel, verificationLink: optString(optObject(raw.verification)?.['link']) };
}

function mapTopic(raw: unknown): Topic | null {
  if (!isObject(raw)) return null;
  return {
    topicId: reqString(raw['id'], 'topic.id'),
    name: optString(raw['name']) ?? '',
    slug: optString(raw['slug']) ?? '',
    description: optString(raw['description']),
    subscribed: optBoolean(raw['subscribed']) ?? false,
  };
}

export function mapApps(raw: RawAppsResponse): App[] {
  return mapEach(raw.apps, (a) => {
    if (!isObject(a)) return null;
    return {
      appId: reqString(a['id'], 'app.id'),
      name: optString(a['name']) ?? '',
      icon: optString(a['icon']),
      description: optString(a['description']),
      subscribed: optBoolean(a['subscribed']) ?? false,
      topics: mapEach(a['topics'], mapTopic),
    };
  });
}

function mapTopicRef(raw: unknown): TopicRef | null {
  if (!isObject(raw)) return null;
  const id = optString(raw['id']);
  if (!id) return null;
  return { topicId: id, name: optString(raw['name']) ?? '', slug: optString(raw['slug']) ?? '' };
}

function mapAction(raw: unknown): NotificationAction | null {
  if (!isObject(raw)) return null;
  const context = optObject(raw['context']);
  return {
    label: optString(raw['label']) ?? '',
    url: reqString(raw['url'], 'action.url'),
    context: context
      ? { type: optString(context['type']) ?? '', apiUrl: optString(context['apiUrl']) ?? '', action: optString(context['action']) }
      : null,
  };
}

function mapData(raw: unknown): Record<string, string> | null {
  if (!isObject(raw)) return null;
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(raw)) if (typeof value === 'string') data[key] = value;
  return data;
}

/**
 * One inbox entry. `lastReadAt` (the inbox's last-read mark) tells whether an alert was read when
 * the record itself does not say.
 */
export function mapNotification(raw: RawAlert, lastReadAt: string | null = null): Notification | null {
  return orNull(() => mapNotificationStrict(raw, lastReadAt));
}

function mapNotificationStrict(raw: RawAlert, lastReadAt: string | null): Notification | null {
  if (!isObject(raw)) return null;
  const timestamp = reqString(raw.timestamp, 'timestamp');
  let read = optBoolean(raw.read);
  if (read === null && lastReadAt !== null) {
    const at = Date.parse(timestamp);
    const mark = Date.parse(lastReadAt);
    if (!Number.isNaN(at) && !Number.isNaN(mark)) read = at <= mark;
  }
  return {
    notificationId: reqString(raw.id, 'id'),
    timestamp,
    title: optString(raw.title) ?? '',
    body: optString(raw.body) ?? '',
    image: optString(raw.image),
    actions: mapEach(raw.actions, mapAction),
    data: mapData(raw.data),
    topic: mapTopicRef(raw.topic),
    app: raw.app ? mapSubscribedApp(raw.app) : null,
    read,
  };
}

export function mapInboxSummary(raw: RawInboxSummary): InboxSummary {
  const summary = isObject(raw) ? raw : ({} as Raw);
  return {
    unreadCount: optNumber(summary['unreadCount']) ?? 0,
    lastReadAt: optString(optObject(summary['lastRead'])?.['timestamp']),
  };
}

export function mapInbox(raw: RawHistoryResponse): InboxPage {
  const summary = mapInboxSummary(raw.summary);
  return {
    ...summary,
    notifications: distinctBy(
      mapEach(raw.alerts, (a) => mapNotification(a as RawAlert, summary.lastReadAt)),
      (n) => n.notificationId,
    ),
    limit: optNumber(raw.limit) ?? array(raw.alerts).length,
    cursor: typeof raw.cursor === 'string' && raw.cursor ? raw.cursor : null,
  };
}

export function mapSubscribers(raw: RawSubscribersResponse): SubscriberPage {
  return {
    walletAddresses: mapEach(raw.subscribers, (s) => (isObject(s) ? optString(s['walletAddress']) : null)),
    offset: optNumber(raw.offset) ?? 0,
    limit: optNumber(raw.limit) ?? 0,
    count: optNumber(raw.count) ?? 0,
  };
}

/** The gateway's send input → the upstream's body. */
export function toSendBody(input: SendNotification): RawSendBody {
  const { recipient } = input;
  return {
    channels: [...input.channels],
    message: {
      title: input.title,
      body: input.body,
      ...(input.image ? { image: input.image } : {}),
      ...(input.actions?.length ? { actions: input.actions.map((a) => ({ type: 'link' as const, label: a.label, url: a.url })) } : {}),
    },
    ...(input.topicId ? { topicId: input.topicId } : {}),
    ...(input.data ? { data: input.data } : {}),
    ...(input.push ? { push: input.push } : {}),
    recipient:
      'walletAddress' in recipient
        ? { type: 'subscriber', walletAddress: recipient.walletAddress }
        : 'walletAddresses' in recipient
          ? { type: 'subscribers', walletAddresses: [...recipient.walletAddresses] }
          : { type: 'all-subscribers' },
  };
}

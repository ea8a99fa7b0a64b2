export type ChannelType = 'EMAIL' | 'TELEGRAM' | 'PUSH' | 'IN_APP' | 'UNKNOWN';

/** The channels a notification can be sent on, and the ones a subscription can name. */
export type NotificationChannel = 'PUSH' | 'IN_APP' | 'EMAIL' | 'TELEGRAM';
export type SubscriptionChannel = 'IN_APP' | 'EMAIL' | 'TELEGRAM';

export interface Identity {
  walletAddress: string;
}

export interface TopicRef {
  topicId: string;
  name: string;
  slug: string;
}

export interface Topic extends TopicRef {
  description: string | null;
  subscribed: boolean;
}

/**
 * The one app type. Records at hand differ in what they carry: a channel's `subscribedApps` has
 * id, name and icon only; the optional fields come from the apps listing.
 */
export interface SubscribedApp {
  appId: string;
  name: string;
  icon: string | null;
  description?: string | null;
  subscribed?: boolean;
  topics?: Topic[];
}

/** An app from the apps listing: everything known. */
export interface App extends SubscribedApp {
  description: string | null;
  subscribed: boolean;
  topics: Topic[];
}

export interface Channel {
  id: string;
  /** The listing key, as sent (`EMAIL`, `TELEGRAM` ...). */
  key: string;
  /** What the record says it is; may differ from the key. Unknown values are `UNKNOWN`. */
  type: ChannelType;
  rawType: string;
  value: string;
  verified: boolean;
  subscribed: boolean;
  subscribedApps: SubscribedApp[];
}

export interface TelegramChannelSetup {
  channel: Channel;
  /** Open it in Telegram to finish the setup. */
  verificationLink: string | null;
}

export interface NotificationAction {
  label: string;
  url: string;
  context: { type: string; apiUrl: string; action: string | null } | null;
}

export interface Notification {
  notificationId: string;
  timestamp: string;
  title: string;
  body: string;
  image: string | null;
  actions: NotificationAction[];
  data: Record<string, string> | null;
  topic: TopicRef | null;
  app: SubscribedApp | null;
  /** Null when neither the record nor the inbox's last-read mark tells. */
  read: boolean | null;
}

export interface InboxSummary {
  unreadCount: number;
  lastReadAt: string | null;
}

export interface InboxPage extends InboxSummary {
  notifications: Notification[];
  limit: number;
  /** Opaque; null at the end. */
  cursor: string | null;
}

export type Recipient =
  | { walletAddress: string }
  | { walletAddresses: string[] }
  | { allSubscribers: true };

export interface SendNotification {
  channels: NotificationChannel[];
  title: string;
  body: string;
  image?: string | null;
  actions?: { label: string; url: string }[];
  topicId?: string | null;
  data?: Record<string, string>;
  push?: { showNotification?: boolean; playNotificationSound?: boolean };
  recipient: Recipient;
}

export interface SubscriberPage {
  walletAddresses: string[];
  offset: number;
  limit: number;
  count: number;
}

/** A device's Firebase Cloud Messaging registration for the mobile push channel. */
export interface PushDevice {
  fcmToken: string;
  deviceId?: string;
  appId?: string;
}

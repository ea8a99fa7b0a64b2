/**
 * The alerts service's records and request shapes as the simulator reads docs/upstream.md section 1. A copy,
 * on purpose, of what src/upstream/alerts/types.ts reads from the same contract: kept apart so that a
 * misreading on one side shows as a failing test instead of agreeing with itself (see world/market-types.ts).
 */

/** Channel names used by app subscriptions (`POST /v2/subscribe`). */
export type ChannelName = 'IN_APP' | 'EMAIL' | 'TELEGRAM';
export const CHANNEL_NAMES: readonly ChannelName[] = ['IN_APP', 'EMAIL', 'TELEGRAM'];

/** Channels a send may target. */
export type SendChannel = 'PUSH' | ChannelName;
export const SEND_CHANNELS: readonly SendChannel[] = ['PUSH', 'IN_APP', 'EMAIL', 'TELEGRAM'];

export interface TopicRecord {
  id: string;
  name: string;
  slug: string;
  description?: string;
}

export interface AppRecord {
  id: string;
  name: string;
  description?: string;
  icon: string | null;
  /** The `X-Service-Api-Key` that owns this app (and only this app). */
  apiKey: string;
  /** Omitted on one app (the listing then omits `topics`). */
  topics?: TopicRecord[];
}

/** One entry of the channel listing. The listing key is stored separately (the map key). */
export interface ChannelRecord {
  id: string;
  /** What the record says (`EMAIL`, `TELEGRAM`, `DISCORD`…); need not equal the listing key. */
  type: string;
  value: string;
  verified: boolean;
  subscribed: boolean;
  /** When true and the record has no subscribed apps, `subscribedApps` is left out (missing = []). */
  omitSubscribedApps?: boolean;
  /** For keys that are not EMAIL/TELEGRAM: a fixed list of app ids (no subscription preference maps to them). */
  staticAppIds?: string[];
}

export interface AlertAction {
  type: 'link';
  label: string;
  url: string;
  context?: { type: 'position'; apiUrl: string; action?: string };
}

export interface AlertRecord {
  id: string;
  appId: string;
  /** ISO 8601, UTC, millisecond precision (`toISOString()`). */
  timestamp: string;
  title: string;
  body: string;
  image?: string;
  actions?: AlertAction[];
  data?: Record<string, string>;
  topicId?: string;
  read: boolean;
}

export interface PendingEmail {
  code: string;
  /** Epoch ms. */
  expiresAt: number;
}

export interface PushRegistration {
  fcmToken: string;
  deviceId?: string;
  appId?: string;
  at: string;
}

export interface SubscriberRecord {
  walletAddress: string;
  /** The opaque bearer token (JWT-looking). */
  token: string;
  /** Listing key → record, in listing order. */
  channels: Map<string, ChannelRecord>;
  /** App id → channels the subscriber receives that app on. An app with an empty set is not subscribed. */
  apps: Map<string, Set<ChannelName>>;
  /** Subscribed topic ids. */
  topics: Set<string>;
  inbox: AlertRecord[];
  /** App id → ISO timestamp of the last "mark read". */
  lastRead: Map<string, string>;
  pendingEmail?: PendingEmail;
  /** Pending Telegram link code, set by `/v2/channel/telegram/prepare`. */
  telegramLinkCode?: string;
  push: PushRegistration[];
}

export interface DeliveryRecord {
  appId: string;
  recipientType: 'subscriber' | 'subscribers' | 'all-subscribers';
  /** Distinct recipients addressed (for all-subscribers: the app's subscribers). */
  recipients: number;
  channels: SendChannel[];
  idempotencyKey?: string;
  /** ISO 8601. */
  at: string;
  title: string;
  /** How many inboxes received the alert (IN_APP only, else 0). */
  inboxed: number;
}

export interface DemoCredentials {
  token: string;
  clientKey: string;
  walletAddress: string;
  apiKey: string;
  appId: string;
}

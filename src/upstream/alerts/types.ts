/** Raw shapes of the alerts service (docs/upstream.md section 1), exactly as sent. */

/** `GET /v2/auth` */
export interface RawIdentity {
  walletAddress: string;
}

export interface RawSubscribedApp {
  id: string;
  name: string;
  icon?: string | null;
}

export interface RawChannel {
  id: string;
  /** `EMAIL | TELEGRAM | other`; need not equal the listing key. */
  type: string;
  value: string;
  verified: boolean;
  subscribed: boolean;
  /** Missing = []. */
  subscribedApps?: RawSubscribedApp[] | null;
}

/** `GET /v2/channels`: a key is omitted when that channel is not set up. */
export type RawChannelListing = Record<string, RawChannel>;

/** `POST /v2/channel/telegram/prepare` */
export type RawTelegramPrepared = RawChannel & { verification?: { link: string } | null };

export type RawChannelName = 'IN_APP' | 'EMAIL' | 'TELEGRAM';

/** Body of `POST /v2/channel/email/prepare`. */
export interface RawPrepareEmailBody {
  email: string;
}

/** Body of `POST /v2/channel/email/verify`. */
export interface RawVerifyEmailBody {
  code: string;
}

/** Body of `POST /v2/push/subscribe` and `/v2/push/unsubscribe`. */
export interface RawPushBody {
  fcmToken: string;
  deviceId?: string;
  appId?: string;
}

export interface RawTopic {
  id: string;
  name: string;
  slug: string;
  description?: string | null;
  subscribed: boolean;
}

export interface RawApp {
  id: string;
  name: string;
  description?: string | null;
  icon?: string | null;
  subscribed: boolean;
  topics?: RawTopic[] | null;
}

/** `GET /v2/apps` */
export interface RawAppsResponse {
  apps: RawApp[];
}

/** Body of `POST /v2/subscribe` and `/v2/unsubscribe`; omitted = all. */
export interface RawSubscriptionBody {
  appId?: string | string[];
  channel?: RawChannelName | RawChannelName[];
}

export interface RawAlert {
  id: string;
  timestamp: string;
  title: string;
  body: string;
  image?: string | null;
  actions?: { type: 'link'; label: string; url: string; context?: { type: 'position'; apiUrl: string; action?: string } | null }[] | null;
  data?: Record<string, string> | null;
  topic?: { id: string; name: string; slug: string } | null;
  app?: RawSubscribedApp | null;
  read?: boolean | null;
}

export interface RawInboxSummary {
  unreadCount: number;
  lastRead?: { timestamp: string } | null;
}

/** `GET /v2/history` */
export interface RawHistoryResponse {
  alerts: RawAlert[];
  summary: RawInboxSummary;
  limit: number;
  cursor?: string | null;
}

/** Body of `POST /v2/history/read` and `/v2/history/clear`. */
export interface RawHistoryMarkBody {
  appId?: string | string[];
}

/** Body of `POST /v2/{appId}/send`. */
export interface RawSendBody {
  channels: ('PUSH' | 'IN_APP' | 'EMAIL' | 'TELEGRAM')[];
  message: {
    title: string;
    body: string;
    image?: string;
    actions?: { type: 'link'; label: string; url: string }[];
  };
  topicId?: string | null;
  data?: Record<string, string>;
  push?: { showNotification?: boolean; playNotificationSound?: boolean };
  recipient:
    | { type: 'subscriber'; walletAddress: string }
    | { type: 'subscribers'; walletAddresses: string[] }
    | { type: 'all-subscribers' };
}

/** `GET /v2/{appId}/subscribers` */
export interface RawSubscribersResponse {
  subscribers: { walletAddress: string }[];
  offset: number;
  limit: number;
  count: number;
}

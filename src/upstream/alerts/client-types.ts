import type {
  App,
  Channel,
  Identity,
  InboxPage,
  InboxSummary,
  PushDevice,
  SendNotification,
  SubscriberPage,
  SubscriptionChannel,
  TelegramChannelSetup,
} from '../../models/alerts.js';
import type { CallScope } from '../../operation/index.js';

/** The caller's own credentials, forwarded as received on every subscriber call. The client keeps none. */
export interface SubscriberCredentials {
  /** The caller's `Authorization` header value, e.g. `Bearer eyJ…`. */
  readonly authorization: string;
  /** The caller's `X-Service-Client-Key`. */
  readonly clientKey?: string;
}

/** The caller's application key, forwarded to the application calls only. */
export interface AppCredentials {
  apiKey: string;
  /** Same key and body within 24 h: accepted once. */
  idempotencyKey?: string;
}

/** Which subscriptions to change; an omitted list means all. */
export interface SubscriptionChange {
  appIds?: readonly string[];
  channels?: readonly SubscriptionChannel[];
}

export interface InboxParams {
  /** Omitted: the unified inbox over every subscribed app. */
  appId?: string;
  /** 1–20; default 10. */
  limit?: number;
  cursor?: string | null;
  scope?: CallScope;
}

/**
 * The subscriber's reads take the operation's `CallScope` (its signal aborts them); the writes take it
 * too, for its budget, but are never aborted: once sent, a write finishes whoever is still waiting.
 */
export interface AlertsClient {
  getIdentity(creds: SubscriberCredentials, opts?: { scope?: CallScope }): Promise<Identity>;
  /** One channel per listing key. */
  listChannels(creds: SubscriberCredentials, opts?: { scope?: CallScope }): Promise<Channel[]>;
  prepareEmailChannel(creds: SubscriberCredentials, email: string, scope?: CallScope): Promise<Channel>;
  verifyEmailChannel(creds: SubscriberCredentials, code: string, scope?: CallScope): Promise<Channel>;
  resendEmailVerification(creds: SubscriberCredentials, scope?: CallScope): Promise<void>;
  deleteEmailChannel(creds: SubscriberCredentials, scope?: CallScope): Promise<void>;
  prepareTelegramChannel(creds: SubscriberCredentials, scope?: CallScope): Promise<TelegramChannelSetup>;
  deleteTelegramChannel(creds: SubscriberCredentials, scope?: CallScope): Promise<void>;
  registerPushDevice(creds: SubscriberCredentials, device: PushDevice, scope?: CallScope): Promise<void>;
  unregisterPushDevice(creds: SubscriberCredentials, device: PushDevice, scope?: CallScope): Promise<void>;
  listApps(creds: SubscriberCredentials, opts?: { scope?: CallScope }): Promise<App[]>;
  subscribe(creds: SubscriberCredentials, change?: SubscriptionChange, scope?: CallScope): Promise<void>;
  unsubscribe(creds: SubscriberCredentials, change?: SubscriptionChange, scope?: CallScope): Promise<void>;
  getInbox(creds: SubscriberCredentials, params?: InboxParams): Promise<InboxPage>;
  getInboxSummary(creds: SubscriberCredentials, params?: { appId?: string; scope?: CallScope }): Promise<InboxSummary>;
  /** Marks the alerts of the given apps (all when omitted) read. */
  markRead(creds: SubscriberCredentials, appIds?: readonly string[], scope?: CallScope): Promise<void>;
  /** Clears read alerts of the given apps (all when omitted). */
  clearRead(creds: SubscriberCredentials, appIds?: readonly string[], scope?: CallScope): Promise<void>;
  /** Accepted for asynchronous delivery. */
  send(creds: AppCredentials, appId: string, notification: SendNotification, scope?: CallScope): Promise<void>;
  listSubscribers(
    creds: Pick<AppCredentials, 'apiKey'>,
    appId: string,
    params?: { offset?: number; limit?: number; scope?: CallScope },
  ): Promise<SubscriberPage>;
}

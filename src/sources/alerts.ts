import { MissingCredentialsError, subscriberKey, type Credentials } from '../credentials.js';
import type { App, Channel, Identity, InboxPage, InboxSummary, PushDevice, SendNotification, TelegramChannelSetup } from '../models/alerts.js';
import type { Services } from '../services.js';
import { appKeyHash } from '../stores/verified-callers.js';
import type { SubscriberCredentials, SubscriptionChange } from '../upstream/index.js';
import type { CallScope } from '../operation/index.js';
import { eventScope } from './common.js';
import { createAlertsReads, refusesCredentials, type AlertsDataKind, type AlertsReads, type InboxPageKey } from './alerts-reads.js';

/** What a send answers; remembered with its idempotency key, so that a repeat answers the same. */
export interface SendReceipt {
  /** Distinct wallets addressed; null for all subscribers. */
  recipientCount: number | null;
}

/** The gateway's own memory of a send, keyed by the app's key and the caller's idempotency key. */
export interface SendOnce {
  idempotencyKey: string;
  /** A hash of the normalised input: the same key with another input is a conflict. */
  fingerprint: string;
}

type AlertsServices = Pick<Services, 'upstream' | 'verifiedCallers' | 'idempotency'>;

/**
 * The alerts service as one request sees it: built once per request with the caller's credentials
 * and the operation's call scope, which no resolver passes. Reads are loaded at most once per request
 * (`alerts-reads.ts`); each write forgets the reads it makes stale, whatever its outcome, so the rest
 * of the request reads the new state. A call that needs credentials the request does not carry is
 * refused here, before any upstream call, with `MissingCredentialsError` (`maskError` answers it
 * `UNAUTHENTICATED`); upstream failures reject with the client's `UpstreamError`.
 */
export class AlertsSource {
  readonly #services: AlertsServices;
  readonly #credentials: Credentials;
  #scope: CallScope;
  /** Built on the first read: most operations read nothing of the alerts service. */
  #memo: AlertsReads | undefined;
  readonly #verify: boolean;
  #wasRefused = false;

  /** `verify`: ask who the token belongs to even when the identity is remembered (a cache refresh). */
  constructor(services: AlertsServices, credentials: Credentials, scope: CallScope = {}, options: { verify?: boolean } = {}) {
    this.#services = services;
    this.#credentials = credentials;
    this.#scope = scope;
    this.#verify = options.verify ?? false;
  }

  /** Whether the alerts service refused this request's subscriber credentials (a bad or revoked token). */
  get credentialsRefused(): boolean {
    return this.#wasRefused;
  }

  /** The caller's subscriber credentials; throws `MissingCredentialsError` when the request carries none. */
  requireSubscriber(): SubscriberCredentials {
    const { subscriber } = this.#credentials;
    if (!subscriber) throw new MissingCredentialsError('subscriber');
    return subscriber;
  }

  /** The app key the request carries (`X-Service-Api-Key`); throws `MissingCredentialsError` when it carries none. */
  requireAppKey(): string {
    const { apiKey } = this.#credentials;
    if (!apiKey) throw new MissingCredentialsError('apiKey');
    return apiKey;
  }

  /** `GET /v2/auth`: whose token this is (remembered across requests, see `alerts-reads.ts`). */
  identity(): Promise<Identity> {
    return this.#reads()?.identity() ?? this.#refused();
  }

  /** `GET /v2/channels`: one channel per listing key. */
  channels(): Promise<Channel[]> {
    return this.#reads()?.channels() ?? this.#refused();
  }

  /** `GET /v2/apps`: every app, with the caller's subscription state and topics. */
  apps(): Promise<App[]> {
    return this.#reads()?.apps() ?? this.#refused();
  }

  /** One app of the listing; `null` when the listing has no such app. */
  async app(appId: string): Promise<App | null> {
    return (await this.apps()).find((app) => app.appId === appId) ?? null;
  }

  /** `GET /v2/history` for exactly these arguments. */
  inbox(key: InboxPageKey): Promise<InboxPage> {
    return this.#reads()?.inbox(key) ?? this.#refused();
  }

  /** The unread count and last-read mark of one app's inbox (`null`: the unified inbox). */
  summary(appId: string | null): Promise<InboxSummary> {
    return this.#reads()?.summary(appId) ?? this.#refused();
  }

  /** How many notifications the inbox holds; `null` when it holds more than `INBOX_COUNT_MAX_PAGES` pages. */
  inboxCount(appId: string | null): Promise<number | null> {
    return this.#reads()?.inboxCount(appId) ?? this.#refused();
  }

  /** Forgets what a change made stale, so later reads in the same request see the new state. */
  invalidate(kind: AlertsDataKind): void {
    this.#memo?.invalidate(kind);
  }

  prepareEmailChannel(email: string): Promise<Channel> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.prepareEmailChannel(creds, email, scope));
  }

  verifyEmailChannel(code: string): Promise<Channel> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.verifyEmailChannel(creds, code, scope));
  }

  resendEmailVerification(): Promise<void> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.resendEmailVerification(creds, scope));
  }

  deleteEmailChannel(): Promise<void> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.deleteEmailChannel(creds, scope));
  }

  prepareTelegramChannel(): Promise<TelegramChannelSetup> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.prepareTelegramChannel(creds, scope));
  }

  deleteTelegramChannel(): Promise<void> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.deleteTelegramChannel(creds, scope));
  }

  registerPushDevice(device: PushDevice): Promise<void> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.registerPushDevice(creds, device, scope));
  }

  unregisterPushDevice(device: PushDevice): Promise<void> {
    return this.#write(CHANNELS, (creds, scope) => this.#client.unregisterPushDevice(creds, device, scope));
  }

  subscribe(change: SubscriptionChange): Promise<void> {
    return this.#write(SUBSCRIPTIONS, (creds, scope) => this.#client.subscribe(creds, change, scope));
  }

  unsubscribe(change: SubscriptionChange): Promise<void> {
    return this.#write(SUBSCRIPTIONS, (creds, scope) => this.#client.unsubscribe(creds, change, scope));
  }

  /** `appIds` omitted: every app. */
  markRead(appIds?: readonly string[]): Promise<void> {
    return this.#write(INBOX, (creds, scope) => this.#client.markRead(creds, appIds, scope));
  }

  /** `appIds` omitted: every app. */
  clearRead(appIds?: readonly string[]): Promise<void> {
    return this.#write(INBOX, (creds, scope) => this.#client.clearRead(creds, appIds, scope));
  }

  /**
   * `POST /v2/send` as the app whose key the request carries. With `once`, a repeat of the same input
   * within 24 h answers the first `receipt` without sending again, and the same key with another
   * input answers `'conflict'` without sending. Once the service accepted a send, the key names its
   * caller for the rate limit (rate-limit.ts).
   */
  async send(appId: string, notification: SendNotification, receipt: SendReceipt, once: SendOnce | null): Promise<SendReceipt | 'conflict'> {
    const apiKey = this.requireAppKey();
    const send = async (): Promise<SendReceipt> => {
      const creds = { apiKey, ...(once ? { idempotencyKey: once.idempotencyKey } : {}) };
      await this.#client.send(creds, appId, notification, this.#scope);
      this.#services.verifiedCallers.rememberApp(appKeyHash(apiKey));
      return receipt;
    };
    if (!once) return send();
    const remembered = await this.#services.idempotency.run({ apiKey, ...once }, send);
    return remembered.status === 'conflict' ? 'conflict' : remembered.value;
  }

  /** Starts a subscription's event: forgets what earlier events read, and calls with the event's scope. */
  startEvent(): void {
    this.#memo = undefined;
    this.#scope = eventScope(this.#scope);
  }

  get #client() {
    return this.#services.upstream.alerts;
  }

  /** The request's reads; null when it carries no subscriber credentials. */
  #reads(): AlertsReads | null {
    const { subscriber } = this.#credentials;
    return subscriber ? (this.#memo ??= createAlertsReads(this.#services, subscriber, this.#scope, { refused: () => this.#refuse(subscriber), verify: this.#verify })) : null;
  }

  /** The token was refused: its identity is forgotten at once, and the request says so (the response cache evicts its answers). */
  #refuse(subscriber: SubscriberCredentials): void {
    this.#wasRefused = true;
    this.#services.verifiedCallers.forgetIdentity(subscriberKey(subscriber));
  }

  /** A read without subscriber credentials: refused as `requireSubscriber` refuses, as a rejection. */
  #refused(): Promise<never> {
    return Promise.reject(new MissingCredentialsError('subscriber'));
  }

  async #write<T>(invalidates: readonly AlertsDataKind[], call: (creds: SubscriberCredentials, scope: CallScope) => Promise<T>): Promise<T> {
    const creds = this.requireSubscriber();
    try {
      return await call(creds, this.#scope);
    } catch (error) {
      if (refusesCredentials(error)) this.#refuse(creds);
      throw error;
    } finally {
      for (const kind of invalidates) this.invalidate(kind);
    }
  }
}

const CHANNELS: readonly AlertsDataKind[] = ['channels'];
// A channel's apps and the unified inbox (every subscribed app) follow the subscriptions.
const SUBSCRIPTIONS: readonly AlertsDataKind[] = ['apps', 'channels', 'inbox'];
const INBOX: readonly AlertsDataKind[] = ['inbox'];

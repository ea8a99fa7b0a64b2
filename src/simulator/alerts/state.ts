import type { Rng } from '../prng.js';
import { alertsRng, generateAlertsData, type AlertsData } from './data.js';
import { sixDigitCode } from './random-text.js';
import type { AppRecord, DeliveryRecord, DemoCredentials, SubscriberRecord } from './types.js';

export interface AlertsStateOptions {
  /** "Now" for the generated history (epoch ms). Default: the start of the current UTC day. */
  anchorMs?: number;
  /** How many subscribers to generate (default SUBSCRIBER_COUNT; the throughput bench asks for 1,000 distinct users). */
  subscribers?: number;
}

/** An accepted send remembered under its `Idempotency-Key` (scoped per app). */
interface IdempotencyEntry {
  fingerprint: string;
  at: number;
}

export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** Lifetime of an email verification code. */
export const EMAIL_CODE_TTL_MS = 10 * 60_000;

/**
 * The alerts service's whole state: apps, subscribers (channels, subscriptions, inboxes), the delivery log
 * and the idempotency keys. Deterministic from the seed; `reset()` rebuilds the initial data in place, so a
 * reference to this object stays valid.
 */
export class AlertsState {
  readonly seed: number;
  readonly walletAddresses: readonly string[];
  /** "Now" of the generated history (epoch ms). */
  readonly anchorMs: number;

  #data!: AlertsData;
  #byToken = new Map<string, SubscriberRecord>();
  #byApiKey = new Map<string, AppRecord>();
  #byAppId = new Map<string, AppRecord>();
  #deliveries: DeliveryRecord[] = [];
  #idempotency = new Map<string, Map<string, IdempotencyEntry>>();
  #rng!: Rng;
  #clock: () => number = Date.now;
  #subscribers: number | undefined;

  constructor(seed: number, walletAddresses: readonly string[], options: AlertsStateOptions = {}) {
    this.seed = seed;
    this.walletAddresses = [...walletAddresses];
    const today = new Date();
    this.anchorMs = options.anchorMs ?? Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate());
    this.#subscribers = options.subscribers;
    this.reset();
  }

  /** Back to the initial data: subscribers, apps, inboxes, deliveries, idempotency keys, and the real clock. */
  reset(): void {
    this.#data = generateAlertsData(this.seed, this.walletAddresses, this.anchorMs, this.#subscribers);
    this.#byToken = new Map([...this.#data.subscribers.values()].map((s) => [s.token, s]));
    this.#byApiKey = new Map(this.#data.apps.map((a) => [a.apiKey, a]));
    this.#byAppId = new Map(this.#data.apps.map((a) => [a.id, a]));
    this.#deliveries = [];
    this.#idempotency = new Map();
    this.#rng = alertsRng(this.seed ^ 0x5e4d);
    this.#clock = Date.now;
  }

  /** Wallet address → subscriber record (token, channels, subscriptions, inbox). */
  get subscribers(): Map<string, SubscriberRecord> {
    return this.#data.subscribers;
  }

  get apps(): AppRecord[] {
    return this.#data.apps;
  }

  /** Valid `X-Service-Client-Key` values (the first is `demo-client-key`). */
  get clientKeys(): readonly string[] {
    return this.#data.clientKeys;
  }

  /** The demo subscriber's token and wallet, a client key, and the first app's id and api key. */
  get demo(): DemoCredentials {
    return this.#data.demo;
  }

  /** Accepted sends, oldest first. */
  get deliveries(): DeliveryRecord[] {
    return this.#deliveries;
  }

  /** The pending email verification code of a subscriber (even when expired), if any. */
  verificationCode(walletAddress: string): string | undefined {
    return this.subscribers.get(walletAddress)?.pendingEmail?.code;
  }

  /** Test hook: completes a Telegram link started with `/v2/channel/telegram/prepare`. */
  completeTelegramLink(walletAddress: string, username: string): boolean {
    const sub = this.subscribers.get(walletAddress);
    const rec = sub?.channels.get('TELEGRAM');
    if (!sub || !rec || sub.telegramLinkCode === undefined) return false;
    rec.value = username;
    rec.verified = true;
    rec.subscribed = true;
    delete sub.telegramLinkCode;
    return true;
  }

  /** Current time (epoch ms); `Date.now` unless a test set a clock. */
  now(): number {
    return this.#clock();
  }

  /** Test hook: replaces the clock (code expiry, idempotency window, timestamps); `null` restores `Date.now`. */
  setClock(clock: (() => number) | null): void {
    this.#clock = clock ?? Date.now;
  }

  subscriberByToken(token: string): SubscriberRecord | undefined {
    return this.#byToken.get(token);
  }

  /** Revokes a subscriber's token: every call with it is refused (401) from now on, until `reset`. */
  revokeToken(token: string): void {
    this.#byToken.delete(token);
  }

  isClientKey(key: string): boolean {
    return this.#data.clientKeys.includes(key);
  }

  appById(id: string): AppRecord | undefined {
    return this.#byAppId.get(id);
  }

  appByApiKey(key: string): AppRecord | undefined {
    return this.#byApiKey.get(key);
  }

  /** Runtime ids and codes, from a seeded stream too. */
  newId(): string {
    return this.#rng.uuid();
  }

  newCode(): string {
    return sixDigitCode(this.#rng);
  }

  newHex(nBytes: number): string {
    return this.#rng.hex(nBytes);
  }

  /**
   * Looks an idempotency key up for an app: `new` (not seen within 24 h), `replay` (same body) or `conflict`.
   * Expired entries are dropped.
   */
  checkIdempotency(appId: string, key: string, fingerprint: string): 'new' | 'replay' | 'conflict' {
    const perApp = this.#idempotency.get(appId);
    const entry = perApp?.get(key);
    if (!entry) return 'new';
    if (this.now() - entry.at >= IDEMPOTENCY_WINDOW_MS) {
      perApp!.delete(key);
      return 'new';
    }
    return entry.fingerprint === fingerprint ? 'replay' : 'conflict';
  }

  rememberIdempotency(appId: string, key: string, fingerprint: string): void {
    let perApp = this.#idempotency.get(appId);
    if (!perApp) this.#idempotency.set(appId, (perApp = new Map<string, IdempotencyEntry>()));
    perApp.set(key, { fingerprint, at: this.now() });
  }

  recordDelivery(delivery: DeliveryRecord): void {
    this.#deliveries.push(delivery);
  }
}

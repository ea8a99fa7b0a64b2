import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import type { Config } from '../config.js';
import { setWithin } from '../held.js';

/**
 * The MAC of every connection cursor (HMAC-SHA256, 128 bits), with the keys that make and accept it.
 * The schema's cursor module encodes and decodes payloads; this signs and checks them.
 */

/** The keys cursors are signed with: `current` signs and verifies, `verifyOnly` (a rotation's grace period) verifies. */
export interface CursorKeys {
  current: Buffer;
  verifyOnly: Buffer[];
}

/**
 * Where the current key comes from: a secret of the configuration; a key generated once and kept in
 * Redis for every replica (production without a secret, with `REDIS_URL`); a key of this process alone
 * (production with neither, allowed with `SINGLE_REPLICA=true` only); a fixed development key.
 */
export type CursorKeySource = 'CURSOR_SECRET' | 'WEBHOOK_SECRET' | 'redis' | 'per-process' | 'development';

type KeyConfig = Pick<Config, 'cursorSecret' | 'cursorSecretPrevious' | 'webhookSecret' | 'production' | 'redisUrl'>;

/** Every development process shares this key (so development replicas agree); it is no secret: production sets one. */
const DEVELOPMENT_KEY = 'alerts-markets-gateway development cursor key (not a secret)';

export const deriveCursorKey = (secret: string, purpose = 'cursor'): Buffer => createHmac('sha256', secret).update(purpose).digest();
/** The key production derived from `WEBHOOK_SECRET` when no `CURSOR_SECRET` was set. */
const webhookKey = (secret: string): Buffer => deriveCursorKey(secret, 'gateway cursor key');

/**
 * The keys a configuration gives at boot. With `CURSOR_SECRET`, cursors of `CURSOR_SECRET_PREVIOUS` and
 * of the key derived from `WEBHOOK_SECRET` (what production signed with before `CURSOR_SECRET` was set)
 * are still accepted. Source `redis`: `current` is a stand-in until `sharedCursorKey` (cursor-keys.ts) has read the shared one.
 */
export function cursorKeys(config: KeyConfig): CursorKeys & { source: CursorKeySource } {
  const verifyOnly = config.cursorSecretPrevious ? [deriveCursorKey(config.cursorSecretPrevious)] : [];
  if (config.cursorSecret) {
    if (config.webhookSecret) verifyOnly.push(webhookKey(config.webhookSecret));
    return { current: deriveCursorKey(config.cursorSecret), verifyOnly, source: 'CURSOR_SECRET' };
  }
  if (config.webhookSecret) return { current: webhookKey(config.webhookSecret), verifyOnly, source: 'WEBHOOK_SECRET' };
  if (!config.production) return { current: deriveCursorKey(DEVELOPMENT_KEY), verifyOnly, source: 'development' };
  return { current: randomBytes(32), verifyOnly, source: config.redisUrl ? 'redis' : 'per-process' };
}

/**
 * Why production cannot start with these keys, or null: a key of its own process makes every other
 * replica refuse its cursors, so it is allowed only when the operator says there is no other replica.
 */
export function cursorKeyRefusal(config: KeyConfig & Pick<Config, 'singleReplica'>): string | null {
  if (cursorKeys(config).source !== 'per-process' || config.singleReplica) return null;
  return (
    'CURSOR_SECRET: required in production without REDIS_URL or WEBHOOK_SECRET (replicas must share the key that signs cursors); ' +
    'set CURSOR_SECRET, or REDIS_URL to keep a generated key there, or SINGLE_REPLICA=true if this process is the only replica'
  );
}

/** Most cursors `CursorSigner` keeps issued. */
const ISSUED_MAX_ENTRIES = 10_000;

/** Length of the MAC's base64url text (16 bytes). */
const MAC_LENGTH = 22;

const mac = (key: KeyObject, body: string): Buffer => createHmac('sha256', key).update(body).digest().subarray(0, 16);

/**
 * Signs cursor bodies and checks signed cursors. Keys are held as `KeyObject`s: an HMAC over a key
 * object costs a quarter of one over a Buffer (Node imports a Buffer key anew for every HMAC).
 */
export class CursorSigner {
  #current!: KeyObject;
  #verifyOnly: KeyObject[] = [];
  /**
   * The cursors issued lately, by body: a page read again (by any caller: a body holds only a place in
   * a list and the fingerprint of its arguments, nothing of the caller) reissues its cursors without an
   * HMAC each. Bounded by their characters.
   */
  readonly #issued = new LRUCache<string, string>({ maxSize: 2 * 1024 * 1024, sizeCalculation: (cursor, body) => cursor.length + body.length });
  /** What `issued` built with the current key, held by its owner's life (a store's page), dropped with the keys. */
  #built = new WeakMap<object, unknown>();

  constructor(keys: CursorKeys) {
    this.setKeys(keys);
  }

  setKeys(keys: CursorKeys): void {
    this.#current = createSecretKey(keys.current);
    this.#verifyOnly = keys.verifyOnly.map((key) => createSecretKey(key));
    this.#issued.clear();
    this.#built = new WeakMap();
  }

  issued<T>(owner: object, make: () => T): T {
    if (this.#built.has(owner)) return this.#built.get(owner) as T;
    const built = make();
    this.#built.set(owner, built);
    return built;
  }

  /** `body.mac` (base64url text in, base64url text out). */
  sign(body: string): string {
    let cursor = this.#issued.get(body);
    if (cursor === undefined) setWithin(this.#issued, ISSUED_MAX_ENTRIES, body, (cursor = `${body}.${mac(this.#current, body).toString('base64url')}`));
    return cursor;
  }

  /** The body of a cursor whose MAC one of the keys made; null otherwise. */
  verify(text: string): string | null {
    const dot = text.length - MAC_LENGTH - 1;
    if (dot < 1 || text[dot] !== '.') return null;
    const body = text.slice(0, dot);
    const given = Buffer.from(text.slice(dot + 1), 'base64url');
    if (given.length !== 16) return null;
    for (const key of [this.#current, ...this.#verifyOnly]) {
      if (timingSafeEqual(mac(key, body), given)) return body;
    }
    return null;
  }
}

import { createHmac, createSecretKey, hash, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { badUserInput } from '../../errors.js';

/**
 * Opaque connection cursors: base64url JSON of a payload each connection types and checks itself
 * (its place in the list, and what binds the cursor to the arguments it was issued for), followed by
 * `.` and a MAC of it (HMAC-SHA256, 128 bits). A cursor the gateway did not issue, or one edited
 * after, is refused before anything in it is read: no upstream cursor a caller wrote reaches an upstream.
 */

/** A Relay connection's `pageInfo`, as every connection of the gateway returns it. */
export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

/** Room for any cursor the gateway issues, an upstream cursor inside included; anything longer is refused unread. */
const MAX_CURSOR_LENGTH = 4_096;
const BASE64URL = /^[A-Za-z0-9_-]+$/;
/** An upstream's cursor rides inside ours: printable ASCII without spaces. */
const UPSTREAM_CURSOR = /^[\x21-\x7e]+$/;

/** Length of the MAC's base64url text (16 bytes). */
const MAC_LENGTH = 22;

/** The keys cursors are signed with: `current` signs and verifies, `previous` (a rotation's grace period) verifies only. */
export interface CursorKeys {
  current: Buffer;
  previous: Buffer | null;
}

/** Where the current key came from, for the start-up log. */
export type CursorKeySource = 'CURSOR_SECRET' | 'WEBHOOK_SECRET' | 'per-process' | 'development';

/** Every development process shares this key (so development replicas agree); it is no secret: production sets one. */
const DEVELOPMENT_KEY = 'alerts-markets-gateway development cursor key (not a secret)';

const derive = (secret: string, purpose: string): Buffer => createHmac('sha256', secret).update(purpose).digest();

/**
 * The cursor keys a configuration gives: `CURSOR_SECRET` (and `CURSOR_SECRET_PREVIOUS`, still
 * accepted during a rotation); without it, a key derived from `WEBHOOK_SECRET` (every replica shares
 * it); without either, in production a random key of this process (its cursors work on it alone,
 * hence a warning), in development a fixed development key.
 */
export function cursorKeys(config: {
  cursorSecret: string | null;
  cursorSecretPrevious: string | null;
  webhookSecret: string | null;
  production: boolean;
}): CursorKeys & { source: CursorKeySource } {
  const previous = config.cursorSecretPrevious ? derive(config.cursorSecretPrevious, 'cursor') : null;
  if (config.cursorSecret) return { current: derive(config.cursorSecret, 'cursor'), previous, source: 'CURSOR_SECRET' };
  if (config.webhookSecret) return { current: derive(config.webhookSecret, 'gateway cursor key'), previous, source: 'WEBHOOK_SECRET' };
  if (config.production) return { current: randomBytes(32), previous, source: 'per-process' };
  return { current: derive(DEVELOPMENT_KEY, 'cursor'), previous, source: 'development' };
}

/**
 * The keys in use, as `KeyObject`s: an HMAC over a key object costs a quarter of one over a Buffer
 * (Node imports a Buffer key anew for every HMAC: 21 µs against 5 µs a cursor on Node 24, and a
 * screen issues dozens of cursors).
 */
let keys: { current: KeyObject; previous: KeyObject | null } = { current: createSecretKey(derive(DEVELOPMENT_KEY, 'cursor')), previous: null };

/** Sets the keys of the process (at boot, from the configuration: `cursorKeys`). */
export function setCursorKeys(next: CursorKeys): void {
  keys = { current: createSecretKey(next.current), previous: next.previous ? createSecretKey(next.previous) : null };
  issued.clear();
}

/**
 * The cursors issued lately, by their payload's text: a page read again (by any caller: a payload holds
 * only a place in a list and the fingerprint of its arguments, nothing of the caller) reissues its
 * cursors without an HMAC each (5 µs a cursor, a hundred on a page of markets: 9 % of such a page's
 * CPU). Bounded by their characters (a payload is a few hundred at most, an upstream cursor inside included).
 */
const issued = new LRUCache<string, string>({ max: 10_000, maxSize: 2 * 1024 * 1024, sizeCalculation: (cursor, json) => cursor.length + json.length });

const mac = (key: KeyObject, body: string): Buffer => createHmac('sha256', key).update(body).digest().subarray(0, 16);

/** The payload text of a cursor whose MAC one of the keys made; null otherwise. */
function verified(text: string): string | null {
  const dot = text.length - MAC_LENGTH - 1;
  if (dot < 1 || text[dot] !== '.') return null;
  const body = text.slice(0, dot);
  const given = Buffer.from(text.slice(dot + 1), 'base64url');
  if (given.length !== 16) return null;
  for (const key of [keys.current, keys.previous]) {
    if (key && timingSafeEqual(mac(key, body), given)) return body;
  }
  return null;
}

/**
 * A connection edge whose cursor is encoded (a MAC) only when read: a screen that selects no `cursor`
 * pays for none, one that does pays once per edge.
 */
export class LazyEdge<T, P> {
  #cursor: string | undefined;
  constructor(
    readonly node: T,
    private readonly payload: P,
  ) {}
  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.payload));
  }
}

/** Relay page information whose start and end cursors are those of its first and last edges, read when asked for. */
export function lazyPageInfo(edges: readonly { cursor: string }[], hasNextPage: boolean, hasPreviousPage: boolean): PageInfo {
  return new LazyPageInfo(edges, hasNextPage, hasPreviousPage);
}

/** Its getters on the prototype: an object literal with getters builds them anew for every page. */
class LazyPageInfo implements PageInfo {
  constructor(
    private readonly edges: readonly { cursor: string }[],
    readonly hasNextPage: boolean,
    readonly hasPreviousPage: boolean,
  ) {}
  get startCursor(): string | null {
    return this.edges[0]?.cursor ?? null;
  }
  get endCursor(): string | null {
    return this.edges.at(-1)?.cursor ?? null;
  }
}

export function encodeCursor<T>(payload: T): string {
  const json = JSON.stringify(payload);
  let cursor = issued.get(json);
  if (cursor === undefined) {
    const body = Buffer.from(json).toString('base64url');
    issued.set(json, (cursor = `${body}.${mac(keys.current, body).toString('base64url')}`));
  }
  return cursor;
}

/**
 * The payload of a cursor the gateway issued, as `validate` accepts it (null: not a payload of this
 * connection). Anything else is a BAD_USER_INPUT on `invalid.field` that says what to pass instead.
 */
export function decodeCursor<T>(
  text: string,
  validate: (payload: unknown) => T | null,
  invalid: { field: string; message: string },
): T {
  const body = text.length <= MAX_CURSOR_LENGTH ? verified(text) : null;
  const json = body !== null && BASE64URL.test(body) ? parseJson(Buffer.from(body, 'base64url').toString('utf8')) : null;
  const payload = json ? validate(json.value) : null;
  if (payload === null) throw badUserInput(invalid.message, invalid.field);
  return payload;
}

/** A short digest of the arguments a cursor pages (in a canonical form), so that it is used with those only. */
export function cursorFingerprint(args: unknown): string {
  return hash('sha256', JSON.stringify(args), 'base64url').slice(0, 16);
}

/** A payload's fields when it is a JSON object, else null. */
export function fieldsOf(payload: unknown): Record<string, unknown> | null {
  return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : null;
}

/** Whether a value read from a cursor can be an upstream's cursor of at most `maxLength` characters. */
export function isUpstreamCursor(value: unknown, maxLength: number): value is string {
  return typeof value === 'string' && value.length <= maxLength && UPSTREAM_CURSOR.test(value);
}

/** An integer from 0 to `max`: the offsets and skips cursors carry. */
export function isCount(value: unknown, max: number): value is number {
  return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= max;
}

function parseJson(text: string): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return null;
  }
}

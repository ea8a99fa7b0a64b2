import { badUserInput } from '../../errors.js';
import { sha256 } from '../../hashing.js';
import { countedCache } from '../../held.js';

/**
 * Opaque connection cursors: base64url JSON of a payload each connection types and checks itself
 * (its place in the list, and what binds the cursor to the arguments it was issued for), signed by the
 * services' `CursorSigning`. A cursor the gateway did not issue, or one edited after, is refused before
 * anything in it is read: no upstream cursor a caller wrote reaches an upstream.
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

/** What signs the cursors a connection issues and checks those it is given: `services.cursors` (stores/cursor-signer.ts). */
export interface CursorSigning {
  /** `body` followed by `.` and its MAC. */
  sign(body: string): string;
  /** The body of a cursor one of the keys signed; null otherwise. */
  verify(text: string): string | null;
  /**
   * What `make` builds for `owner` (edges whose cursors are signed with the current key), built once
   * while `owner` lives and the keys stay: a page a store hands out again is presented again for one
   * lookup, not one signature per edge. Built anew once the keys change. One kind of value per owner.
   */
  issued<T>(owner: object, make: () => T): T;
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
    private readonly signing: CursorSigning,
  ) {}
  get cursor(): string {
    return (this.#cursor ??= encodeCursor(this.signing, this.payload));
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

export function encodeCursor<T>(signing: CursorSigning, payload: T): string {
  return signing.sign(Buffer.from(JSON.stringify(payload)).toString('base64url'));
}

/**
 * The payload of a cursor the gateway issued, as `validate` accepts it (null: not a payload of this
 * connection). Anything else is a BAD_USER_INPUT on `invalid.field` that says what to pass instead.
 */
export function decodeCursor<T>(
  signing: CursorSigning,
  text: string,
  validate: (payload: unknown) => T | null,
  invalid: { field: string; message: string },
): T {
  const body = text.length <= MAX_CURSOR_LENGTH ? signing.verify(text) : null;
  const json = body !== null && BASE64URL.test(body) ? parseJson(Buffer.from(body, 'base64url').toString('utf8')) : null;
  const payload = json ? validate(json.value) : null;
  if (payload === null) throw badUserInput(invalid.message, invalid.field);
  return payload;
}

/** Arguments longer than this (in canonical JSON) are digested each time rather than kept. */
const FINGERPRINT_KEY_MAX = 512;
/** Digests by canonical arguments: a screen pages the same few argument sets on every request, each hashed once. */
const fingerprints = countedCache<string, { digest: string }>({ name: 'cursor_fingerprints', max: 1024, entryBytes: 2 * FINGERPRINT_KEY_MAX + 150 });

/** A short digest of the arguments a cursor pages (in a canonical form), so that it is used with those only. */
export function cursorFingerprint(args: unknown): string {
  const json = JSON.stringify(args);
  if (json.length > FINGERPRINT_KEY_MAX) return sha256(json).slice(0, 16);
  let held = fingerprints.get(json);
  if (!held) fingerprints.set(json, (held = { digest: sha256(json).slice(0, 16) }));
  return held.digest;
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

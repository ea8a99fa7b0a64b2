import type { FetchAPI } from 'graphql-yoga';
import { sha256 } from './hashing.js';

/**
 * Conditional requests (RFC 9110): an answer the cache headers call cacheable (`Cache-Control` other
 * than `no-store`) carries a strong `ETag`, a hash of its own bytes before encoding (nothing of the
 * caller in it), with the content coding appended for a compressed body (`"…-br"`, `"…-gzip"`): each
 * representation has its own strong validator. A GET or HEAD whose `If-None-Match` lists the tag of
 * the representation it would get (weak comparison: `W/` ignored; `*` matches) gets `304` with `ETag`, `Cache-Control`, `Last-Modified` and `Vary`. A tag of another query,
 * another caller or an older answer does not match: the answer is sent whole. Applied by the wire
 * encoding (`plugins/wire-encoding.ts`), which reads the answer's bytes once for both the tag and the
 * compression.
 */

/** What one answer's bytes become on the wire; kept beside a cached result so each is made once. */
export interface WireForms {
  etag?: string;
  /** Bytes before encoding. */
  size?: number;
  br?: Promise<Buffer>;
  gzip?: Promise<Buffer>;
}

/**
 * Where a result held in the response cache keeps its wire forms (strong ETag, compressed bytes). The
 * response cache attaches one holder per stored entry; every hit of that entry shares it, so a cached
 * answer is hashed and compressed once, not on every request.
 */
export const WIRE_FORMS = Symbol.for('gateway.wireForms');

/** Headers a `304` keeps from the answer it stands for. */
const NOT_MODIFIED_HEADERS = ['etag', 'cache-control', 'last-modified', 'vary', 'x-request-id'] as const;

/** Whether an answer with this `Cache-Control` is tagged: any that may be kept (not `no-store`). */
export function taggable(cacheControl: string | null): boolean {
  return cacheControl !== null && !/\bno-store\b/i.test(cacheControl);
}

/** A strong entity tag: 128 bits of the SHA-256 of the bytes (a text's UTF-8 bytes). */
export function strongTag(body: Buffer | string): string {
  return `"${sha256(body).slice(0, 22)}"`;
}

/** The tag of one representation: the identity body's tag, or it with the content coding appended inside the quotes. */
export function representationTag(identityTag: string, coding: string | null): string {
  return coding ? `${identityTag.slice(0, -1)}-${coding}"` : identityTag;
}

/** Whether `If-None-Match` names this tag (weak comparison, RFC 9110 §13.1.2), or is `*`. */
export function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return (header.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => tag.replace(/^W\//, '') === opaque);
}

/** The `304` for a GET or HEAD that already holds the answer tagged `etag` (set in `headers` first), else null. */
export function notModified(request: Request, headers: Headers, etag: string, fetchAPI: FetchAPI): Response | null {
  headers.set('etag', etag);
  if ((request.method !== 'GET' && request.method !== 'HEAD') || !matches(request.headers.get('if-none-match'), etag)) return null;
  const kept = new fetchAPI.Headers();
  for (const name of NOT_MODIFIED_HEADERS) {
    const value = headers.get(name);
    if (value !== null) kept.set(name, value);
  }
  return new fetchAPI.Response(null, { status: 304, headers: kept });
}

import { FreshnessBound } from './operation/index.js';

/** The directives of a request's `Cache-Control` header the gateway acts on. */
export interface RequestCacheControl {
  /** `max-age=N` in milliseconds (the smallest when several are sent); null when absent or malformed. */
  maxAgeMs: number | null;
  /** `no-cache`: revalidate every shared copy (as `max-age=0`). */
  noCache: boolean;
  /** `no-store`: the answer must not be kept (the response cache neither stores nor serves it). */
  noStore: boolean;
}

/** RFC 9111 §1.2.2: a larger delta-seconds is taken as 2^31. */
const MAX_DELTA_SECONDS = 2 ** 31;
/** Longer headers are not read at all (a real one is a few dozen bytes). */
const MAX_HEADER_LENGTH = 1024;

/**
 * Reads a request's `Cache-Control` (RFC 9111 §5.2.1). Unknown directives are ignored, and so is a
 * `max-age` whose value is not delta-seconds (digits, optionally quoted): a malformed header bounds
 * nothing and never fails the request. Hand-written rather than a package: the parsers on npm read
 * `max-age=5abc` as 5 and `max-age=1e3` as 1, which RFC 9111 calls invalid.
 */
export function readCacheControl(header: string | null): RequestCacheControl {
  const parsed: RequestCacheControl = { maxAgeMs: null, noCache: false, noStore: false };
  if (!header || header.length > MAX_HEADER_LENGTH) return parsed;
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    const name = (eq < 0 ? part : part.slice(0, eq)).trim().toLowerCase();
    const value = eq < 0 ? null : part.slice(eq + 1).trim().replace(/^"(.*)"$/, '$1');
    if (name === 'no-cache') parsed.noCache = true;
    else if (name === 'no-store') parsed.noStore = true;
    else if (name === 'max-age' && value !== null && /^\d{1,20}$/.test(value)) {
      const ms = Math.min(Number(value), MAX_DELTA_SECONDS) * 1000;
      parsed.maxAgeMs = parsed.maxAgeMs === null ? ms : Math.min(parsed.maxAgeMs, ms);
    }
  }
  return parsed;
}

/** The bound a request puts on the shared copies it is served: `no-cache` is `max-age=0`; none without either. */
export function freshnessBound(cacheControl: RequestCacheControl): FreshnessBound | undefined {
  if (cacheControl.noCache) return new FreshnessBound(0);
  return cacheControl.maxAgeMs === null ? undefined : new FreshnessBound(cacheControl.maxAgeMs);
}

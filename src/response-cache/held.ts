import type { ExecutionResult } from 'graphql';
import { WIRE_FORMS, type WireForms } from '../etag.js';
import { heldAnswer, resultBody, type Freshness, type ResponseCacheStore } from './store.js';

/** Marks an answer served from the cache (the symbol Yoga's response cache plugin marks with, kept for its readers). */
const SERVED_FROM_CACHE = Symbol.for('servedFromResponseCache');

/** How an entry read from the store may be answered. */
export interface Served {
  result: ExecutionResult;
  /** How old the entry is (`Age`). */
  ageMs: number;
  /** Past its TTL, within its grace: answered, and refreshed. */
  stale: boolean;
}

/**
 * A held entry as an answer: fresh, or stale within `graceMs` and the client's `max-age`; else null (a
 * miss). Every hit of one entry shares its bytes, ETag and compressed bytes (made on its first hit).
 */
export function served(held: ExecutionResult | null | undefined, graceMs: number, maxAgeMs: number | null): Served | null {
  if (!held) return null;
  const age = servedAge(heldAnswer(held), graceMs, maxAgeMs);
  if (!age) return null;
  const { ageMs, stale } = age;
  // Read from the entry's bytes when the pipeline writes it, not for a caller that only asks whether it is served.
  const result = { ...held, stringify: () => resultBody(held), [WIRE_FORMS]: wireFormsOf(held), [SERVED_FROM_CACHE]: true } as ExecutionResult;
  return { result, ageMs, stale };
}

/**
 * A held entry's age and whether it is stale, or null when it may not be answered: stale past its
 * grace, or older than the client's `max-age`. The pipeline's lookup and the hit path both ask this.
 */
export function servedAge(freshness: Freshness | undefined, graceMs: number, maxAgeMs: number | null): { ageMs: number; stale: boolean } | null {
  const ageMs = freshness ? Math.max(0, Date.now() - freshness.storedAt) : 0;
  const stale = freshness !== undefined && ageMs > freshness.ttlMs;
  if (stale && (ageMs > freshness.ttlMs + graceMs || (maxAgeMs !== null && ageMs > maxAgeMs))) return null;
  return { ageMs, stale };
}

/**
 * Stores executed results without errors (incremental results are not cached), once each: requests
 * that shared one execution (collapse-inflight.ts) each finish with a copy of one result. Answers
 * whether the result is one the cache keeps (stored now or before), so its answer gets the cache policy.
 */
export function createResultWriter(store: ResponseCacheStore) {
  const stored = new WeakSet<object>();
  return (key: string, result: unknown, ttlMs: number): boolean => {
    if (ttlMs <= 0 || typeof result !== 'object' || result === null || Symbol.asyncIterator in result) return false;
    const executed = result as ExecutionResult;
    if (executed.errors?.length) return false;
    if (executed.data && stored.has(executed.data)) return true;
    if (executed.data) stored.add(executed.data);
    // Yoga sends `extensions.http` as headers and leaves it out of the body: Last-Modified dates a stored answer.
    const extensions = ((executed as { extensions?: Record<string, unknown> }).extensions ??= {});
    const http = (extensions['http'] ??= {}) as { headers?: Record<string, string> };
    http.headers = { ...http.headers, 'Last-Modified': new Date().toUTCString() };
    // This miss is answered from the same string the store keeps (not enumerable: the result is not changed).
    Object.defineProperty(executed, 'stringify', { value: () => resultBody(executed), enumerable: false, configurable: true });
    void store.set(key, executed, ttlMs);
    return true;
  };
}

/** The wire forms held beside one stored result (not enumerable: never stored in Redis, never serialized). */
export function wireFormsOf(result: ExecutionResult): WireForms {
  const held = result as ExecutionResult & { [WIRE_FORMS]?: WireForms };
  if (!held[WIRE_FORMS]) Object.defineProperty(held, WIRE_FORMS, { value: {}, enumerable: false, configurable: true });
  return held[WIRE_FORMS]!;
}

import type { Freshness, FreshnessSource } from '../models/index.js';
import type { FreshnessBound } from '../operation/index.js';

/**
 * How the shared stores (the market index, the asset cache) decide whether a copy they hold may serve
 * an operation whose client bounded its age (`Cache-Control: max-age=N`, `no-cache`), and how they
 * report the freshness of what they served: one rule for both.
 */

/**
 * Whether a copy fetched at `fetchedAt` (on the clock `now`) may serve the operation whose client sent
 * `bound`: always without a bound; with one, when the bound accepts it, or when the copy is younger
 * than `minAgeMs` (a store whose re-read serves everyone bounds how often clients can make it).
 */
export function accepted(bound: FreshnessBound | undefined, fetchedAt: number, now: () => number, minAgeMs = 0): boolean {
  return !bound || bound.accepts(fetchedAt, now) || (minAgeMs > 0 && now() - fetchedAt < minAgeMs);
}

/** The freshness of an answer from a copy fetched at `fetchedAt`: stale exactly when its source is `STALE`. */
export function freshnessAt(source: FreshnessSource, fetchedAt: number): Freshness & { asOf: Date } {
  return { source, asOf: new Date(fetchedAt), stale: source === 'STALE' };
}

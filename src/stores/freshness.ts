import type { FreshnessBound } from '../operation/index.js';

/**
 * The one rule of the shared stores (the market index, the asset cache) for a client that bounded the
 * age of what it is served (`Cache-Control: max-age=N`, `no-cache`). Whether a copy fetched at `fetchedAt` (on the clock `now`) may serve the operation whose client sent
 * `bound`: always without a bound; with one, when the bound accepts it, or when the copy is younger
 * than `minAgeMs` (a store whose re-read serves everyone bounds how often clients can make it).
 */
export function accepted(bound: FreshnessBound | undefined, fetchedAt: number, now: () => number, minAgeMs = 0): boolean {
  return !bound || bound.accepts(fetchedAt, now) || (minAgeMs > 0 && now() - fetchedAt < minAgeMs);
}

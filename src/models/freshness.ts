/**
 * Where a served value came from and how old it is: one shape for every shared copy the gateway serves
 * (the market index, the asset cache's metadata and prices, embedded position records).
 *
 * - `ORIGIN`: read from its upstream for this request (or joined a read that this request waited for);
 * - `CACHE`: a shared copy within its time-to-live (and within the client's `Cache-Control` bound);
 * - `STALE`: a shared copy past its time-to-live or the client's bound, served because the upstream
 *   failed or while it is refreshed in the background;
 * - `FALLBACK`: not from the service that owns the value: the second assets service, or the token
 *   records of market listings and positions.
 */
export type FreshnessSource = 'ORIGIN' | 'CACHE' | 'STALE' | 'FALLBACK';

export interface Freshness {
  source: FreshnessSource;
  /** When the value was read from its upstream; null when unknown (a token record carried by a market). */
  asOf: Date | null;
  /** Older than its time-to-live or the client's bound: `source` is then `STALE`. */
  stale: boolean;
}

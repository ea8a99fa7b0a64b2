/**
 * Where a served value came from and how old it is: the one vocabulary of every shared copy the gateway
 * serves (the market index, the asset cache's metadata and prices, embedded position records, live
 * prices), from the stores through the operation's ledger to the schema.
 *
 * - `ORIGIN`: read from its upstream for this request (or joined a read that this request waited for);
 * - `CACHE`: a shared copy within its time-to-live (and within the client's `Cache-Control` bound);
 * - `STALE`: a shared copy past its time-to-live or the client's bound, served because the upstream
 *   failed or while it is refreshed in the background;
 * - `FALLBACK`: not from the service that owns the value: the second assets service, or the token
 *   records of market listings and positions.
 */
export const FRESHNESS_SOURCES = ['ORIGIN', 'CACHE', 'STALE', 'FALLBACK'] as const;
export type FreshnessSource = (typeof FRESHNESS_SOURCES)[number];

/** A source that served a copy rather than this operation's own read: what the upstream ledger counts. */
export type CopySource = Exclude<FreshnessSource, 'ORIGIN'>;

export interface Freshness {
  source: FreshnessSource;
  /** When the value was read from its upstream; null when unknown (a token record carried by a market). */
  asOf: Date | null;
  /** Older than its time-to-live or the client's bound: `source` is then `STALE`. */
  stale: boolean;
}

/** The freshness of an answer read at `fetchedAt` (epoch ms; null when unknown): stale exactly when its source is `STALE`. */
export function freshnessAt(source: FreshnessSource, fetchedAt: number): Freshness & { asOf: Date };
export function freshnessAt(source: FreshnessSource, fetchedAt: number | null): Freshness;
export function freshnessAt(source: FreshnessSource, fetchedAt: number | null): Freshness {
  return { source, asOf: fetchedAt === null ? null : new Date(fetchedAt), stale: source === 'STALE' };
}

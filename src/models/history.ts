import type { Resolution } from './common.js';

/** The history series the upstreams offer: their resolutions, how many points one call answers, when positions start. */

/** Length of one bucket. */
const RESOLUTION_MS: Record<Resolution, number> = {
  ONE_MINUTE: 60_000,
  FIVE_MINUTES: 5 * 60_000,
  ONE_HOUR: 60 * 60_000,
  ONE_DAY: 24 * 60 * 60_000,
};

/** The resolutions each history endpoint offers (docs/upstream.md). */
export const PRICE_HISTORY_RESOLUTIONS = ['FIVE_MINUTES', 'ONE_HOUR', 'ONE_DAY'] as const satisfies readonly Resolution[];
export const MARKET_HISTORY_RESOLUTIONS = ['ONE_HOUR', 'ONE_DAY'] as const satisfies readonly Resolution[];
export const POSITION_HISTORY_RESOLUTIONS = ['ONE_MINUTE', 'FIVE_MINUTES', 'ONE_HOUR', 'ONE_DAY'] as const satisfies readonly Resolution[];

/** Most points one price history call answers, and one position history call per position. */
export const MAX_HISTORY_POINTS = 2_000;
/** Position snapshots exist from this instant; the positions service refuses an earlier start. */
export const POSITION_HISTORY_START = new Date('2025-10-08T00:00:00.000Z');

export function isOffered<R extends Resolution>(accepted: readonly R[], resolution: Resolution): resolution is R {
  return (accepted as readonly Resolution[]).includes(resolution);
}

/** The length of one bucket of a resolution, in milliseconds: a series' points sit on its multiples. */
export function resolutionMs(resolution: Resolution): number {
  return RESOLUTION_MS[resolution];
}

/**
 * How many timestamps a series holds from `fromMs` to `toMs` at a resolution, as the upstreams count
 * them: a series ends now at the latest, and its points sit on multiples of the bucket length.
 */
export function pointCount(fromMs: number, toMs: number, resolution: Resolution, now = Date.now()): number {
  const step = RESOLUTION_MS[resolution];
  return Math.floor(Math.min(toMs, now) / step) - Math.ceil(fromMs / step) + 1;
}

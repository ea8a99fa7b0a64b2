import { FRESHNESS_SOURCES, type AssetView, type PriceTick } from '../../models/index.js';

/** The pub/sub channel the replica polling an asset publishes its ticks on. */
export const TICKS_TOPIC = 'gateway:live-prices';

/** The tick of an asset lookup's answer; null for an unknown asset. */
export function tickOf(asset: AssetView | null): PriceTick | null {
  if (!asset) return null;
  const { freshness } = asset;
  return {
    assetId: asset.assetId,
    usd: asset.price?.usd ?? null,
    change24h: asset.price?.change24h ?? null,
    asOf: freshness.asOf ? freshness.asOf.getTime() : null,
    source: freshness.source,
    stale: freshness.stale || asset.priceUnavailable === true,
  };
}

/** The last known tick, flagged stale: what subscribers get when a read fails. */
export function staleTick(last: PriceTick): PriceTick {
  return last.stale ? last : { ...last, stale: true, source: 'STALE' };
}

/** Whether `next` tells a subscriber anything `previous` did not (a new read of the same price does not). */
export function changed(previous: PriceTick | null, next: PriceTick): boolean {
  return !previous || previous.usd !== next.usd || previous.change24h !== next.change24h || previous.stale !== next.stale;
}

/** A published batch of ticks, checked field by field: what arrives from Redis is not trusted blindly. */
export function parseTicks(message: unknown): PriceTick[] {
  const ticks = (message as { ticks?: unknown } | null)?.ticks;
  if (!Array.isArray(ticks)) return [];
  return ticks.filter(isTick);
}

const SOURCES = new Set<unknown>(FRESHNESS_SOURCES);
const numberOrNull = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v));

function isTick(v: unknown): v is PriceTick {
  if (typeof v !== 'object' || v === null) return false;
  const t = v as Record<string, unknown>;
  return typeof t['assetId'] === 'string' && numberOrNull(t['usd']) && numberOrNull(t['change24h']) && numberOrNull(t['asOf']) && SOURCES.has(t['source']) && typeof t['stale'] === 'boolean';
}

/** Prices as pure functions of (seed, asset id, time). */
import { noise, seriesKey } from './series.js';
import type { AssetRecord } from './asset-types.js';

export type PriceFn = (assetId: string, t: number) => number | undefined;

/** `priceAt(id, t)`: the asset's USD price at epoch ms `t`, or undefined for an unknown id. */
export function makePriceFn(seed: number, assets: ReadonlyMap<string, AssetRecord>): PriceFn {
  const keys = new Map<string, number>();
  const keyOf = (id: string): number => {
    let k = keys.get(id);
    if (k === undefined) {
      k = seriesKey(seed, id, 'price');
      keys.set(id, k);
    }
    return k;
  };
  const priceAt = (assetId: string, t: number, depth = 0): number | undefined => {
    const rec = assets.get(assetId);
    if (!rec) return undefined;
    const m = rec.model;
    if (m.fixed !== undefined && (m.fixedFromMs === undefined || t >= m.fixedFromMs)) return m.fixed;
    if (m.complementOf && depth < 4) {
      const other = priceAt(m.complementOf, t, depth + 1);
      return other === undefined ? undefined : 1 - other;
    }
    let base = m.base;
    if (m.peg && depth < 4) base = (priceAt(m.peg.assetId, t, depth + 1) ?? 0) * m.peg.ratio;
    let p = base * Math.exp(m.vol * noise(keyOf(assetId), t));
    if (m.min !== undefined && p < m.min) p = m.min;
    if (m.max !== undefined && p > m.max) p = m.max;
    return p;
  };
  return (assetId, t) => priceAt(assetId, t);
}

/** Positions in the simulated prediction markets, with their trade histories. */
import { averageCostBasis } from './costBasis.js';
import { Rng, round } from '../prng.js';
import { DATA_START_MS, DAY, HOUR, WORLD_REFERENCE_MS } from './series.js';
import { assetIdOf, type PositionsKit } from './position-kit.js';
import type { MarketStatus } from './market-types.js';
import type { PredictionPosition, PredictionTrade } from './position-types.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The maker of prediction positions: draws one (in a market of `status`, when given), records it in `kit.positions` and returns it. */
export function predictionPositionMaker(kit: PositionsKit) {
  const { rng, priceAt, predictionMarkets, withStatus, positions, newId } = kit;

  return (owner: string, status?: MarketStatus): PredictionPosition => {
    const pool = status ? predictionMarkets.filter((m) => m.status === status) : predictionMarkets;
    const m = rng.pick(pool.length > 0 ? pool : predictionMarkets);
    const side: 'yes' | 'no' = rng.chance(0.6) ? 'yes' : 'no';
    const token = (side === 'yes' ? m.yesToken : m.noToken)!;
    const assetId = assetIdOf(token);
    const from = Math.max((m.openTime ?? 0) * 1000, DATA_START_MS) + HOUR;
    const to = Math.min((m.closeTime ?? 0) * 1000, WORLD_REFERENCE_MS) - HOUR;
    const trades = makeTrades(rng, from, Math.max(from + DAY, to), (t) => priceAt(assetId, t));
    const cb = averageCostBasis(trades);
    const p: PredictionPosition = {
      id: newId('prediction'),
      type: 'prediction',
      marketId: m.id,
      ownerAddress: owner,
      websiteUrl: m.websiteUrl,
      amount: round(cb.quantity, 6),
      side,
      token,
      costBasisAvg: round(cb.costBasisAvg, 6),
      costBasisTotal: round(cb.costBasisTotal, 6),
      market: withStatus(m),
    };
    positions.push({ position: p, openedAtMs: Date.parse(trades[0]!.timestamp), valuation: { kind: 'prediction', assetId, trades } });
    return p;
  };
}


/**
 * A plausible trade list between `from` and `to`: a first buy, then buys, partial sells, transfers
 * out and sometimes a full exit followed by a fresh buy. Always ends holding shares.
 */
function makeTrades(rng: Rng, from: number, to: number, priceAt: (t: number) => number): PredictionTrade[] {
  const n = rng.int(1, 7);
  const times: number[] = [];
  for (let i = 0; i < n; i++) times.push(from + Math.floor(rng.next() * (to - from)));
  times.sort((a, b) => a - b);
  const trades: PredictionTrade[] = [];
  let quantity = 0;
  const px = (t: number): number => round(Math.min(0.99, Math.max(0.01, priceAt(t) + rng.float(-0.01, 0.01))), 2);
  const snap = (t: number): number => Math.floor(t / 1000) * 1000;
  for (const t of times) {
    const timestamp = iso(snap(t));
    if (quantity === 0) {
      const q = rng.int(10, 2_000);
      trades.push({ timestamp, kind: 'buy', quantity: q, price: px(t) });
      quantity += q;
      continue;
    }
    const action = rng.weighted<'buy' | 'sell' | 'exit' | 'transfer_out'>([
      ['buy', 4],
      ['sell', 2.5],
      ['exit', 1],
      ['transfer_out', 1],
    ]);
    if (action === 'buy') {
      const q = rng.int(10, 1_500);
      trades.push({ timestamp, kind: 'buy', quantity: q, price: px(t) });
      quantity += q;
    } else if (action === 'exit') {
      trades.push({ timestamp, kind: 'sell', quantity, price: px(t) });
      quantity = 0;
    } else {
      const q = Math.max(1, Math.floor(quantity * rng.float(0.1, 0.6)));
      trades.push({ timestamp, kind: action === 'sell' ? 'sell' : 'transfer_out', quantity: q, price: action === 'sell' ? px(t) : 0 });
      quantity -= q;
    }
  }
  if (quantity === 0) {
    const t = Math.min(to, (times[times.length - 1] ?? from) + HOUR);
    trades.push({ timestamp: iso(snap(t)), kind: 'buy', quantity: rng.int(10, 1_000), price: px(t) });
  }
  return trades;
}

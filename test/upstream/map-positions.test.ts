import { describe, expect, it } from 'vitest';
import type { LendingPosition, PredictionPosition, RewardPosition } from '../../src/models/position.js';
import { walletTotalValueUsd, walletValueHistory, type Position } from '../../src/models/position.js';
import { mapPositionHistory, mapPositions } from '../../src/upstream/markets/map-position.js';
import { fixture } from './helpers.js';

describe('positions mapper', () => {
  const positions = mapPositions(fixture('positions.json').positions);
  const byId = <T extends Position>(id: string) => positions.find((p) => p.positionId === id) as T;

  it('drops an unknown position type', () => {
    expect(positions.map((p) => p.positionId)).toEqual([
      'pos-lend-deposit',
      'pos-lend-borrow',
      'pos-yield',
      'pos-loop',
      'pos-perp',
      'pos-reward',
      'pos-prediction',
    ]);
  });

  it('lending: ltv as a fraction (upstream 0–100), side, rewards with asset ids, embedded market with the position status', () => {
    const p = byId<LendingPosition>('pos-lend-deposit');
    expect(p).toMatchObject({
      type: 'LENDING',
      side: 'DEPOSIT',
      ltv: 0.425,
      liquidationPrice: 88.2,
      amount: 10,
      amountUsd: 1500,
      bundleId: 'bundle-1',
      ownerAddress: 'Wallet1111111111111111111111111111111111111',
      actions: { withdraw: 'https://blink.example.com/lend/withdraw' },
      rewards: [{ assetId: 'solana:KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', tokenAddress: 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', amount: 12.5, amountUsd: 1.1 }],
    });
    expect(p.market).toMatchObject({ type: 'LENDING', status: 'OPEN', marketName: 'Main Market' });
    expect(byId<LendingPosition>('pos-lend-borrow')).toMatchObject({ side: 'BORROW', ltv: 0.2, liquidationPrice: null, rewards: [] });
  });

  it('yield: a missing amountUsd is null; the market status comes from the position', () => {
    const p = byId('pos-yield');
    expect(p).toMatchObject({ type: 'YIELD', amountUsd: null, websiteUrl: 'https://kamino.example.com/earn', bundleId: null });
    expect(p.market?.status).toBe('CLOSED');
  });

  it('loop and perpetual', () => {
    expect(byId('pos-loop')).toMatchObject({
      type: 'LOOP',
      amountTokenA: 20,
      amountTokenB: 15,
      amountTokenAUsd: 3400,
      amountTokenBUsd: 2600,
      leverage: 4.2,
      ltv: 0.76,
      market: { type: 'LOOP', status: 'OPEN' },
    });
    expect(byId('pos-perp')).toMatchObject({ type: 'PERPETUAL', side: 'SHORT', leverage: 3, entryPrice: 160.5, markPrice: 155 });
  });

  it('reward: token and the parent position id', () => {
    const p = byId<RewardPosition>('pos-reward');
    expect(p).toMatchObject({ type: 'REWARD', parentPositionId: 'pos-lend-deposit', parentPositionType: 'LENDING', market: null });
    expect(p.token).toEqual({ assetId: 'solana:KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', address: 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', symbol: 'KMNO', decimals: 6, icon: null, name: 'Kamino' });
  });

  it('prediction: side, cost basis, pnl, status', () => {
    const p = byId<PredictionPosition>('pos-prediction');
    expect(p).toMatchObject({
      type: 'PREDICTION',
      side: 'YES',
      costBasis: { averageEntryPrice: 0.55, totalCapitalCommitted: 55 },
      pnl: { total: 7, realized: 0, unrealized: 7, unrealizedPct: 0.127 },
    });
    expect(p.market).toMatchObject({ status: 'OPEN', closeTime: '2025-12-12T00:00:00.000Z' });
  });

  it('walletTotalValueUsd: sums amountUsd, subtracts borrows, a missing amount counts 0', () => {
    // 1500 - 300 + 0 (yield, missing) + 800 + 310 + 12 + 62
    expect(walletTotalValueUsd(positions)).toBe(2384);
    expect(walletTotalValueUsd([])).toBe(0);
  });

  it('position history and the wallet value per timestamp (null counts 0; instants, not strings, meet)', () => {
    const history = mapPositionHistory(fixture('position-history.json'));
    expect(history[0]).toMatchObject({ positionId: 'pos-lend-deposit', type: 'LENDING', points: [{ amountUsd: 1400 }, { amountUsd: 1450 }] });
    expect(walletValueHistory(history)).toEqual([
      { timestamp: '2025-10-08T00:00:00.000Z', valueUsd: 1650 },
      { timestamp: '2025-10-08T01:00:00.000Z', valueUsd: 1450 },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { LendingMarket, LoopMarket, PredictionMarket, YieldMarket } from '../../src/models/market.js';
import { marketTokens } from '../../src/models/market.js';
import { mapMarket, mapMarketHistory, mapMarkets } from '../../src/upstream/markets/map-market.js';
import { fixture } from './helpers.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('markets mapper', () => {
  const markets = mapMarkets(fixture('markets.json').markets);
  const byId = (id: string) => markets.find((m) => m.marketId === id);

  it('drops an unknown market type and a record missing a required field, never throws', () => {
    expect(markets.map((m) => m.marketId)).not.toContain('someone.options.SOL-CALL');
    expect(markets.map((m) => m.marketId)).not.toContain('marginfi.lend.broken');
    expect(markets).toHaveLength(6);
    expect(mapMarket(null)).toBeNull();
    expect(mapMarket({ type: 'lending' } as never)).toBeNull();
  });

  it('yield: token reference, APYs, averages, incentives, actions as URLs, no status', () => {
    const m = byId('kamino.earn.USDCvault') as YieldMarket;
    expect(m).toMatchObject({
      type: 'YIELD',
      productName: 'Kamino Earn',
      marketName: null,
      provider: { providerId: 'kamino', name: 'Kamino', icon: 'https://cdn.example.com/kamino.png' },
      websiteUrl: 'https://kamino.example.com/earn',
      status: null,
      token: { assetId: `solana:${USDC}`, address: USDC, symbol: 'USDC', decimals: 6, icon: 'https://cdn.example.com/usdc.png', name: 'USD Coin' },
      depositApy: 0.0612,
      baseDepositApy: 0.0487,
      apyAverages: { deposit30d: 0.051, deposit90d: null, deposit180d: null, borrow30d: null, borrow90d: null, borrow180d: null },
      totalDeposit: 1250000,
      totalDepositUsd: 1249800.5,
      actions: { deposit: 'https://blink.example.com/kamino/deposit', withdraw: 'https://blink.example.com/kamino/withdraw' },
    });
    expect(m.rewards).toEqual([
      {
        side: 'DEPOSIT',
        apy: 0.0125,
        token: { assetId: 'solana:KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', address: 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', symbol: 'KMNO', decimals: 6, icon: null, name: null },
      },
    ]);
    expect(m).not.toHaveProperty('someNewField');
  });

  it('lending: marketName from additionalData, borrow token, averages, limits, incentives of known sides only', () => {
    const m = byId('kamino.lend.D6q6wuQSrifJKZYpR1M8R4YawnLDtDsMmWM1NbBmgJ59') as LendingMarket;
    expect(m.marketName).toBe('Main Market');
    expect(m.additionalData).toEqual({ marketName: 'Main Market', reserve: 'D6q6' });
    expect(m.borrowToken?.assetId).toBe(`solana:${USDC}`);
    expect(m.apyAverages).toEqual({ deposit30d: 0.049, deposit90d: 0.047, deposit180d: 0.045, borrow30d: 0.069, borrow90d: 0.068, borrow180d: 0.066 });
    expect(m.limits).toEqual({ maxDeposit: 1000000, maxBorrow: 500000, maxLtv: 0.75, liquidationLtv: 0.85, liquidationPenalty: 0.05 });
    expect(m.rewards.map((r) => r.side)).toEqual(['BORROW']);
    expect(m.actions).toEqual({
      deposit: 'https://blink.example.com/lend/deposit',
      borrow: 'https://blink.example.com/lend/borrow',
      repayWithCollateral: 'https://blink.example.com/lend/repay-collateral',
    });
    expect(marketTokens(m).map((t) => t.symbol)).toEqual(['SOL', 'USDC', 'KMNO']);
  });

  it("loop: depositApy30d.. become the deposit averages; limits hold the LTVs", () => {
    const m = byId('kamino.multiply.JitoSOL-SOL') as LoopMarket;
    expect(m.marketName).toBe('JitoSOL/SOL');
    expect(m.apyAverages).toEqual({ deposit30d: 0.105, deposit90d: 0.098, deposit180d: 0.09, borrow30d: null, borrow90d: null, borrow180d: null });
    expect(m.limits).toMatchObject({ maxLtv: 0.9, liquidationLtv: 0.93, maxDeposit: null });
    expect(m.maxLeverage).toBe(10);
  });

  it('perpetual and reward', () => {
    expect(byId('drift.perp.SOL-PERP')).toMatchObject({
      type: 'PERPETUAL',
      liquidity: { longUsd: 5400000, shortUsd: 4900000 },
      maxLeverage: 50,
      actions: { openPosition: 'https://blink.example.com/drift/open' },
    });
    expect(byId('jupiter.reward.JUP-ASR')).toMatchObject({ type: 'REWARD', rewardApy: 0.08, endsAt: '2025-12-31T00:00:00.000Z' });
  });

  it('prediction: its own status, epoch seconds as ISO strings, yes/no tokens', () => {
    const m = byId('dflow.prediction.FED-DEC') as PredictionMarket;
    expect(m).toMatchObject({
      type: 'PREDICTION',
      status: 'OPEN',
      title: 'Will the Fed cut rates in December?',
      subtitle: 'FOMC meeting',
      result: null,
      yesBid: 0.61,
      noAsk: 0.39,
      openTime: '2025-10-08T00:00:00.000Z',
      closeTime: '2025-12-12T00:00:00.000Z',
      expirationTime: null,
    });
    expect(m.yesToken?.assetId).toBe('solana:YesTok1111111111111111111111111111111111111');
    expect(marketTokens(m)).toHaveLength(2);
  });

  it('market history', () => {
    expect(mapMarketHistory(fixture('market-history.json'))).toEqual([
      {
        marketId: 'kamino.lend.D6q6wuQSrifJKZYpR1M8R4YawnLDtDsMmWM1NbBmgJ59',
        points: [
          { timestamp: '2025-10-08T00:00:00.000Z', depositApy: 0.05, borrowApy: 0.07, totalDeposit: 800000, totalDepositUsd: 120000000 },
          { timestamp: '2025-10-09T00:00:00.000Z', depositApy: null, borrowApy: null, totalDeposit: null, totalDepositUsd: null },
        ],
      },
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { LendingMarket, LoopMarket, PredictionMarket, YieldMarket } from '../../src/models/market.js';
import { marketTokens } from '../../src/models/market.js';
import type { LendingPosition, PredictionPosition, RewardPosition } from '../../src/models/position.js';
import { walletTotalValueUsd, walletValueHistory, type Position } from '../../src/models/position.js';
import { mapApps, mapChannelListing, mapInbox, toSendBody } from '../../src/upstream/alerts/map.js';
import { assetIdForSolana, isValidAssetId } from '../../src/models/asset-ids.js';
import { mapAsset, mapSearch } from '../../src/upstream/assets/map.js';
import { mapMarket, mapMarketHistory, mapMarkets } from '../../src/upstream/markets/map-market.js';
import { mapPositionHistory, mapPositions } from '../../src/upstream/markets/map-position.js';
import { fixture } from './helpers.js';

const SOL = 'So11111111111111111111111111111111111111112';
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

describe('alerts mapper', () => {
  const channels = mapChannelListing(fixture('channels.json'));

  it('one channel per listing key, the key kept as sent and the type as the record says', () => {
    expect(channels.map((c) => [c.key, c.type, c.rawType])).toEqual([
      ['EMAIL', 'EMAIL', 'EMAIL'],
      ['TELEGRAM', 'EMAIL', 'EMAIL'],
      ['DISCORD', 'UNKNOWN', 'DISCORD'],
    ]);
  });

  it('subscribed apps: mapped, missing or null = []', () => {
    expect(channels[0]?.subscribedApps).toEqual([
      { appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d', name: 'Kamino Alerts', icon: 'https://cdn.example.com/kamino.png' },
      { appId: '6f1c2d3e-2222-4a5b-8c9d-0e1f2a3b4c5d', name: 'Drift Alerts', icon: null },
    ]);
    expect(channels[1]?.subscribedApps).toEqual([]);
    expect(channels[2]?.subscribedApps).toEqual([]);
    expect(channels[1]).toMatchObject({ id: 'ch-tg-1', value: '@ada', verified: false, subscribed: false });
  });

  it('apps with topics', () => {
    expect(mapApps(fixture('apps.json'))).toEqual([
      {
        appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d',
        name: 'Kamino Alerts',
        description: 'Liquidation warnings',
        icon: 'https://cdn.example.com/kamino.png',
        subscribed: true,
        topics: [
          { topicId: 't-1', name: 'Liquidations', slug: 'liquidations', description: null, subscribed: true },
          { topicId: 't-2', name: 'Rates', slug: 'rates', description: 'Rate changes', subscribed: false },
        ],
      },
      { appId: '6f1c2d3e-2222-4a5b-8c9d-0e1f2a3b4c5d', name: 'Drift Alerts', description: null, icon: null, subscribed: false, topics: [] },
    ]);
  });

  it('inbox page: notifications, actions, data, topic, app, read (from the record or the last-read mark)', () => {
    const page = mapInbox(fixture('history.json'));
    expect(page).toMatchObject({ unreadCount: 2, lastReadAt: '2025-10-09T00:00:00.000Z', limit: 3, cursor: 'c-2' });
    const [first, second, third] = page.notifications;
    expect(first).toEqual({
      notificationId: 'alert-3',
      timestamp: '2025-10-10T12:00:00.000Z',
      title: 'Health factor low',
      body: 'Your SOL loan is close to liquidation.',
      image: 'https://cdn.example.com/warn.png',
      actions: [
        { label: 'Repay', url: 'https://app.example.com/repay', context: { type: 'position', apiUrl: 'https://api.example.com/positions/pos-lend-borrow', action: 'repay' } },
        { label: 'Open', url: 'https://app.example.com/', context: null },
      ],
      data: { positionId: 'pos-lend-borrow', severity: 'high' },
      topic: { topicId: 't-1', name: 'Liquidations', slug: 'liquidations' },
      app: { appId: '6f1c2d3e-1111-4a5b-8c9d-0e1f2a3b4c5d', name: 'Kamino Alerts', icon: 'https://cdn.example.com/kamino.png' },
      read: false,
    });
    expect(second).toMatchObject({ read: false, image: null, actions: [], data: null, topic: null });
    expect(third).toMatchObject({ read: true, app: null });
  });

  it('send input → upstream body', () => {
    expect(
      toSendBody({ channels: ['EMAIL'], title: 't', body: 'b', topicId: 'topic-1', data: { k: 'v' }, recipient: { walletAddress: 'W1' } }),
    ).toEqual({ channels: ['EMAIL'], message: { title: 't', body: 'b' }, topicId: 'topic-1', data: { k: 'v' }, recipient: { type: 'subscriber', walletAddress: 'W1' } });
  });
});

describe('assets mapper and ids', () => {
  it('maps an asset with its price', () => {
    expect(mapAsset(fixture('asset.json'))).toEqual({
      assetId: `solana:${SOL}`,
      chain: 'solana',
      address: SOL,
      type: 'TOKEN',
      rawType: 'token',
      name: 'Wrapped SOL',
      symbol: 'SOL',
      decimals: 9,
      imageUrl: 'https://cdn.example.com/sol.png',
      tags: ['l1', 'verified'],
      description: "Solana's native token, wrapped.",
      websiteUrl: 'https://solana.com',
      price: { usd: 152.31, change24h: -0.021, updatedAt: '2025-10-10T12:00:00.000Z' },
      marketCapUsd: 82000000000,
    });
  });

  it('search results: unknown asset types become UNKNOWN with the raw type kept', () => {
    const page = mapSearch(fixture('search.json'));
    expect(page.results.map((r) => [r.assetId, r.type, r.rawType, r.address])).toEqual([
      ['stock:AAPL', 'STOCK', 'stock', null],
      ['base:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', 'TOKEN', 'token', '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
      ['ondo:USDY', 'UNKNOWN', 'yield-note', null],
    ]);
  });

  it('isValidAssetId follows the contract pattern exactly', () => {
    const valid = [
      `solana:${SOL}`,
      'ethereum:0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      'bitcoin:native',
      'stock:AAPL',
      'base-sepolia:a.b',
      '-:x',
      'a:_',
      `${'a'.repeat(32)}:${'b'.repeat(128)}`,
    ];
    const invalid = [
      '',
      'solana',
      ':abc',
      'solana:',
      'Solana:abc',
      'sol_ana:abc',
      '_:x',
      `${'a'.repeat(33)}:b`,
      `a:${'b'.repeat(129)}`,
      'solana:.abc',
      'solana:a..b',
      'solana:a/b',
      'solana:a b',
      'solana:a:b',
      'solana:a%2F',
      'solana:ä',
    ];
    for (const id of valid) expect(isValidAssetId(id), id).toBe(true);
    for (const id of invalid) expect(isValidAssetId(id), id).toBe(false);
    expect(isValidAssetId(42)).toBe(false);
    expect(assetIdForSolana(SOL)).toBe(`solana:${SOL}`);
  });
});

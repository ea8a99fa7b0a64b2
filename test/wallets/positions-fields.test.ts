import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { WalletPositions, positionCalls, address, raw, useRichWalletPositions } from '../helpers/wallet-positions.js';

describe('Wallet.positions', () => {
  const gw = useTestGateway();
  useRichWalletPositions(gw);

  it("serves every kind's own fields as the upstream sent them, the lending LTV as a fraction", async () => {
    const res: any = await gw.execute(WalletPositions, { address, first: 100 });
    expect(res.errors).toBeUndefined();
    const nodes = new Map<string, any>(res.data.wallet.positions.edges.map((e: any) => [e.node.positionId, e.node]));
    expect(nodes.size).toBe(raw.length);
    let lendingWithLtv = 0;
    for (const p of raw) {
      const node = nodes.get(p.id);
      expect(node.amount).toBe(p.amount);
      expect(node.amountUsd).toBe(p.amountUsd ?? null);
      expect(node.websiteUrl).toBe(p.websiteUrl ?? null);
      expect(node.rewards.map((r: any) => [r.amount, r.amountUsd, r.token?.assetId])).toEqual(
        (p.rewards ?? []).map((r: any) => [r.amount, r.amountUsd ?? null, `solana:${r.tokenAddress}`]),
      );
      if (p.market) {
        expect(node.market.marketId).toBe(p.marketId);
        expect(node.market.status).toBe(p.market.status.toUpperCase());
      }
      switch (p.type) {
        case 'lending':
          expect(node.side).toBe(p.side.toUpperCase());
          expect(node.ltv).toBeCloseTo(p.ltv / 100, 12);
          expect(node.liquidationPrice).toBe(p.liquidationPrice ?? null);
          if (p.ltv > 1) lendingWithLtv += 1;
          break;
        case 'loop':
          expect([node.leverage, node.amountTokenA, node.amountTokenB]).toEqual([p.leverage, p.amountTokenA, p.amountTokenB]);
          break;
        case 'reward':
          expect(node.parentPositionId).toBe(p.position?.id ?? null);
          expect(node.token.assetId).toBe(`solana:${p.token.address}`);
          break;
        case 'prediction':
          expect(node.side).toBe(p.side.toUpperCase());
          expect(node.costBasis).toEqual({ averageEntryPrice: p.costBasisAvg, totalCapitalCommitted: p.costBasisTotal });
          expect(node.pnl).toEqual({ total: p.pnl.total, realized: p.pnl.realized, unrealized: p.pnl.unrealized });
          break;
      }
    }
    // Without an LTV above 1 % the division by 100 would go unnoticed.
    expect(lendingWithLtv).toBeGreaterThan(0);
  });

  it('serves perpetual, loop, prediction, lending and reward details beyond the WalletPositions operation', async () => {
    // Several small requests: one query selecting everything would exceed the cost limit.
    const selections = [
      '... on PerpetualPosition { side leverage entryPrice markPrice }',
      '... on LoopPosition { amountTokenAUsd amountTokenBUsd ltv liquidationPrice leverage }',
      '... on PredictionPosition { token { assetId } pnl { unrealizedPct } }',
      '... on LendingPosition { actions { deposit withdraw borrow repay } }',
      '... on RewardPosition { parentPosition { positionId } }',
    ];
    const nodes = new Map<string, any>();
    for (const selection of selections) {
      const res: any = await gw.execute(
        `query($address: String!) {
          wallet(address: $address) { positions(first: 100) { edges { node { positionId owner { address } ${selection} } } } }
        }`,
        { address },
      );
      expect(res.errors).toBeUndefined();
      for (const { node } of res.data.wallet.positions.edges) nodes.set(node.positionId, { ...nodes.get(node.positionId), ...node });
    }
    const ids = new Set(raw.map((p) => p.id));
    for (const p of raw) {
      const node = nodes.get(p.id);
      expect(node.owner.address).toBe(address);
      if (p.type === 'perpetual') {
        expect(node).toMatchObject({ side: p.side.toUpperCase(), leverage: p.leverage, entryPrice: p.entryPrice, markPrice: p.markPrice });
      }
      if (p.type === 'loop') {
        expect(node).toMatchObject({
          amountTokenAUsd: p.amountTokenAUsd,
          amountTokenBUsd: p.amountTokenBUsd,
          ltv: p.ltv,
          liquidationPrice: p.liquidationPrice,
          leverage: p.leverage,
        });
      }
      if (p.type === 'prediction') {
        expect(node.token?.assetId ?? null).toBe(p.token ? `solana:${p.token.address}` : null);
        expect(node.pnl.unrealizedPct).toBe(p.pnl.unrealizedPct ?? null);
      }
      if (p.type === 'lending') {
        expect(node.actions.withdraw).toBe(p.actions?.withdraw?.blinkUrl ?? null);
      }
      if (p.type === 'reward') {
        const parent = p.position?.id;
        expect(node.parentPosition?.positionId ?? null).toBe(parent && ids.has(parent) ? parent : null);
      }
    }
    // One positions call per request, the reward's parent included.
    expect(positionCalls(gw)).toBe(selections.length);
  });

  it('reaches a market the position does not embed through the market loader', async () => {
    const orphan = raw.find((p) => !p.market);
    expect(orphan).toBeDefined();
    const res: any = await gw.execute(WalletPositions, { address, type: 'REWARD', first: 100 });
    expect(res.errors).toBeUndefined();
    const node = res.data.wallet.positions.edges.find((e: any) => e.node.positionId === orphan.id).node;
    expect(node.market?.marketId).toBe(orphan.marketId);
  });
});

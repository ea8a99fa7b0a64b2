import { describe, expect, it } from 'vitest';
import { useTestGateway } from '../helpers/gateway.js';
import { rawById } from './helpers.js';

describe('markets', () => {
  const gw = useTestGateway({ resetControls: true });

  it('reaches every kind of market with its own fields', async () => {
    const query = /* GraphQL */ `
      query Kinds($filter: MarketFilter) {
        markets(first: 8, filter: $filter) {
          edges {
            node {
              __typename
              marketId
              type
              status
              additionalData
              provider { providerId name icon }
              ... on YieldMarket {
                depositApy baseDepositApy totalDeposit totalDepositUsd
                apyAverages { deposit30d deposit90d deposit180d borrow30d }
                rewards { side apy token { assetId } }
                actions { deposit withdraw claimRewards }
                token { assetId symbol }
              }
              ... on LendingMarket {
                depositApy baseDepositApy borrowApy baseBorrowApy totalDeposit totalDepositUsd totalBorrow totalBorrowUsd
                apyAverages { deposit30d deposit90d deposit180d borrow30d borrow90d borrow180d }
                limits { maxDeposit maxBorrow maxLtv liquidationLtv liquidationPenalty }
                rewards { side apy token { assetId } }
                actions { deposit withdraw borrow repay repayWithCollateral claimRewards }
                token { assetId } borrowToken { assetId }
              }
              ... on LoopMarket {
                depositApy maxLeverage apyAverages { deposit30d } limits { maxLtv liquidationLtv maxBorrow }
                actions { setup deposit withdraw } tokenA { assetId } tokenB { assetId }
              }
              ... on PerpetualMarket {
                maxLeverage liquidity { longUsd shortUsd } actions { setup openPosition closePosition }
                tokenA { assetId } tokenB { assetId }
              }
              ... on RewardMarket { rewardApy endsAt actions { claimRewards } token { assetId } }
              ... on PredictionMarket {
                title subtitle result volume openInterest yesBid yesAsk noBid noAsk openTime closeTime expirationTime
                yesToken { assetId } noToken { assetId }
              }
            }
          }
        }
      }
    `;
    const seen = new Set<string>();
    for (const type of ['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION']) {
      const res: any = await gw.execute(query, { filter: { types: [type], predictionStatus: ['OPEN', 'CLOSED', 'SETTLED'] } });
      expect(res.errors).toBeUndefined();
      for (const { node } of res.data.markets.edges) {
        expect(node.type).toBe(type);
        const raw: any = rawById(gw, node.marketId);
        expect(node.provider).toEqual({ providerId: raw.provider.id, name: raw.provider.name, icon: raw.provider.icon });
        seen.add(node.__typename);
        switch (node.__typename) {
          case 'YieldMarket':
            expect(node).toMatchObject({ depositApy: raw.depositApy, baseDepositApy: raw.baseDepositApy, status: null });
            expect(node.apyAverages.deposit30d).toBe(raw.baseDepositApy30d ?? null);
            expect(node.apyAverages.borrow30d).toBeNull();
            expect(node.actions.deposit).toBe(raw.actions.deposit?.blinkUrl ?? null);
            expect(node.token.assetId).toBe(`solana:${raw.token.address}`);
            expect(node.rewards).toHaveLength(raw.rewards?.length ?? 0);
            break;
          case 'LendingMarket':
            expect(node.limits).toEqual({
              maxDeposit: raw.maxDeposit ?? null,
              maxBorrow: raw.maxBorrow,
              maxLtv: raw.maxLtv ?? null,
              liquidationLtv: raw.liquidationLtv ?? null,
              liquidationPenalty: raw.liquidationPenalty ?? null,
            });
            expect(node.apyAverages.borrow180d).toBe(raw.baseBorrowApy180d ?? null);
            expect(node.actions.repayWithCollateral).toBe(raw.actions.repayWithCollateral?.blinkUrl ?? null);
            expect(node.borrowToken?.assetId ?? null).toBe(raw.borrowToken ? `solana:${raw.borrowToken.address}` : null);
            expect(node.rewards.map((r: any) => r.side)).toEqual((raw.rewards ?? []).map((r: any) => r.type.toUpperCase()));
            expect(node.additionalData).toEqual(raw.additionalData ?? null);
            break;
          case 'LoopMarket':
            expect(node).toMatchObject({ depositApy: raw.depositApy, maxLeverage: raw.maxLeverage });
            expect(node.limits).toEqual({ maxLtv: raw.maxLtv, liquidationLtv: raw.liquidationLtv, maxBorrow: null });
            expect(node.tokenB.assetId).toBe(`solana:${raw.tokenB.address}`);
            break;
          case 'PerpetualMarket':
            expect(node.liquidity).toEqual(raw.liquidity);
            expect(node.actions.openPosition).toBe(raw.actions.openPosition?.blinkUrl ?? null);
            break;
          case 'RewardMarket':
            expect(node.rewardApy).toBe(raw.rewardApy);
            expect(node.endsAt).toBe(raw.endsAt ? new Date(raw.endsAt).toISOString() : null);
            break;
          case 'PredictionMarket':
            expect(node.title).toBe(raw.title);
            expect(node.status).toBe(raw.status.toUpperCase());
            expect(node.closeTime).toBe(raw.closeTime ? new Date(raw.closeTime * 1000).toISOString() : null);
            expect(node.yesToken?.assetId ?? null).toBe(raw.yesToken ? `solana:${raw.yesToken.address}` : null);
            expect(node.yesAsk).toBe(raw.yesAsk ?? null);
            break;
        }
      }
    }
    expect([...seen].sort()).toEqual(['LendingMarket', 'LoopMarket', 'PerpetualMarket', 'PredictionMarket', 'RewardMarket', 'YieldMarket']);
  });

  it('gives a field the same type on every market kind, so one query can select it in fragments on several kinds', async () => {
    const kinds = ['YieldMarket', 'LendingMarket', 'LoopMarket', 'PerpetualMarket', 'RewardMarket', 'PredictionMarket'];
    const res: any = await gw.execute(
      `{ ${kinds.map((k) => `${k}: __type(name: "${k}") { fields { name type { ...T } } }`).join(' ')} }
       fragment T on __Type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }`,
    );
    expect(res.errors).toBeUndefined();
    const typeOf = new Map<string, string>();
    for (const kind of kinds) {
      for (const field of res.data[kind].fields) {
        // Object types may differ (each kind has its own actions type); nullability, lists and leaf types may not.
        const shape = JSON.stringify(field.type, (key, value) => (key === 'name' && value?.endsWith?.('Actions') ? 'Actions' : value));
        expect(typeOf.get(field.name) ?? shape, `${kind}.${field.name}`).toBe(shape);
        typeOf.set(field.name, shape);
      }
    }
  });
});

import type { Context } from '../../context.js';
import type {
  CostBasis,
  LendingPosition,
  LoopPosition,
  MarketType,
  PerpetualPosition,
  Position,
  PositionReward,
  PredictionPosition,
  ProfitAndLoss,
  RewardPosition,
  YieldPosition,
} from '../../models/index.js';
import { builder } from '../builder.js';
import { isSolanaAddress } from '../common/inputs.js';
import { MarketTypeEnum } from '../enums.js';
import { AssetRef, MarketRef, PositionRef, WalletRef } from '../refs.js';
import { resolveToken } from '../assets/resolve.js';

/** Each kind of position's object type. */
export const POSITION_TYPE_NAMES = {
  LENDING: 'LendingPosition',
  YIELD: 'YieldPosition',
  LOOP: 'LoopPosition',
  PERPETUAL: 'PerpetualPosition',
  REWARD: 'RewardPosition',
  PREDICTION: 'PredictionPosition',
} as const satisfies Record<MarketType, string>;

/**
 * There is no by-id endpoint for positions: the node id carries the owner, so `node(id:)` can load
 * the owner's positions (one call, shared with the rest of the request) and find the one asked for.
 */
function positionNodeId(position: Position): string {
  return `${position.ownerAddress}:${position.positionId}`;
}

async function loadPosition<T extends MarketType>(id: string, type: T, ctx: Context): Promise<Extract<Position, { type: T }> | null> {
  const colon = id.indexOf(':');
  const owner = id.slice(0, colon);
  const positionId = id.slice(colon + 1);
  if (colon < 0 || !positionId || !isSolanaAddress(owner)) return null;
  const positions = await ctx.markets.positions(owner);
  const found = positions.find((p) => p.positionId === positionId && p.type === type);
  return (found as Extract<Position, { type: T }> | undefined) ?? null;
}

/**
 * One enum for every kind's `side`: GraphQL refuses one selection asking `side` of two position
 * kinds (as the WalletPositions operation does) unless both fields have the same type.
 */
export const PositionSideEnum = builder.enumType('PositionSide', {
  description: 'The side of a position: DEPOSIT or BORROW (lending), LONG or SHORT (perpetual), YES or NO (prediction).',
  values: {
    DEPOSIT: { value: 'DEPOSIT', description: 'Lending: supplied to the market (an asset).' },
    BORROW: { value: 'BORROW', description: 'Lending: borrowed from the market (a debt).' },
    LONG: { value: 'LONG', description: 'Perpetual: gains when the price rises.' },
    SHORT: { value: 'SHORT', description: 'Perpetual: gains when the price falls.' },
    YES: { value: 'YES', description: 'Prediction: the event happens.' },
    NO: { value: 'NO', description: 'Prediction: the event does not happen.' },
  } as const,
});

const PositionRewardRef = builder.objectRef<PositionReward>('PositionReward').implement({
  description: 'A reward accrued on a position and not yet claimed.',
  fields: (t) => ({
    amount: t.exposeFloat('amount', { nullable: false, description: 'Amount in token units.' }),
    amountUsd: t.exposeFloat('amountUsd', { description: 'Value in USD; null when the upstream does not know it.' }),
    token: t.field({
      type: AssetRef,
      description: 'The reward token.',
      resolve: (reward, _args, ctx) => ctx.assets.asset(reward.assetId),
    }),
  }),
});

const CostBasisRef = builder.objectRef<CostBasis>('CostBasis').implement({
  description: 'What a prediction position cost, by the average cost method.',
  fields: (t) => ({
    averageEntryPrice: t.exposeFloat('averageEntryPrice', { description: 'Average price paid per share, in USD.' }),
    totalCapitalCommitted: t.exposeFloat('totalCapitalCommitted', { description: 'Capital committed to the shares still held, in USD.' }),
  }),
});

const ProfitAndLossRef = builder.objectRef<ProfitAndLoss>('ProfitAndLoss').implement({
  description: 'Profit and loss of a prediction position, in USD.',
  fields: (t) => ({
    total: t.exposeFloat('total', { nullable: false, description: 'Realized plus unrealized, in USD.' }),
    realized: t.exposeFloat('realized', { nullable: false, description: 'Locked in by sales, in USD.' }),
    unrealized: t.exposeFloat('unrealized', { nullable: false, description: 'On the shares still held at the current price, in USD.' }),
    unrealizedPct: t.exposeFloat('unrealizedPct', {
      description: 'Unrealized profit as a fraction of the capital committed (0.25 = 25 %).',
    }),
  }),
});

const LendingPositionActionsRef = builder.objectRef<Record<string, string>>('LendingPositionActions').implement({
  description: 'Ready-made action links (URLs) for a lending position; null when not offered.',
  fields: (t) => ({
    deposit: t.string({ description: 'Deposit more.', resolve: (a) => a['deposit'] ?? null }),
    withdraw: t.string({ description: 'Withdraw.', resolve: (a) => a['withdraw'] ?? null }),
    borrow: t.string({ description: 'Borrow more.', resolve: (a) => a['borrow'] ?? null }),
    repay: t.string({ description: 'Repay the debt.', resolve: (a) => a['repay'] ?? null }),
  }),
});

PositionRef.implement({
  description: "A wallet's holding in a market. The concrete type says which kind of market.",
  interfaces: [builder.nodeInterfaceRef()],
  resolveType: (position) => POSITION_TYPE_NAMES[position.type],
  fields: (t) => ({
    positionId: t.exposeString('positionId', { nullable: false, description: "The upstream's own id of the position." }),
    type: t.expose('type', { type: MarketTypeEnum, nullable: false, description: 'The kind of market.' }),
    owner: t.field({
      type: WalletRef,
      nullable: false,
      description: 'The wallet holding the position.',
      resolve: (p) => ({ address: p.ownerAddress }),
    }),
    market: t.field({
      type: MarketRef,
      description: "The market, with `status` as the position reports it; null when it cannot be found.",
      resolve: (p, _args, ctx) => p.market ?? ctx.markets.market(p.marketId),
    }),
    amount: t.exposeFloat('amount', { nullable: false, description: 'Size in token units (shares for prediction positions).' }),
    amountUsd: t.exposeFloat('amountUsd', { description: 'Value in USD; null when the upstream does not know it.' }),
    websiteUrl: t.exposeString('websiteUrl', { description: "The position on the provider's website." }),
    rewards: t.expose('rewards', {
      type: [PositionRewardRef],
      nullable: false,
      description: 'Rewards accrued and not yet claimed; empty when none.',
    }),
  }),
});

function nodeOptions<T extends MarketType>(type: T) {
  return {
    interfaces: [PositionRef],
    id: { description: 'Opaque global id (for `node(id:)`).', resolve: (p: Position) => positionNodeId(p) },
    loadOne: (id: string, ctx: Context) => loadPosition(id, type, ctx),
  };
}

builder.node(builder.objectRef<LendingPosition>(POSITION_TYPE_NAMES.LENDING), {
  ...nodeOptions('LENDING'),
  description: 'A deposit into or a borrow from a lending market.',
  fields: (t) => ({
    side: t.expose('side', { type: PositionSideEnum, nullable: false, description: 'DEPOSIT or BORROW.' }),
    ltv: t.exposeFloat('ltv', { description: 'Loan-to-value of the account as a fraction (0.42 = 42 %).' }),
    liquidationPrice: t.exposeFloat('liquidationPrice', { description: 'Price of the collateral at which it is liquidated, in USD.' }),
    actions: t.expose('actions', {
      type: LendingPositionActionsRef,
      nullable: false,
      description: 'Action links for this position.',
    }),
  }),
});

builder.node(builder.objectRef<YieldPosition>(POSITION_TYPE_NAMES.YIELD), {
  ...nodeOptions('YIELD'),
  description: 'A deposit into a yield vault.',
});

builder.node(builder.objectRef<LoopPosition>(POSITION_TYPE_NAMES.LOOP), {
  ...nodeOptions('LOOP'),
  description: 'A leveraged loop: token A supplied, token B borrowed.',
  fields: (t) => ({
    amountTokenA: t.exposeFloat('amountTokenA', { nullable: false, description: 'Supplied token A, in token units.' }),
    amountTokenB: t.exposeFloat('amountTokenB', { nullable: false, description: 'Borrowed token B, in token units.' }),
    amountTokenAUsd: t.exposeFloat('amountTokenAUsd', { description: 'Supplied token A, in USD.' }),
    amountTokenBUsd: t.exposeFloat('amountTokenBUsd', { description: 'Borrowed token B, in USD.' }),
    ltv: t.exposeFloat('ltv', { description: 'Loan-to-value as a fraction (0.84 = 84 %).' }),
    liquidationPrice: t.exposeFloat('liquidationPrice', { description: 'Price at which the loop is liquidated, in USD.' }),
    leverage: t.exposeFloat('leverage', { description: 'Leverage multiple (6.4 = 6.4x).' }),
  }),
});

builder.node(builder.objectRef<PerpetualPosition>(POSITION_TYPE_NAMES.PERPETUAL), {
  ...nodeOptions('PERPETUAL'),
  description: 'A perpetual futures position.',
  fields: (t) => ({
    side: t.expose('side', { type: PositionSideEnum, nullable: false, description: 'LONG or SHORT.' }),
    // Nullable like LoopPosition.leverage: same-named fields must share a type to be selected together.
    leverage: t.exposeFloat('leverage', { description: 'Leverage multiple (10 = 10x).' }),
    entryPrice: t.exposeFloat('entryPrice', { nullable: false, description: 'Average entry price, in USD.' }),
    markPrice: t.exposeFloat('markPrice', { description: 'Current mark price, in USD.' }),
  }),
});

builder.node(builder.objectRef<RewardPosition>(POSITION_TYPE_NAMES.REWARD), {
  ...nodeOptions('REWARD'),
  description: 'Claimable rewards earned on another position; listed even after that position closed.',
  fields: (t) => ({
    token: t.field({
      type: AssetRef,
      description: 'The reward token.',
      resolve: (p, _args, ctx) => resolveToken(p.token, ctx),
    }),
    parentPositionId: t.exposeString('parentPositionId', { description: 'The id of the position the reward was earned on.' }),
    parentPosition: t.field({
      type: PositionRef,
      description: 'The position the reward was earned on; null once it has closed.',
      resolve: async (p, _args, ctx) => {
        if (!p.parentPositionId) return null;
        const positions = await ctx.markets.positions(p.ownerAddress);
        return positions.find((other) => other.positionId === p.parentPositionId) ?? null;
      },
    }),
  }),
});

builder.node(builder.objectRef<PredictionPosition>(POSITION_TYPE_NAMES.PREDICTION), {
  ...nodeOptions('PREDICTION'),
  description: 'Outcome shares of a prediction market.',
  fields: (t) => ({
    side: t.expose('side', { type: PositionSideEnum, nullable: false, description: 'The outcome held: YES or NO.' }),
    token: t.field({
      type: AssetRef,
      description: 'The outcome token.',
      resolve: (p, _args, ctx) => resolveToken(p.token, ctx),
    }),
    costBasis: t.expose('costBasis', {
      type: CostBasisRef,
      nullable: false,
      description: 'What the shares held cost (average cost method).',
    }),
    pnl: t.expose('pnl', { type: ProfitAndLossRef, description: 'Profit and loss, in USD.' }),
  }),
});

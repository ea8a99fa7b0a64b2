import type { Context } from '../../context.js';
import type {
  ApyAverages,
  LendingMarket,
  LoopMarket,
  Market,
  MarketIncentive,
  MarketLimits,
  MarketType,
  PerpetualMarket,
  PredictionMarket,
  RewardMarket,
  YieldMarket,
} from '../../models/index.js';
import { builder } from '../builder.js';
import { AssetRef, MarketRef } from '../refs.js';
import { HELD_RECORDS } from '../sync-global-ids.js';
import { resolveToken } from '../assets/resolve.js';
import { dateOrNull } from '../common/dates.js';
import { loadMarket, MARKET_TYPE_NAMES } from './market.js';

const ApyAveragesRef = builder.objectRef<ApyAverages>('ApyAverages').implement({
  description: 'Average base APYs over the last 30, 90 and 180 days, as fractions (a loop market has deposit averages only).',
  fields: (t) => ({
    deposit30d: t.exposeFloat('deposit30d', { description: '30-day average deposit APY.' }),
    deposit90d: t.exposeFloat('deposit90d', { description: '90-day average deposit APY.' }),
    deposit180d: t.exposeFloat('deposit180d', { description: '180-day average deposit APY.' }),
    borrow30d: t.exposeFloat('borrow30d', { description: '30-day average borrow APY.' }),
    borrow90d: t.exposeFloat('borrow90d', { description: '90-day average borrow APY.' }),
    borrow180d: t.exposeFloat('borrow180d', { description: '180-day average borrow APY.' }),
  }),
});

const MarketLimitsRef = builder.objectRef<MarketLimits>('MarketLimits').implement({
  description: 'Caps and risk parameters. LTVs and the penalty are fractions; amounts are in token units.',
  fields: (t) => ({
    maxDeposit: t.exposeFloat('maxDeposit', { description: 'Deposit cap, in token units.' }),
    maxBorrow: t.exposeFloat('maxBorrow', { description: 'Borrow cap, in token units.' }),
    maxLtv: t.exposeFloat('maxLtv', { description: 'Highest loan-to-value a position may open at, a fraction.' }),
    liquidationLtv: t.exposeFloat('liquidationLtv', { description: 'Loan-to-value at which a position is liquidated, a fraction.' }),
    liquidationPenalty: t.exposeFloat('liquidationPenalty', { description: 'Share taken on liquidation, a fraction.' }),
  }),
});

const IncentiveSideEnum = builder.enumType('IncentiveSide', {
  description: 'Which side of a market an incentive pays.',
  values: {
    DEPOSIT: { value: 'DEPOSIT', description: 'Paid to depositors.' },
    BORROW: { value: 'BORROW', description: 'Paid to borrowers.' },
  } as const,
});

const MarketIncentiveRef = builder.objectRef<MarketIncentive>('MarketIncentive').implement({
  description: 'An incentive paid on top of the base APY, in a reward token.',
  fields: (t) => ({
    side: t.expose('side', { type: IncentiveSideEnum, nullable: false, description: 'Who earns it.' }),
    apy: t.exposeFloat('apy', { nullable: false, description: 'The incentive APY, a fraction.' }),
    token: t.field({ type: AssetRef, description: 'The token it is paid in.', resolve: (r, _args, ctx) => resolveToken(r.token, ctx) }),
  }),
});

const PerpetualLiquidityRef = builder.objectRef<PerpetualMarket['liquidity']>('PerpetualLiquidity').implement({
  description: 'Liquidity available to open positions, in USD.',
  fields: (t) => ({
    longUsd: t.exposeFloat('longUsd', { nullable: false, description: 'For long positions, in USD.' }),
    shortUsd: t.exposeFloat('shortUsd', { nullable: false, description: 'For short positions, in USD.' }),
  }),
});

/**
 * An object of action links (URL strings) for one market kind; an action the market lacks is null.
 * Exposed fields have no resolver: graphql-jit reads them inline in its compiled function, where a
 * resolver would be called per field and market (as for every exposed field below).
 */
function actionsType(name: string, kind: string, actions: Record<string, string>) {
  return builder.objectRef<Record<string, string>>(name).implement({
    description: `Ready-made action links of a ${kind} market (URLs); null where the market does not offer the action.`,
    fields: (t) =>
      Object.fromEntries(
        Object.entries(actions).map(([action, description]) => [
          action,
          t.exposeString(action, { description }),
        ]),
      ),
  });
}

const YieldMarketActions = actionsType('YieldMarketActions', 'yield', {
  deposit: 'Deposit into the market.',
  withdraw: 'Withdraw from the market.',
  claimRewards: 'Claim accrued rewards.',
});
const LendingMarketActions = actionsType('LendingMarketActions', 'lending', {
  deposit: 'Supply the token.',
  withdraw: 'Withdraw supplied tokens.',
  borrow: 'Borrow against collateral.',
  repay: 'Repay a loan.',
  repayWithCollateral: 'Repay a loan out of its collateral.',
  claimRewards: 'Claim accrued rewards.',
});
const LoopMarketActions = actionsType('LoopMarketActions', 'loop', {
  setup: 'One-time account setup.',
  deposit: 'Open or grow a looped position.',
  withdraw: 'Unwind a looped position.',
});
const PerpetualMarketActions = actionsType('PerpetualMarketActions', 'perpetual', {
  setup: 'One-time account setup.',
  openPosition: 'Open a position.',
  closePosition: 'Close a position.',
});
const RewardMarketActions = actionsType('RewardMarketActions', 'reward', {
  claimRewards: 'Claim the rewards.',
});

/** The node settings every market kind shares: global id from `marketId`, `node(id:)` through the markets data source. */
function marketNode<T extends Market>(type: T['type']) {
  return {
    interfaces: [MarketRef],
    id: { resolve: (market: T) => market.marketId, description: 'Opaque global id (Relay).' },
    // The market index holds listed markets process-wide (positions embed copies of their own).
    extensions: { [HELD_RECORDS]: true },
    loadOne: async (marketId: string, ctx: Context) => {
      const market = await loadMarket(marketId, ctx);
      return market?.type === type ? (market as T) : null;
    },
    // `nodes(ids:)` may complete a node before Pothos brands it with its type: then this decides.
    isTypeOf: (value: unknown) => (value as Market | null)?.type === type,
  };
}

const depositApy = 'Deposit APY including incentives, a fraction (0.0487 = 4.87 %).';
const baseDepositApy = 'Deposit APY without incentives, a fraction.';
const apyAverages = '30/90/180-day average base APYs.';
const incentives = 'Incentives paid on top of the base APY.';
const maxLeverage = 'Highest leverage the market allows (e.g. 5 = 5x).';

const typeRef = <T extends Market>(type: MarketType) => builder.objectRef<T>(MARKET_TYPE_NAMES[type]);

builder.node(typeRef<YieldMarket>('YIELD'), {
  description: 'A market where a token earns yield.',
  ...marketNode<YieldMarket>('YIELD'),
  fields: (t) => ({
    token: t.field({ type: AssetRef, description: 'The token deposited.', resolve: (m, _args, ctx) => resolveToken(m.token, ctx) }),
    depositApy: t.exposeFloat('depositApy', { nullable: false, description: depositApy }),
    baseDepositApy: t.exposeFloat('baseDepositApy', { nullable: false, description: baseDepositApy }),
    apyAverages: t.expose('apyAverages', { type: ApyAveragesRef, nullable: false, description: apyAverages }),
    totalDeposit: t.exposeFloat('totalDeposit', { description: 'Total deposited, in token units.' }),
    totalDepositUsd: t.exposeFloat('totalDepositUsd', { description: 'Total deposited, in USD.' }),
    rewards: t.expose('rewards', { type: [MarketIncentiveRef], nullable: false, description: incentives }),
    actions: t.expose('actions', { type: YieldMarketActions, nullable: false, description: 'Action links.' }),
  }),
});

builder.node(typeRef<LendingMarket>('LENDING'), {
  description: 'A lending market: supply a token to earn, borrow against collateral.',
  ...marketNode<LendingMarket>('LENDING'),
  fields: (t) => ({
    token: t.field({ type: AssetRef, description: 'The token supplied.', resolve: (m, _args, ctx) => resolveToken(m.token, ctx) }),
    borrowToken: t.field({
      type: AssetRef,
      description: 'The token borrowed, when it differs from `token`.',
      resolve: (m, _args, ctx) => resolveToken(m.borrowToken, ctx),
    }),
    depositApy: t.exposeFloat('depositApy', { nullable: false, description: depositApy }),
    baseDepositApy: t.exposeFloat('baseDepositApy', { nullable: false, description: baseDepositApy }),
    borrowApy: t.exposeFloat('borrowApy', { nullable: false, description: 'Borrow APY net of incentives, a fraction.' }),
    baseBorrowApy: t.exposeFloat('baseBorrowApy', { nullable: false, description: 'Borrow APY without incentives, a fraction.' }),
    apyAverages: t.expose('apyAverages', { type: ApyAveragesRef, nullable: false, description: apyAverages }),
    // Nullable like YieldMarket.totalDeposit: fragments on both kinds must agree on the field's type.
    totalDeposit: t.exposeFloat('totalDeposit', { description: 'Total supplied, in token units.' }),
    totalDepositUsd: t.exposeFloat('totalDepositUsd', { description: 'Total supplied, in USD.' }),
    totalBorrow: t.exposeFloat('totalBorrow', { nullable: false, description: 'Total borrowed, in token units.' }),
    totalBorrowUsd: t.exposeFloat('totalBorrowUsd', { description: 'Total borrowed, in USD.' }),
    limits: t.expose('limits', { type: MarketLimitsRef, nullable: false, description: 'Caps and risk parameters.' }),
    rewards: t.expose('rewards', { type: [MarketIncentiveRef], nullable: false, description: incentives }),
    actions: t.expose('actions', { type: LendingMarketActions, nullable: false, description: 'Action links.' }),
  }),
});

builder.node(typeRef<LoopMarket>('LOOP'), {
  description: 'A leveraged loop: deposit token A, borrow token B, repeat.',
  ...marketNode<LoopMarket>('LOOP'),
  fields: (t) => ({
    tokenA: t.field({ type: AssetRef, description: 'The token deposited.', resolve: (m, _args, ctx) => resolveToken(m.tokenA, ctx) }),
    tokenB: t.field({ type: AssetRef, description: 'The token borrowed.', resolve: (m, _args, ctx) => resolveToken(m.tokenB, ctx) }),
    depositApy: t.exposeFloat('depositApy', { nullable: false, description: 'APY of the looped position, a fraction.' }),
    apyAverages: t.expose('apyAverages', { type: ApyAveragesRef, nullable: false, description: apyAverages }),
    maxLeverage: t.exposeFloat('maxLeverage', { nullable: false, description: maxLeverage }),
    limits: t.expose('limits', { type: MarketLimitsRef, nullable: false, description: '`maxLtv` and `liquidationLtv`; the other limits are null.' }),
    actions: t.expose('actions', { type: LoopMarketActions, nullable: false, description: 'Action links.' }),
  }),
});

builder.node(typeRef<PerpetualMarket>('PERPETUAL'), {
  description: 'A perpetual futures market of token A against token B.',
  ...marketNode<PerpetualMarket>('PERPETUAL'),
  fields: (t) => ({
    tokenA: t.field({ type: AssetRef, description: 'The traded token.', resolve: (m, _args, ctx) => resolveToken(m.tokenA, ctx) }),
    tokenB: t.field({ type: AssetRef, description: 'The quote token.', resolve: (m, _args, ctx) => resolveToken(m.tokenB, ctx) }),
    liquidity: t.expose('liquidity', { type: PerpetualLiquidityRef, nullable: false, description: 'Open liquidity.' }),
    maxLeverage: t.exposeFloat('maxLeverage', { nullable: false, description: maxLeverage }),
    actions: t.expose('actions', { type: PerpetualMarketActions, nullable: false, description: 'Action links.' }),
  }),
});

builder.node(typeRef<RewardMarket>('REWARD'), {
  description: 'A reward programme paying a token.',
  ...marketNode<RewardMarket>('REWARD'),
  fields: (t) => ({
    token: t.field({ type: AssetRef, description: 'The reward token.', resolve: (m, _args, ctx) => resolveToken(m.token, ctx) }),
    rewardApy: t.exposeFloat('rewardApy', { nullable: false, description: 'Reward APY, a fraction.' }),
    endsAt: t.field({ type: 'DateTime', description: 'When the programme ends.', resolve: (m) => dateOrNull(m.endsAt) }),
    actions: t.expose('actions', { type: RewardMarketActions, nullable: false, description: 'Action links.' }),
  }),
});

builder.node(typeRef<PredictionMarket>('PREDICTION'), {
  description: 'A yes/no prediction market. Prices are fractions of 1 (0.62 = 62 ¢ per share); `status` says whether it is open.',
  ...marketNode<PredictionMarket>('PREDICTION'),
  fields: (t) => ({
    title: t.exposeString('title', { nullable: false, description: 'The question.' }),
    subtitle: t.exposeString('subtitle', { description: 'More detail on the question.' }),
    result: t.exposeString('result', { description: 'The outcome, once settled.' }),
    volume: t.exposeFloat('volume', { description: 'Traded volume.' }),
    openInterest: t.exposeFloat('openInterest', { description: 'Open interest.' }),
    yesBid: t.exposeFloat('yesBid', { description: 'Best bid for YES.' }),
    yesAsk: t.exposeFloat('yesAsk', { description: 'Best ask for YES.' }),
    noBid: t.exposeFloat('noBid', { description: 'Best bid for NO.' }),
    noAsk: t.exposeFloat('noAsk', { description: 'Best ask for NO.' }),
    openTime: t.field({ type: 'DateTime', description: 'When trading opened.', resolve: (m) => dateOrNull(m.openTime) }),
    closeTime: t.field({ type: 'DateTime', description: 'When trading closes.', resolve: (m) => dateOrNull(m.closeTime) }),
    expirationTime: t.field({ type: 'DateTime', description: 'When the market expires.', resolve: (m) => dateOrNull(m.expirationTime) }),
    yesToken: t.field({ type: AssetRef, description: 'The YES outcome token.', resolve: (m, _args, ctx) => resolveToken(m.yesToken, ctx) }),
    noToken: t.field({ type: AssetRef, description: 'The NO outcome token.', resolve: (m, _args, ctx) => resolveToken(m.noToken, ctx) }),
  }),
});

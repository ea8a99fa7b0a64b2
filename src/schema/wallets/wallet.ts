import { walletTotalValueUsd, type WalletValuePoint } from '../../models/index.js';
import { builder } from '../builder.js';
import { historyCost, lengthCost, pageCost, VALUE_SERIES_PER_WALLET } from '../common/cost.js';
import { checkWindow, isSolanaAddress } from '../common/inputs.js';
import { windowArgs } from '../common/window-args.js';
import { MarketStatusEnum, MarketTypeEnum } from '../enums.js';
import { PositionRef, WalletRef } from '../refs.js';
import { MAX_WALLETS, VALUE_HISTORY_WINDOW, walletAddress, walletAddresses } from './inputs.js';
import { validatePage } from './pagination.js';

/** Page sizes of `Wallet.positions`. */
export const POSITIONS_PAGE = { defaultSize: 20, maxSize: 100 } as const;

const WalletValuePointRef = builder.objectRef<WalletValuePoint>('WalletValuePoint').implement({
  description: "A wallet's value at one instant.",
  fields: (t) => ({
    timestamp: t.field({ type: 'DateTime', nullable: false, description: 'The instant (UTC).', resolve: (p) => p.timestamp }),
    valueUsd: t.exposeFloat('valueUsd', {
      nullable: false,
      description: "Sum of the positions' USD values at that instant (a missing value counts 0).",
    }),
  }),
});

builder.node(WalletRef, {
  description: 'A Solana wallet and its positions across markets. Any valid address is a wallet, with or without positions.',
  id: { description: 'Opaque global id (for `node(id:)`).', resolve: (wallet) => wallet.address },
  loadOne: (address) => (isSolanaAddress(address) ? { address } : null),
  fields: (t) => ({
    address: t.exposeString('address', { nullable: false, description: 'The base58 address.' }),
    positions: t.connection(
      {
        type: PositionRef,
        complexity: pageCost({ default: POSITIONS_PAGE.defaultSize, max: POSITIONS_PAGE.maxSize }),
        description: `The wallet's positions in the upstream's order, filtered by \`type\` and \`status\` (the market status). \`first\` and \`last\` take 0 to ${POSITIONS_PAGE.maxSize}; default ${POSITIONS_PAGE.defaultSize}.`,
        args: {
          type: t.arg({ type: MarketTypeEnum, description: 'Only positions in markets of this type.' }),
          status: t.arg({ type: MarketStatusEnum, description: "Only positions whose market has this status." }),
        },
        // Promise chains, not async functions: one promise a field fewer for the executor to wait on.
        resolve: (wallet, args, ctx) => {
          const page = validatePage(args, POSITIONS_PAGE, ctx.services.cursors);
          // Always the whole list: totalValueUsd and every filtered connection share one upstream call.
          return ctx.markets.positions(wallet.address).then((positions) =>
            page(positions.filter((p) => (!args.type || p.type === args.type) && (!args.status || p.market?.status === args.status))),
          );
        },
      },
      {
        name: 'WalletPositionsConnection',
        description: 'A page of positions.',
        edgesField: { description: 'The positions of this page, each with its cursor.' },
        fields: (c) => ({
          totalCount: c.exposeInt('totalCount', { nullable: false, description: 'How many positions match the filters, over all pages.' }),
        }),
      },
      { name: 'WalletPositionsEdge', description: 'A position and its cursor.', nodeField: { description: 'The position.' } },
    ),
    totalValueUsd: t.float({
      description: "Net value in USD: the sum of the positions' `amountUsd`, borrowed amounts subtracted, a missing value counting 0.",
      resolve: (wallet, _args, ctx) => ctx.markets.positions(wallet.address).then(walletTotalValueUsd),
    }),
    valueHistory: t.field({
      type: [WalletValuePointRef],
      complexity: historyCost(VALUE_HISTORY_WINDOW, VALUE_SERIES_PER_WALLET),
      nullable: { list: true, items: false },
      description:
        'Value over time, oldest first: per timestamp, the sum of the USD values of the positions. Data starts at 2025-10-08T00:00:00Z; a range holds at most 2,000 points.',
      args: windowArgs(t.arg, VALUE_HISTORY_WINDOW, {
        from: 'Start (at or after 2025-10-08T00:00:00Z).',
        to: 'End; default now.',
        resolution: 'Bucket size: any of ONE_MINUTE, FIVE_MINUTES, ONE_HOUR (default), ONE_DAY.',
      }),
      resolve: (wallet, args, ctx) => {
        const { from, to, resolution } = checkWindow(args, VALUE_HISTORY_WINDOW);
        return ctx.markets.walletValueHistory({ walletAddress: wallet.address, from, to, resolution });
      },
    }),
  }),
});

builder.queryFields((t) => ({
  wallet: t.field({
    type: WalletRef,
    description: 'A wallet by its Solana address; a wallet without positions has an empty `positions` connection.',
    args: { address: t.arg.string({ required: true, description: 'A Solana address (32 to 44 base58 characters).' }) },
    resolve: (_root, args) => ({ address: walletAddress(args.address) }),
  }),
  wallets: t.field({
    type: [WalletRef],
    complexity: lengthCost('addresses'),
    nullable: { list: true, items: false },
    description: `Several wallets at once, duplicates removed, in the order given (at most ${MAX_WALLETS}).`,
    args: {
      addresses: t.arg.stringList({ required: true, description: `Solana addresses (at most ${MAX_WALLETS} distinct).` }),
    },
    resolve: (_root, args) => walletAddresses(args.addresses).map((address) => ({ address })),
  }),
}));

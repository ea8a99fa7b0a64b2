import type { PositionValue, WalletValueEvent } from '../../models/index.js';
import { startEvent } from '../../sources/index.js';
import { builder } from '../builder.js';
import { PositionRef } from '../refs.js';
import { walletAddress } from '../wallets/inputs.js';

const PositionValueRef = builder.objectRef<PositionValue>('LivePositionValue').implement({
  description: "A position's value at the latest live prices.",
  fields: (t) => ({
    position: t.field({ type: PositionRef, nullable: false, description: 'The position, as the positions service last sent it.', resolve: (v) => v.position }),
    valueUsd: t.exposeFloat('valueUsd', { description: 'Value in USD at the latest prices; null when unknown.' }),
    live: t.exposeBoolean('live', {
      nullable: false,
      description: "Recomputed from live prices; false: the positions service's own value (no live price applies to this position).",
    }),
  }),
});

const WalletValueRef = builder.objectRef<WalletValueEvent>('WalletValue').implement({
  description: "A wallet's value, recomputed from its positions' amounts and live prices.",
  fields: (t) => ({
    address: t.exposeString('address', { nullable: false, description: 'The wallet.' }),
    totalValueUsd: t.exposeFloat('totalValueUsd', {
      nullable: false,
      description: "Net value in USD: the sum of the positions' values, borrowed amounts subtracted, a missing value counting 0.",
    }),
    positions: t.field({ type: [PositionValueRef], nullable: false, description: 'Each position and its value.', resolve: (v) => v.positions }),
    asOf: t.field({ type: 'DateTime', nullable: false, description: 'When the latest price (or the positions) behind this value was read.', resolve: (v) => v.asOf }),
    stale: t.exposeBoolean('stale', { nullable: false, description: 'Some price behind this value is the last known one: its read failed.' }),
  }),
});

builder.subscriptionField('walletValue', (t) =>
  t.field({
    type: WalletValueRef,
    nullable: false,
    description:
      "A wallet's value, sent first at once and then on every live price change of an asset it holds. Positions are re-read every minute; a price tick costs no positions call.",
    args: { address: t.arg.string({ required: true, description: 'A Solana address (32 to 44 base58 characters).' }) },
    subscribe: async (_root, args, ctx) => {
      return ctx.services.walletValue(walletAddress(args.address));
    },
    resolve: (value, _args, ctx) => {
      startEvent(ctx);
      return value;
    },
  }),
);

import { builder } from './builder.js';

/** Enums shared by several domains. Values are the models' own, so no mapping layer is needed. */
export const MarketTypeEnum = builder.enumType('MarketType', {
  description: 'The kind of a market or position.',
  values: {
    YIELD: { value: 'YIELD', description: 'Deposit a token and earn its yield.' },
    LENDING: { value: 'LENDING', description: 'Deposit to earn, or borrow against collateral.' },
    LOOP: { value: 'LOOP', description: 'Leveraged looping of a token pair.' },
    PERPETUAL: { value: 'PERPETUAL', description: 'Perpetual futures: long or short with leverage.' },
    REWARD: { value: 'REWARD', description: 'Incentive programmes paying rewards.' },
    PREDICTION: { value: 'PREDICTION', description: 'Yes/no prediction markets.' },
  } as const,
});

export const MarketStatusEnum = builder.enumType('MarketStatus', {
  description: 'Whether a market is open, closed, or settled (prediction markets).',
  values: {
    OPEN: { value: 'OPEN', description: 'Trading or accepting deposits.' },
    CLOSED: { value: 'CLOSED', description: 'No longer trading; not yet settled.' },
    SETTLED: { value: 'SETTLED', description: 'Resolved (prediction markets) and paid out.' },
  } as const,
});

export const ResolutionEnum = builder.enumType('Resolution', {
  description: 'Bucket size of a time series. Each series accepts a subset (the field says which).',
  values: {
    ONE_MINUTE: { value: 'ONE_MINUTE', description: '1 minute' },
    FIVE_MINUTES: { value: 'FIVE_MINUTES', description: '5 minutes' },
    ONE_HOUR: { value: 'ONE_HOUR', description: '1 hour' },
    ONE_DAY: { value: 'ONE_DAY', description: '1 day' },
  } as const,
});

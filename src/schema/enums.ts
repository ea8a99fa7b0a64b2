import { MARKET_STATUSES, MARKET_TYPES } from '../models/index.js';
import { builder } from './builder.js';

/** Enums shared by several domains. Values are the models' own, so no mapping layer is needed. */
export const MarketTypeEnum = builder.enumType('MarketType', {
  description: 'The kind of a market or position.',
  values: MARKET_TYPES,
});

export const MarketStatusEnum = builder.enumType('MarketStatus', {
  description: 'Whether a market is open, closed, or settled (prediction markets).',
  values: MARKET_STATUSES,
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

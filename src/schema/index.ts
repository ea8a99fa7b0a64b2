import { builder } from './builder.js';
import './enums.js';
import './assets/index.js';
import './markets/index.js';
import './wallets/index.js';
import './alerts/index.js';
import './events/index.js';
import './live-prices/index.js';

import type { MarketType } from '../models/index.js';
import { inlineRelayProperties } from './inline-fields.js';
import { resolveKnownTypes } from './known-types.js';
import { MARKET_TYPE_NAMES } from './markets/market.js';
import { POSITION_TYPE_NAMES } from './wallets/position.js';

/**
 * Positions and markets carry their kind (`type`): their interfaces resolve it without Pothos's lookup.
 * Connections' and edges' property fields have no resolver, so the compiled documents read them inline.
 */
export const schema = inlineRelayProperties(
  resolveKnownTypes(builder.toSchema(), {
    Market: (value) => MARKET_TYPE_NAMES[(value as { type: MarketType }).type],
    Position: (value) => POSITION_TYPE_NAMES[(value as { type: MarketType }).type],
  }),
);

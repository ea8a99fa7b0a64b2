import { builder } from './builder.js';
import './enums.js';
import './assets/index.js';
import './markets/index.js';
import './wallets/index.js';
import './alerts/index.js';
import './events/index.js';
import './live-prices/index.js';

export const schema = builder.toSchema();

/** Raw shapes of the markets and positions service, one module per kind of endpoint; importers keep this path. */
export type * from './raw-market.js';
export type * from './raw-position.js';

/** The five scenarios of `npm run bench`, each in its own file. */
export { warmUpProcess } from './warm-up.js';
export { mobileHome } from './mobile.js';
export { marketsPage } from './markets.js';
export { walletPositions } from './wallets.js';
export { degraded } from './degraded.js';
export { memory } from './memory.js';
export type { ScenarioResult } from './types.js';

export * from './common.js';
export * from './market.js';
export * from './position.js';
export * from './asset.js';
export * from './alerts.js';
export * from './views.js';
export * from './freshness.js';
export * from './passthrough.js';

export { DEFAULT_THRESHOLDS, WINDOW_MS, eventTokens, eventsAt, lastTradeEvents, priceChangeEvents, trendingTokenEvent, windowChange } from './compute.js';
export type { EventOptions, WebhookEvent, WindowName } from './compute.js';
export { createWebhookSender, startEventEmitter } from './emitter.js';
export type { DeliveryResult, EventEmitterOptions, WebhookEmitter, WebhookSender, WebhookSenderOptions } from './emitter.js';
export { signatureHeaders } from './sign.js';

import type { AlertsSource } from './alerts.js';
import type { AssetsSource } from './assets.js';
import type { MarketsSource } from './markets.js';

export { AlertsSource, type SendOnce, type SendReceipt } from './alerts.js';
export { INBOX_COUNT_MAX_PAGES, INBOX_MAX_LIMIT, type AlertsDataKind, type InboxPageKey } from './alerts-reads.js';
export { AssetsSource, type PriceHistoryKey } from './assets.js';
export { MarketsSource, type ApyHistoryKey, type ApyHistoryResolution, type ValueHistoryKey } from './markets.js';
// What a source's call rejects with when its upstream refuses or fails, for the schema to tell refusals apart.
export { UpstreamError, type UpstreamErrorKind } from '../upstream/index.js';

/**
 * One data source per upstream, per request (as Apollo's RESTDataSource): each holds the caller's
 * credentials and the operation's call scope, and loads through its own DataLoaders, so resolvers
 * pass neither. Built by the per-request root (request-context.ts); the context carries them.
 */
export interface DataSources {
  alerts: AlertsSource;
  assets: AssetsSource;
  markets: MarketsSource;
}

/**
 * Starts a subscription's event. A subscription's context lives as long as its stream and the executor
 * hands that one object to every event, so what an earlier event loaded would show its data and grow
 * for the stream's lifetime: each source forgets it, and calls with the stream's signal alone from
 * then on (`eventScope`). The executor resolves a stream's events one after another (the next event is
 * read once the previous one is delivered), so this never reaches an event still being resolved.
 */
export function startEvent(sources: DataSources): void {
  sources.alerts.startEvent();
  sources.assets.startEvent();
  sources.markets.startEvent();
}

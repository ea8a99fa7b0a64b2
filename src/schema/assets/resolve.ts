import type { Context } from '../../context.js';
import { upstreamUnavailable } from '../../errors.js';
import type { AssetPriceView, AssetView, TokenRef } from '../../models/index.js';

/**
 * How an asset's fields reach the request's assets data source: each answers at once when the data
 * is held (a complete view, a price within its TTL), and waits only for what must be loaded.
 */

/** One field of the complete asset: at once when the view is complete (search results carry only the summary: the rest is loaded when asked for). */
export function completed<R>(asset: AssetView, ctx: Context, field: (complete: AssetView | null) => R): R | Promise<R> {
  return asset.summaryOnly ? loadAsset(asset.assetId, ctx).then(field) : field(asset);
}

/** The `AssetPrice` of an asset, completed and its price looked up (at once when a held copy has it). */
export function assetPrice(view: AssetView, ctx: Context): AssetPriceView | null | Promise<AssetPriceView | null> {
  return view.summaryOnly ? loadAsset(view.assetId, ctx).then((asset) => (asset ? pricedView(asset, ctx) : null)) : pricedView(view, ctx);
}

/** A complete asset's price view; without a promise when its price is held (most tokens of a page: no closure made either). */
function pricedView(asset: AssetView, ctx: Context): AssetPriceView | null | Promise<AssetPriceView | null> {
  const priced = ctx.assets.price(asset);
  return priced instanceof Promise ? priced.then((answer) => priceView(answer, ctx)) : priceView(priced, ctx);
}

function priceView(priced: AssetView | null, ctx: Context): AssetPriceView | null {
  if (priced?.priceUnavailable) throw upstreamUnavailable('assets');
  if (priced?.priceInvalid) throw upstreamUnavailable('assets', false);
  return priced ? ctx.assets.priceView(priced) : null;
}

/** A token of a market or position as an `Asset`, through the assets data source (which falls back to the token record). */
export function resolveToken(ref: TokenRef | null, ctx: Context): AssetView | null | Promise<AssetView | null> {
  return ref ? ctx.assets.token(ref) : null;
}

/** An asset by id through the request's assets data source; null when the assets service does not know it. */
export function loadAsset(id: string, ctx: Context): Promise<AssetView | null> {
  return ctx.assets.asset(id);
}

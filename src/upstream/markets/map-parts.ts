import type { Provider, TokenRef } from '../../models/common.js';
import type { MarketIncentive } from '../../models/market.js';
import { assetIdForSolana } from '../../models/asset-ids.js';
import { isObject, mapEach, Malformed, optString, orNull, reqNumber, reqString } from '../read.js';
import type { RawProvider, RawToken } from './types.js';

/** The pieces markets and positions share, raw to the gateway's models: tokens, providers, action links, incentives. */

export function mapToken(raw: RawToken | null | undefined, field = 'token'): TokenRef {
  if (!isObject(raw)) throw new Malformed(field);
  const address = reqString(raw.address, `${field}.address`);
  return {
    // Every token of the markets service is a Solana token.
    assetId: assetIdForSolana(address),
    address,
    symbol: optString(raw.symbol) ?? '',
    decimals: reqNumber(raw.decimals, `${field}.decimals`),
    icon: optString(raw.icon),
    name: optString(raw.name),
  };
}

export function optToken(raw: RawToken | null | undefined, field: string): TokenRef | null {
  return raw === undefined || raw === null ? null : orNull(() => mapToken(raw, field));
}

export function mapProvider(raw: RawProvider): Provider {
  if (!isObject(raw)) throw new Malformed('provider');
  const providerId = reqString(raw.id, 'provider.id');
  return { providerId, name: optString(raw.name) ?? providerId, icon: optString(raw.icon) };
}

/** `{ deposit: { blinkUrl } }` → `{ deposit: url }`; entries without a URL are left out. */
export function mapActions(raw: unknown): Record<string, string> {
  const actions: Record<string, string> = {};
  if (!isObject(raw)) return actions;
  for (const [name, blink] of Object.entries(raw)) {
    const url = isObject(blink) ? optString(blink['blinkUrl']) : null;
    if (url) actions[name] = url;
  }
  return actions;
}

export function mapIncentives(raw: unknown): MarketIncentive[] {
  return mapEach(raw, (r) => {
    if (!isObject(r)) return null;
    const side = r['type'] === 'deposit' ? 'DEPOSIT' : r['type'] === 'borrow' ? 'BORROW' : null;
    if (!side) return null;
    return { side, apy: reqNumber(r['apy'], 'rewards.apy'), token: mapToken(r['token'] as RawToken, 'rewards.token') };
  });
}

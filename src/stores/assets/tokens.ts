import { countedCache } from '../../held.js';
import type { Asset, TokenRef } from '../../models/index.js';
import { isValidAssetId, parseAssetId } from '../../upstream/index.js';

/** A token record, and when the gateway last saw it. */
export interface TokenRecord {
  token: TokenRef;
  seenAt: number;
}

/** Token records seen in market listings and positions: the last metadata fallback when the assets services fail. */
export interface TokenRecords {
  remember(tokens: readonly TokenRef[]): void;
  get(assetId: string): TokenRecord | undefined;
}

export function createTokenRecords(max: number, now: () => number): TokenRecords {
  // An entry: an asset id, the token record (symbol, name, address, image URL) and the LRU's bookkeeping.
  const records = countedCache<string, TokenRecord>({ name: 'token_records', max, entryBytes: 800 });
  return {
    remember(tokens) {
      const seenAt = now();
      for (const token of tokens) {
        // The same record seen again (the market index hands out one per token): only when is news.
        const held = records.get(token.assetId);
        if (held?.token === token) held.seenAt = seenAt;
        else if (isValidAssetId(token.assetId)) records.set(token.assetId, { token, seenAt });
      }
    },
    get: (assetId) => records.get(assetId),
  };
}

/** What a token record of the markets service says about an asset: metadata, no price. */
export function assetFromToken(token: TokenRef): Asset {
  return {
    assetId: token.assetId,
    chain: parseAssetId(token.assetId)?.chain ?? 'solana',
    address: token.address,
    // The record does not say whether the token is a plain token, a stock or an RWA.
    type: 'UNKNOWN',
    rawType: '',
    name: token.name ?? token.symbol,
    symbol: token.symbol,
    imageUrl: token.icon,
    decimals: token.decimals,
    tags: [],
    description: null,
    websiteUrl: null,
    price: null,
    marketCapUsd: null,
  };
}

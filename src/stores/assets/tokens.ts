import { countedCache } from '../../held.js';
import { isValidAssetId, parseAssetId, type Asset, type TokenRef } from '../../models/index.js';
import { sameToken } from '../shared-parts.js';

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
        // Seen again (the market index hands out one record per market, and markets share tokens): the
        // latest record and when, in place; only an id not held yet is checked and added.
        const held = records.get(token.assetId);
        if (held) {
          // An equal record keeps the object held: a request's own copy would otherwise outlive its request.
          if (!sameToken(held.token, token)) held.token = token;
          held.seenAt = seenAt;
        } else if (isValidAssetId(token.assetId)) records.set(token.assetId, { token, seenAt });
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

import { LRUCache } from 'lru-cache';
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

/** How often a record seen again is moved up the LRU: a page of 100 markets sees 200 tokens a request. */
const TOUCH_EVERY_MS = 1_000;

export function createTokenRecords(max: number, now: () => number): TokenRecords {
  // The record held for each token object the market index and positions hand out (one per token), so
  // seeing it again is a property write, not an LRU lookup (two per token a request on the markets page).
  const heldFor = new WeakMap<TokenRef, TokenRecord>();
  const records = new LRUCache<string, TokenRecord>({ max, dispose: (record) => heldFor.delete(record.token) });
  return {
    remember(tokens) {
      const seenAt = now();
      for (const token of tokens) {
        const known = heldFor.get(token);
        if (known) {
          if (seenAt - known.seenAt >= TOUCH_EVERY_MS) records.get(token.assetId);
          known.seenAt = seenAt;
        } else if (isValidAssetId(token.assetId)) {
          const record = { token, seenAt };
          records.set(token.assetId, record);
          heldFor.set(token, record);
        }
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

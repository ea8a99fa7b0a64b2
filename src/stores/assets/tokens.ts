import { holding } from '../../held.js';
import { BoundedMap } from '../bounded-map.js';
import { isValidAssetId, parseAssetId, type Asset, type TokenRef } from '../../models/index.js';

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

/** The most one record holds with its id and bookkeeping: records are of bounded size. */
const TOKEN_RECORD_BYTES = 800;

export function createTokenRecords(max: number, now: () => number): TokenRecords {
  // An entry: an asset id, the token record (symbol, name, address, image URL) and the map's bookkeeping.
  const records = new BoundedMap<string, TokenRecord>({ max, maxSize: max });
  holding(records, { name: 'token_records', bytes: () => records.size * TOKEN_RECORD_BYTES, maxBytes: max * TOKEN_RECORD_BYTES });
  return {
    remember(tokens) {
      const seenAt = now();
      for (const token of tokens) {
        // Seen again (the market index hands out one record per market, and markets share tokens): the
        // latest record and when, in place; only an id not held yet is checked and added.
        const held = records.get(token.assetId);
        if (held) {
          held.token = token;
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

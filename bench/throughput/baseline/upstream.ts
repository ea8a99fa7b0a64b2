/**
 * The baseline's upstream calls: undici `request` on one shared `Agent` (the gateway's pool size), and
 * the public reads a competent team would share: asset records for 10 s and market listings for 30 s,
 * process-wide, one call in flight per key (lru-cache's `fetch`). Per-user reads (auth, channels, the
 * unread summary, positions) are made on every request.
 */
import { LRUCache } from 'lru-cache';
import { Agent, request } from 'undici';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value.replace(/\/+$/, '');
};
export const ALERTS = env('ALERTS_URL');
export const MARKETS = env('MARKETS_URL');
export const ASSETS = env('ASSETS_URL');
/** The gateway's upstream pool settings (src/upstream/http.ts): same sockets per origin. */
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

export class UpstreamError extends Error {
  constructor(readonly status: number, url: string) {
    super(`GET ${url}: ${status}`);
  }
}

export async function get<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await request(url, { method: 'GET', dispatcher: agent, headers: { accept: 'application/json', ...headers } });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new UpstreamError(response.statusCode, url);
  }
  return (await response.body.json()) as T;
}

/** An asset record, or null when the service does not know it (the screen then shows the listing's token record). */
/** Public asset records, 10 s (the gateway's price TTL); a 404 is held too, as `{ asset: null }`. */
const assetCache = new LRUCache<string, { asset: RawAsset | null }>({
  max: 20_000,
  ttl: 10_000,
  fetchMethod: async (address) => {
    try {
      return { asset: await get<RawAsset>(`${ASSETS}/v0/assets/${encodeURIComponent(`solana:${address}`)}`) };
    } catch (error) {
      if (error instanceof UpstreamError && error.status === 404) return { asset: null };
      throw error;
    }
  },
});

/** Market listings by URL, 30 s (the gateway's market index refresh). */
const listingCache = new LRUCache<string, { markets: RawMarket[]; cursor: string | null }>({
  max: 1_000,
  ttl: 30_000,
  fetchMethod: (url) => get<{ markets: RawMarket[]; cursor: string | null }>(url),
});

/** A market listing (`/v0/markets?<query>`), shared for 30 s. */
export async function listing(query: string): Promise<{ markets: RawMarket[]; cursor: string | null }> {
  return (await listingCache.fetch(`${MARKETS}/v0/markets?${query}`))!;
}

/** Fetches each distinct address once (or takes it from the shared copy), side by side. */
export async function assetsFor(addresses: Iterable<string>): Promise<Map<string, RawAsset | null>> {
  const distinct = [...new Set(addresses)];
  const records = await Promise.all(distinct.map((a) => assetCache.fetch(a)));
  return new Map(distinct.map((a, i) => [a, records[i]!.asset]));
}

export interface RawToken {
  address: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  name?: string | null;
}
export interface RawAsset {
  id: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  decimals: number | null;
  price: { usd: number; change24h: number | null } | null;
}
export type RawMarket = Record<string, any> & { id: string; type: string; productName: string; provider: { id: string; name: string; icon: string } };
export type RawPosition = Record<string, any> & { id: string; type: string; marketId: string; amount: number; amountUsd?: number; market?: RawMarket };
export interface RawChannel {
  id: string;
  type: string;
  value: string;
  verified: boolean;
  subscribed: boolean;
  subscribedApps?: { id: string; name: string; icon?: string | null }[];
}

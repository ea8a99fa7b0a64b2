/**
 * The asset path of one request in a loop: 26 held tokens (a wallet's positions and the lending list
 * of the mobile screen), each answered, priced and its price view taken through a fresh `AssetsSource`
 * over the shared asset cache, as the schema's token fields do. CPU µs per such request, min and median
 * of 15 rounds, for a build's dist/ (default ./dist; another build: `DIST=node_modules/.cache/before/dist`):
 *
 *   npm run build:modules && node --import tsx bench/phases/token-loop.ts   # dist/ file by file: it imports modules of it
 *
 * Alternate two builds' runs on a loaded machine and read the medians (bench/PHASES.md, branch `stores2`).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import type { AssetView, TokenRef } from '../../src/models/index.js';
import type { createAssetCache as CreateAssetCache } from '../../src/stores/asset-cache.js';
import type { AssetsSource as AssetsSourceClass } from '../../src/sources/assets.js';

const dist = pathToFileURL(resolve(process.env['DIST'] ?? 'dist')).href;
const { createAssetCache } = (await import(`${dist}/stores/asset-cache.js`)) as { createAssetCache: typeof CreateAssetCache };
const { AssetsSource } = (await import(`${dist}/sources/assets.js`)) as { AssetsSource: typeof AssetsSourceClass };

const TOKENS = 26;
const ROUNDS = 15;
const REQUESTS = Number(process.env['REQUESTS'] ?? 5000);

const ids = Array.from({ length: TOKENS }, (_, i) => `solana:So${'1'.repeat(37)}${String.fromCharCode(65 + i)}`);
const assetOf = (assetId: string) => ({
  assetId,
  chain: 'solana',
  address: assetId.slice(7),
  type: 'TOKEN',
  rawType: 'token',
  name: 'Token',
  symbol: 'TKN',
  imageUrl: null,
  decimals: 9,
  tags: [],
  description: null,
  websiteUrl: null,
  price: { usd: 1, change24h: 0, updatedAt: new Date() },
  marketCapUsd: null,
});
const quiet = { warn() {}, error() {}, info() {}, debug() {} };
const cache = createAssetCache({
  upstream: { assets: { getAsset: (id: string) => Promise.resolve(assetOf(id)) }, assetsFallback: null } as never,
  logger: quiet as never,
  registry: new Registry(),
});
for (const id of ids) await cache.get(id, 'metadata');
const services = { assetCache: cache, upstream: {} } as never;

// Each request its own token records, as each positions read maps its own.
const refsOf = (): TokenRef[] => ids.map((assetId) => ({ assetId, address: assetId.slice(7), symbol: 'TKN', decimals: 9, icon: null, name: 'Token' }));
const requests = Array.from({ length: 64 }, refsOf);

let served = 0;
function request(refs: TokenRef[]): void {
  const source = new AssetsSource(services, {});
  for (const ref of refs) {
    const asset = source.token(ref) as AssetView;
    const priced = source.price(asset) as AssetView;
    if (source.priceView(priced)) served++;
  }
}

const rounds: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const started = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i++) request(requests[i & 63]!);
  rounds.push(Number(process.hrtime.bigint() - started) / REQUESTS / 1000);
}
rounds.sort((a, b) => a - b);
if (served !== ROUNDS * REQUESTS * TOKENS) throw new Error(`expected every token priced, got ${served}`);
console.log(JSON.stringify({ dist: process.env['DIST'] ?? 'dist', tokens: TOKENS, minUs: +rounds[0]!.toFixed(2), medianUs: +rounds[ROUNDS >> 1]!.toFixed(2) }));

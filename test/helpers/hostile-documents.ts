import { mulberry32 as prng } from '../../src/simulator/prng.js';

/**
 * Documents that push the cost model (issue 33 item 2): aliases of every list and series field, ids
 * the gateway does not hold, the widest windows. Generated from a seed, so a failure names the document
 * that caused it and the same seed gives the same documents. The property test (test/hostile/cost-work)
 * and the measurement script (scripts/cost-work.ts) both run them.
 */

export interface World {
  /** Asset ids the assets service knows (priced). */
  assets: readonly string[];
  /** Wallet addresses with positions. */
  wallets: readonly string[];
}

export interface HostileDocument {
  name: string;
  query: string;
  variables: Record<string, unknown>;
}

const globalId = (type: string, id: string) => Buffer.from(`${type}:${id}`).toString('base64');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A valid Solana-style asset id no service knows, distinct for each `n` and `salt`. */
export function unknownAssetId(salt: number, n: number): string {
  return `solana:Unknown${salt.toString(36)}x${n.toString(36)}`.padEnd(40, '_');
}

const aliased = (count: number, field: (i: number) => string) => `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field(i)}`).join(' ')} }`;

/** Aliases of one field whose list argument comes from a variable per alias (documents stay under the 64 KiB document limit). */
function listed(count: number, type: string, lists: (i: number) => string[], field: (variable: string) => string): Pick<HostileDocument, 'query' | 'variables'> {
  const names = Array.from({ length: count }, (_, i) => `v${i}`);
  return {
    query: `query(${names.map((v) => `$${v}: [${type}!]!`).join(', ')}) { ${names.map((v, i) => `a${i}: ${field(`$${v}`)}`).join(' ')} }`,
    variables: Object.fromEntries(names.map((v, i) => [v, lists(i)])),
  };
}

/** The families: each takes the PRNG and the world and makes one document. */
const FAMILIES: ((r: () => number, world: World, salt: number) => HostileDocument)[] = [
  (r, _w, salt) => {
    const aliases = 1 + Math.floor(r() * 24);
    const per = 10 + Math.floor(r() * 91);
    return {
      name: `nodes(${per} unknown assets) × ${aliases} { name price }`,
      ...listed(aliases, 'ID', (i) => Array.from({ length: per }, (_, n) => globalId('Asset', unknownAssetId(salt, i * 1000 + n))), (v) => `nodes(ids: ${v}) { ... on Asset { name price { usd } } }`),
    };
  },
  (r, _w, salt) => {
    const aliases = 1 + Math.floor(r() * 24);
    return {
      name: `assets(100 unknown ids) × ${aliases}`,
      ...listed(aliases, 'String', (i) => Array.from({ length: 100 }, (_, n) => unknownAssetId(salt, i * 1000 + n)), (v) => `assets(ids: ${v}) { name price { usd } }`),
    };
  },
  (r, w) => {
    const aliases = 1 + Math.floor(r() * 24);
    const n = 10 + Math.floor(r() * 91);
    const wallets = Array.from({ length: n }, (_, i) => w.wallets[i % w.wallets.length]!);
    return {
      name: `wallets(${n}) { totalValueUsd positions } × ${aliases}`,
      ...listed(aliases, 'String', () => wallets, (v) => `wallets(addresses: ${v}) { totalValueUsd positions(first: 2) { totalCount } }`),
    };
  },
  (r, w) => {
    const aliases = 1 + Math.floor(r() * 24);
    const n = 10 + Math.floor(r() * 91);
    return {
      name: `nodes(${n} wallets) { totalValueUsd } × ${aliases}`,
      ...listed(aliases, 'ID', () => Array.from({ length: n }, (_, i) => globalId('Wallet', w.wallets[i % w.wallets.length]!)), (v) => `nodes(ids: ${v}) { ... on Wallet { totalValueUsd } }`),
    };
  },
  (r, w) => {
    // priceHistory(first: 1) over distinct 2,000-point windows: the whole window is fetched for one point.
    const windows = 1 + Math.floor(r() ** 2 * 8);
    const n = 1 + Math.floor(r() ** 3 * 100);
    const ids = w.assets.slice(0, n).map((id) => globalId('Asset', id));
    return { name: `nodes(${n} priced assets) { priceHistory(first: 1) } over ${windows} windows of 2,000 hours`, ...priceWindows(windows, ids) };
  },
  (r, w) => {
    const aliases = 1 + Math.floor(r() ** 2 * 12);
    const wallet = w.wallets[Math.floor(r() * w.wallets.length)]!;
    return {
      name: `wallet.valueHistory, widest window × ${aliases}`,
      query: aliased(aliases, (i) => `wallet(address: "${wallet}") { valueHistory(from: "${new Date(Date.UTC(2025, 9, 8) + i * HOUR).toISOString()}", resolution: ONE_DAY) { valueUsd } }`),
      variables: {},
    };
  },
  (r) => {
    const aliases = 1 + Math.floor(r() ** 2 * 30);
    const first = 5 + Math.floor(r() ** 2 * 195);
    return {
      name: `markets(first: ${first}) with apyHistory × ${aliases}`,
      query: aliased(aliases, (i) => `markets(first: ${first - (i % 5)}) { edges { node { marketId productName apyHistory(from: "${new Date(Date.UTC(2025, 9, 10) + i * DAY).toISOString()}", resolution: ONE_DAY) { depositApy } } } }`),
      variables: {},
    };
  },
  (r) => {
    const aliases = 1 + Math.floor(r() * 30);
    return {
      name: `searchAssets(first: 100) × ${aliases}`,
      query: aliased(aliases, (i) => `searchAssets(query: "${'abcdefghijklmnopqrstuvwxyz'[i % 26]}", first: 100) { edges { node { id name symbol price { usd } } } }`),
      variables: {},
    };
  },
];

/** `priceHistory(first: 1)` of every asset of `ids` over `windows` distinct windows of 2,000 hours. */
function priceWindows(windows: number, ids: string[]): Pick<HostileDocument, 'query' | 'variables'> {
  const to = Date.UTC(2025, 10, 1);
  return listed(windows, 'ID', () => ids, (v) => {
    const end = to - Number(v.slice(2)) * DAY;
    return `nodes(ids: ${v}) { ... on Asset { priceHistory(from: "${new Date(end - 1999 * HOUR).toISOString()}", to: "${new Date(end).toISOString()}", first: 1) { edges { node { priceUsd } } } } }`;
  });
}

/** `count` documents from `seed`, every family in turn, their sizes drawn from the PRNG. */
export function hostileDocuments(world: World, seed: number, count: number): HostileDocument[] {
  const r = prng(seed);
  return Array.from({ length: count }, (_, i) => FAMILIES[i % FAMILIES.length]!(r, world, seed * 1000 + i));
}

/** The two documents of issue 33 item 2, as reported. */
export function reportedDocuments(world: World): HostileDocument[] {
  const ids = world.assets.slice(0, 100).map((id) => globalId('Asset', id));
  return [
    {
      name: 'nodes(ids: [100 unknown Asset ids]) { name price } × 24 aliases',
      ...listed(24, 'ID', (i) => Array.from({ length: 100 }, (_, n) => globalId('Asset', unknownAssetId(7, i * 1000 + n))), (v) => `nodes(ids: ${v}) { ... on Asset { name price { usd } } }`),
    },
    { name: 'nodes(ids: [100 priced assets]) { priceHistory(first: 1) } over eight 2,000-point windows', ...priceWindows(8, ids) },
  ];
}

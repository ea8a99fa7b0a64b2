/** The assets: well-known tokens, stocks and real-world assets first, then generated ones. */
import { Rng, sig } from '../prng.js';
import type { AssetRecord, PriceModel } from './asset-types.js';

export const CDN = 'https://cdn.sim-assets.example';

/** The CDN image of a token/asset. */
export function imageUrl(chain: string, key: string): string {
  return `${CDN}/tokens/${chain}/${key}.png`;
}

interface Known {
  chain: string;
  address: string | null;
  /** For chains without addresses (`bitcoin:native`, `stock:AAPL`): the rest of the id. */
  rest?: string;
  type: 'token' | 'stock' | 'rwa';
  symbol: string;
  name: string;
  decimals: number | null;
  tags: string[];
  model: PriceModel;
  website?: string;
  description?: string;
}

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
export const WELL_KNOWN_SOLANA = {
  SOL,
  USDC,
  USDT,
  JitoSOL: 'J1toso1uCk3RLmjorhTtrVwY9HJ7X8V9yYac6Y7kGCPn',
  mSOL: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So',
  JUP: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN',
  BONK: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263',
} as const;

const stable = (supply: number): PriceModel => ({ base: 1, vol: 0.0008, supply });
const sol = (ratio: number, supply: number): PriceModel => ({
  base: 0,
  vol: 0.002,
  peg: { assetId: `solana:${SOL}`, ratio },
  supply,
});

const KNOWN: Known[] = [
  // Solana
  { chain: 'solana', address: SOL, type: 'token', symbol: 'SOL', name: 'Solana', decimals: 9, tags: ['layer-1', 'native'], model: { base: 185, vol: 0.32, supply: 6.1e8 }, website: 'https://solana.com', description: 'The native token of the Solana blockchain (wrapped SOL mint).' },
  { chain: 'solana', address: USDC, type: 'token', symbol: 'USDC', name: 'USD Coin', decimals: 6, tags: ['stablecoin'], model: stable(9.2e9), website: 'https://www.circle.com/usdc', description: 'A fully reserved US dollar stablecoin issued by Circle.' },
  { chain: 'solana', address: USDT, type: 'token', symbol: 'USDT', name: 'Tether USD', decimals: 6, tags: ['stablecoin'], model: stable(2.4e9), website: 'https://tether.to' },
  { chain: 'solana', address: WELL_KNOWN_SOLANA.JitoSOL, type: 'token', symbol: 'JitoSOL', name: 'Jito Staked SOL', decimals: 9, tags: ['lst', 'staking'], model: sol(1.23, 1.4e7), website: 'https://www.jito.network' },
  { chain: 'solana', address: WELL_KNOWN_SOLANA.mSOL, type: 'token', symbol: 'mSOL', name: 'Marinade staked SOL', decimals: 9, tags: ['lst', 'staking'], model: sol(1.29, 4.1e6), website: 'https://marinade.finance' },
  { chain: 'solana', address: 'bSo13r4TkiE4KumL71LsHTPpL2euBYLFx6h9HP3piy1', type: 'token', symbol: 'bSOL', name: 'BlazeStake Staked SOL', decimals: 9, tags: ['lst', 'staking'], model: sol(1.26, 1.1e6) },
  { chain: 'solana', address: 'jupSoLaHXQiZZTSfEWMTRRgpnyFm8f6sZdosWBjx93v', type: 'token', symbol: 'JupSOL', name: 'Jupiter Staked SOL', decimals: 9, tags: ['lst', 'staking'], model: sol(1.11, 3.9e6) },
  { chain: 'solana', address: '5oVNBeEEQvYi1cX3ir8Dx5n1P7pdxydbGF2X4TxVusJm', type: 'token', symbol: 'INF', name: 'Infinity', decimals: 9, tags: ['lst', 'staking'], model: sol(1.31, 1.6e6) },
  { chain: 'solana', address: WELL_KNOWN_SOLANA.JUP, type: 'token', symbol: 'JUP', name: 'Jupiter', decimals: 6, tags: ['defi', 'governance'], model: { base: 0.62, vol: 0.45, supply: 3.0e9 }, website: 'https://jup.ag' },
  { chain: 'solana', address: '27G8MtK7VtTcCHkpASjSDdkWWYfoqT6ggEuKidVJidD4', type: 'token', symbol: 'JLP', name: 'Jupiter Perps LP', decimals: 6, tags: ['defi', 'lp'], model: { base: 4.6, vol: 0.14, supply: 4.2e8 }, website: 'https://jup.ag/perps-earn' },
  { chain: 'solana', address: WELL_KNOWN_SOLANA.BONK, type: 'token', symbol: 'BONK', name: 'Bonk', decimals: 5, tags: ['meme'], model: { base: 0.0000185, vol: 0.6, supply: 8.8e13 }, website: 'https://bonkcoin.com' },
  { chain: 'solana', address: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', type: 'token', symbol: 'WIF', name: 'dogwifhat', decimals: 6, tags: ['meme'], model: { base: 0.78, vol: 0.65, supply: 9.99e8 } },
  { chain: 'solana', address: '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr', type: 'token', symbol: 'POPCAT', name: 'Popcat', decimals: 9, tags: ['meme'], model: { base: 0.31, vol: 0.7, supply: 9.8e8 } },
  { chain: 'solana', address: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', type: 'token', symbol: 'PYTH', name: 'Pyth Network', decimals: 6, tags: ['oracle', 'infrastructure'], model: { base: 0.12, vol: 0.45, supply: 5.7e9 }, website: 'https://pyth.network' },
  { chain: 'solana', address: 'jtojtomepa8beP8AuQc6eXt5FriJwfFMwQx2v2f9mCL', type: 'token', symbol: 'JTO', name: 'Jito', decimals: 9, tags: ['defi', 'governance'], model: { base: 1.9, vol: 0.45, supply: 3.3e8 }, website: 'https://www.jito.network' },
  { chain: 'solana', address: '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', type: 'token', symbol: 'RAY', name: 'Raydium', decimals: 6, tags: ['defi', 'dex'], model: { base: 2.2, vol: 0.5, supply: 2.7e8 }, website: 'https://raydium.io' },
  { chain: 'solana', address: 'orcaEKTdK7LKz57vaAYr9QeNsVEPfiu6QeMU1kektZE', type: 'token', symbol: 'ORCA', name: 'Orca', decimals: 6, tags: ['defi', 'dex'], model: { base: 1.7, vol: 0.5, supply: 6.0e7 }, website: 'https://www.orca.so' },
  { chain: 'solana', address: 'rndrizKT3MK1iimdxRdWabcF7Zg7AR5T4nud4EkHBof', type: 'token', symbol: 'RENDER', name: 'Render', decimals: 8, tags: ['depin', 'ai'], model: { base: 3.4, vol: 0.5, supply: 5.2e8 } },
  { chain: 'solana', address: '85VBFQZC9TZkfaptBWjvUw7YbZjy52A6mjtPGjstQAmQ', type: 'token', symbol: 'W', name: 'Wormhole', decimals: 6, tags: ['infrastructure', 'bridge'], model: { base: 0.085, vol: 0.5, supply: 4.6e9 } },
  { chain: 'solana', address: 'KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS', type: 'token', symbol: 'KMNO', name: 'Kamino', decimals: 6, tags: ['defi', 'governance'], model: { base: 0.058, vol: 0.5, supply: 2.4e9 }, website: 'https://kamino.finance' },
  { chain: 'solana', address: 'DriFtupJYLTosbwoN8koMbEYSx54aFAVLddWsbksjwg7', type: 'token', symbol: 'DRIFT', name: 'Drift', decimals: 6, tags: ['defi', 'governance'], model: { base: 0.52, vol: 0.5, supply: 3.2e8 }, website: 'https://www.drift.trade' },
  { chain: 'solana', address: '7vfCXTUXx5WJV5JADk17DUJ4ksgau7utNKj4b963voxs', type: 'token', symbol: 'WETH', name: 'Wrapped Ether (Wormhole)', decimals: 8, tags: ['wrapped', 'bridge'], model: { base: 0, vol: 0.002, peg: { assetId: 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', ratio: 1 }, supply: 6.1e4 } },
  { chain: 'solana', address: 'cbbtcf3aa214zXHbiAZQwf4122FBYbraNdFqgw4iMij', type: 'token', symbol: 'cbBTC', name: 'Coinbase Wrapped BTC', decimals: 8, tags: ['wrapped'], model: { base: 0, vol: 0.002, peg: { assetId: 'bitcoin:native', ratio: 1 }, supply: 5.5e3 } },
  { chain: 'solana', address: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', type: 'token', symbol: 'PYUSD', name: 'PayPal USD', decimals: 6, tags: ['stablecoin'], model: stable(7.2e8) },
  { chain: 'solana', address: 'A1KLoBrKBde8Ty9qtNQUtq3C2ortoC3u7twggz7sEto6', type: 'rwa', symbol: 'USDY', name: 'Ondo US Dollar Yield', decimals: 6, tags: ['rwa', 'treasury', 'yield-bearing'], model: { base: 1.11, vol: 0.0015, supply: 1.9e8 }, website: 'https://ondo.finance' },
  { chain: 'solana', address: 'i7u4r16TcsJTgq1kAG8opmVZyVnAKBwLKu6ZPMwzxNc', type: 'rwa', symbol: 'OUSG', name: 'Ondo Short-Term US Government Treasuries', decimals: 6, tags: ['rwa', 'treasury', 't-bill'], model: { base: 112.4, vol: 0.001, supply: 6.5e6 }, website: 'https://ondo.finance', description: 'Tokenized exposure to short-term US Treasury bills.' },
  // Ethereum
  { chain: 'ethereum', address: '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', type: 'token', symbol: 'ETH', name: 'Ether', decimals: 18, tags: ['layer-1', 'native'], model: { base: 3600, vol: 0.3, supply: 1.2e8 }, website: 'https://ethereum.org' },
  { chain: 'ethereum', address: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', type: 'token', symbol: 'USDC', name: 'USD Coin', decimals: 6, tags: ['stablecoin'], model: stable(4.1e10) },
  { chain: 'ethereum', address: '0xdac17f958d2ee523a2206206994597c13d831ec7', type: 'token', symbol: 'USDT', name: 'Tether USD', decimals: 6, tags: ['stablecoin'], model: stable(7.6e10) },
  { chain: 'ethereum', address: '0x2260fac5e5542a773aa44fbcfedf7c193bc2c599', type: 'token', symbol: 'WBTC', name: 'Wrapped BTC', decimals: 8, tags: ['wrapped'], model: { base: 0, vol: 0.002, peg: { assetId: 'bitcoin:native', ratio: 1 }, supply: 1.3e5 } },
  { chain: 'ethereum', address: '0xae7ab96520de3a18e5e111b5eaab095312d7fe84', type: 'token', symbol: 'stETH', name: 'Lido Staked Ether', decimals: 18, tags: ['lst', 'staking'], model: { base: 0, vol: 0.002, peg: { assetId: 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', ratio: 0.999 }, supply: 9.4e6 } },
  { chain: 'ethereum', address: '0x514910771af9ca656af840dff83e8264ecf986ca', type: 'token', symbol: 'LINK', name: 'Chainlink', decimals: 18, tags: ['oracle', 'infrastructure'], model: { base: 18.5, vol: 0.4, supply: 6.3e8 } },
  { chain: 'ethereum', address: '0x1f9840a85d5af5bf1d1762f925bdaddc4201f984', type: 'token', symbol: 'UNI', name: 'Uniswap', decimals: 18, tags: ['defi', 'dex'], model: { base: 9.8, vol: 0.45, supply: 6.0e8 } },
  { chain: 'ethereum', address: '0x7fc66500c84a76ad7e9c93437bfc5ac33e2ddae9', type: 'token', symbol: 'AAVE', name: 'Aave', decimals: 18, tags: ['defi', 'lending'], model: { base: 240, vol: 0.45, supply: 1.5e7 } },
  { chain: 'ethereum', address: '0x7712c34205737192402172409a8f7ccef8aa2aec', type: 'rwa', symbol: 'BUIDL', name: 'BlackRock USD Institutional Digital Liquidity Fund', decimals: 6, tags: ['rwa', 'treasury', 't-bill'], model: { base: 1, vol: 0.0002, supply: 2.5e9 }, description: 'A tokenized money market fund holding cash and US Treasury bills.' },
  { chain: 'ethereum', address: '0x45804880de22913dafe09f4980848ece6ecbaf78', type: 'rwa', symbol: 'PAXG', name: 'PAX Gold', decimals: 18, tags: ['rwa', 'gold', 'commodity'], model: { base: 3950, vol: 0.06, supply: 2.4e5 } },
  // Base
  { chain: 'base', address: null, rest: 'native', type: 'token', symbol: 'ETH', name: 'Ether (Base)', decimals: 18, tags: ['native', 'layer-2'], model: { base: 0, vol: 0.001, peg: { assetId: 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', ratio: 1 } } },
  { chain: 'base', address: '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', type: 'token', symbol: 'USDC', name: 'USD Coin (Base)', decimals: 6, tags: ['stablecoin'], model: stable(4.0e9) },
  { chain: 'base', address: '0x940181a94a35a4569e4529a3cdfb74e38fd98631', type: 'token', symbol: 'AERO', name: 'Aerodrome Finance', decimals: 18, tags: ['defi', 'dex'], model: { base: 1.1, vol: 0.55, supply: 8.5e8 } },
  { chain: 'base', address: '0xcbb7c0000ab88b473b1f5afd9ef808440eed33bf', type: 'token', symbol: 'cbBTC', name: 'Coinbase Wrapped BTC (Base)', decimals: 8, tags: ['wrapped'], model: { base: 0, vol: 0.002, peg: { assetId: 'bitcoin:native', ratio: 1 } } },
  // Bitcoin
  { chain: 'bitcoin', address: null, rest: 'native', type: 'token', symbol: 'BTC', name: 'Bitcoin', decimals: 8, tags: ['layer-1', 'native', 'store-of-value'], model: { base: 98000, vol: 0.22, supply: 1.98e7 }, website: 'https://bitcoin.org', description: 'The first decentralised digital currency.' },
];

const STOCKS: [string, string, number, number][] = [
  ['AAPL', 'Apple Inc.', 235, 1.5e10],
  ['TSLA', 'Tesla, Inc.', 340, 3.2e9],
  ['NVDA', 'NVIDIA Corporation', 145, 2.45e10],
  ['MSFT', 'Microsoft Corporation', 430, 7.43e9],
  ['GOOGL', 'Alphabet Inc. Class A', 180, 1.22e10],
  ['AMZN', 'Amazon.com, Inc.', 210, 1.05e10],
  ['META', 'Meta Platforms, Inc.', 590, 2.52e9],
  ['COIN', 'Coinbase Global, Inc.', 280, 2.5e8],
  ['MSTR', 'MicroStrategy Incorporated', 360, 2.2e8],
  ['AMD', 'Advanced Micro Devices, Inc.', 140, 1.62e9],
  ['NFLX', 'Netflix, Inc.', 870, 4.3e8],
  ['INTC', 'Intel Corporation', 24, 4.3e9],
  ['ORCL', 'Oracle Corporation', 175, 2.8e9],
  ['JPM', 'JPMorgan Chase & Co.', 240, 2.8e9],
  ['V', 'Visa Inc.', 310, 1.95e9],
  ['DIS', 'The Walt Disney Company', 112, 1.81e9],
  ['KO', 'The Coca-Cola Company', 64, 4.31e9],
  ['PLTR', 'Palantir Technologies Inc.', 65, 2.3e9],
  ['UBER', 'Uber Technologies, Inc.', 70, 2.1e9],
  ['SHOP', 'Shopify Inc.', 110, 1.29e9],
  ['HOOD', 'Robinhood Markets, Inc.', 38, 8.8e8],
  ['SPY', 'SPDR S&P 500 ETF Trust', 590, 9.2e8],
];

const SYLLABLES = [
  'zen', 'tra', 'lux', 'vor', 'pix', 'no', 'va', 'kai', 'mo', 'ra', 'quil', 'fin', 'dex', 'ter', 'lo', 'sol', 'byte',
  'orb', 'flux', 'vex', 'nim', 'bo', 'ka', 'shi', 'ru', 'mi', 'ton', 'gar', 'pe', 'li', 'xo', 'zu', 'ar', 'cy', 'do',
  'el', 'fy', 'gu', 'ho', 'io', 'ju', 'ko', 'ly', 'ma', 'ne', 'om', 'pu', 'qi', 're', 'sa', 'ti', 'un', 've', 'wa',
];

interface Category {
  tags: string[];
  suffixes: string[];
  price: [number, number];
  vol: [number, number];
  decimals: number[];
}

const CATEGORIES: [Category, number][] = [
  [{ tags: ['meme'], suffixes: ['', ' Inu', ' Cat', ' Dog', 'wifhat', ' Frog'], price: [1e-7, 0.05], vol: [0.6, 0.9], decimals: [5, 6, 9] }, 5],
  [{ tags: ['defi'], suffixes: [' Finance', ' Protocol', ' Swap', ' Labs', ''], price: [0.01, 40], vol: [0.35, 0.6], decimals: [6, 9] }, 5],
  [{ tags: ['gaming'], suffixes: [' Games', ' Arena', ' Quest', ''], price: [0.001, 5], vol: [0.45, 0.7], decimals: [6, 9] }, 2],
  [{ tags: ['ai'], suffixes: [' AI', ' Agents', ' Mind', ''], price: [0.001, 8], vol: [0.5, 0.8], decimals: [6, 9] }, 3],
  [{ tags: ['infrastructure'], suffixes: [' Network', ' Chain', ' Oracle', ''], price: [0.02, 25], vol: [0.35, 0.55], decimals: [6, 8, 9] }, 2],
  [{ tags: ['depin'], suffixes: [' Network', ' Grid', ' Mesh'], price: [0.01, 6], vol: [0.4, 0.6], decimals: [6, 9] }, 1],
  [{ tags: ['lst', 'staking'], suffixes: [' Staked SOL'], price: [0, 0], vol: [0.002, 0.004], decimals: [9] }, 1],
  [{ tags: ['stablecoin'], suffixes: [' USD', ' Dollar'], price: [1, 1], vol: [0.0005, 0.002], decimals: [6] }, 0.6],
  [{ tags: ['rwa', 'treasury'], suffixes: [' Treasury Bill', ' T-Bill Fund', ' Yield Note'], price: [1, 110], vol: [0.0005, 0.002], decimals: [6] }, 0.5],
];

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Builds the asset list: well-known first, then `generatedCount` generated ones over five chains. */
export function generateAssets(rng: Rng, generatedCount = 280): AssetRecord[] {
  const out: AssetRecord[] = [];
  const symbols = new Set<string>();
  for (const k of KNOWN) {
    const rest = k.address ?? k.rest!;
    out.push({
      id: `${k.chain}:${rest}`,
      chain: k.chain,
      address: k.address,
      type: k.type,
      name: k.name,
      symbol: k.symbol,
      imageUrl: imageUrl(k.chain, rest),
      decimals: k.decimals,
      tags: k.tags,
      description: k.description ?? `${k.name} (${k.symbol}) on ${capitalize(k.chain)}.`,
      websiteUrl: k.website ?? null,
      model: k.model,
    });
    symbols.add(k.symbol);
  }
  for (const [ticker, name, price, shares] of STOCKS) {
    out.push({
      id: `stock:${ticker}`,
      chain: 'stock',
      address: null,
      type: 'stock',
      name,
      symbol: ticker,
      imageUrl: `${CDN}/stocks/${ticker}.png`,
      decimals: null,
      tags: ticker === 'SPY' ? ['stock', 'etf', 'index'] : ['stock', 'equity'],
      description: `${name} common stock (${ticker}).`,
      websiteUrl: null,
      model: { base: price, vol: 0.18, supply: shares },
    });
    symbols.add(ticker);
  }

  const chains: [string, number][] = [
    ['solana', 0.68],
    ['ethereum', 0.17],
    ['base', 0.12],
    ['bitcoin', 0.03],
  ];
  for (let i = 0; i < generatedCount; i++) {
    const cat = rng.weighted(CATEGORIES);
    // Liquid staking tokens are SOL derivatives: always on Solana.
    const chain = cat.tags[0] === 'lst' ? 'solana' : rng.weighted(chains);
    const stem = capitalize(rng.pick(SYLLABLES) + rng.pick(SYLLABLES) + (rng.chance(0.3) ? rng.pick(SYLLABLES) : ''));
    const name = stem + rng.pick(cat.suffixes);
    let symbol = stem.replace(/[^A-Za-z]/g, '').slice(0, rng.int(3, 5)).toUpperCase();
    if (cat.tags[0] === 'lst') symbol = `${stem.slice(0, rng.int(1, 3))}SOL`;
    while (symbols.has(symbol)) symbol = symbol.slice(0, 4) + rng.alnum(1);
    symbols.add(symbol);

    let address: string | null;
    let rest: string;
    if (chain === 'solana') address = rest = rng.solanaAddress();
    else if (chain === 'bitcoin') {
      // Runes / BRC-20 style assets on bitcoin: no address, an id by name.
      address = null;
      rest = `${symbol.toLowerCase()}-${rng.int(800000, 880000)}`;
    } else address = rest = rng.evmAddress();

    const isLst = cat.tags[0] === 'lst';
    const model: PriceModel = isLst
      ? { base: 0, vol: rng.float(cat.vol[0], cat.vol[1]), peg: { assetId: `solana:${SOL}`, ratio: sig(rng.float(1.02, 1.3), 4) }, supply: rng.logFloat(1e5, 5e6) }
      : {
          base: sig(cat.price[0] === cat.price[1] ? cat.price[0] : rng.logFloat(cat.price[0], cat.price[1]), 6),
          vol: rng.float(cat.vol[0], cat.vol[1]),
          supply: rng.logFloat(1e6, 1e12),
        };
    const tags = [...cat.tags];
    if (rng.chance(0.15)) tags.push('trending');
    const type = tags.includes('rwa') ? 'rwa' : 'token';
    out.push({
      id: `${chain}:${rest}`,
      chain,
      address,
      type,
      name,
      symbol,
      imageUrl: rng.chance(0.04) ? null : imageUrl(chain, rest),
      decimals: chain === 'ethereum' || chain === 'base' ? rng.pick([18, 18, 6, 8]) : chain === 'bitcoin' ? 8 : rng.pick(cat.decimals),
      tags,
      description: rng.chance(0.2) ? null : `${name} (${symbol}) is a ${tags[0]} token on ${capitalize(chain)}.`,
      websiteUrl: rng.chance(0.3) ? null : `https://${stem.toLowerCase()}.sim-project.example`,
      model,
    });
  }
  return out;
}

/** What every kind of simulated market is generated from: the providers, the Solana token pools, and the shared draws. */
import { CDN, WELL_KNOWN_SOLANA } from './assets.js';
import { Rng, round, sig } from '../prng.js';
import type { AssetRecord } from './asset-types.js';
import type { Blink, Market, Provider, RewardApy, Token } from './market-types.js';

const PROVIDER_LIST: [id: string, name: string, site: string][] = [
  ['kamino', 'Kamino', 'https://app.kamino.finance'],
  ['marginfi', 'marginfi', 'https://app.marginfi.com'],
  ['jupiter', 'Jupiter', 'https://jup.ag'],
  ['lulo', 'Lulo', 'https://app.lulo.fi'],
  ['drift', 'Drift', 'https://app.drift.trade'],
  ['dflow', 'DFlow', 'https://dflow.net'],
  ['carrot', 'Carrot', 'https://deficarrot.com'],
  ['defituna', 'DefiTuna', 'https://defituna.com'],
  ['save', 'Save', 'https://save.finance'],
  ['loopscale', 'Loopscale', 'https://app.loopscale.com'],
];

export const BLINKS_BASE = 'https://blinks.sim-markets.example/api/v0';

export function toToken(a: AssetRecord): Token {
  return { address: a.address!, symbol: a.symbol, decimals: a.decimals ?? 0, icon: a.imageUrl, name: a.name };
}

export const iso = (ms: number): string => new Date(ms).toISOString();
export const sec = (ms: number): number => Math.floor(ms / 1000);

/**
 * The providers, the token pools and the draws every kind of market uses, over one random stream:
 * the kinds are generated from it in a fixed order, so the world is the same for a seed.
 */
export function marketsKit(rng: Rng, assets: readonly AssetRecord[], priceRef: (assetId: string) => number) {
  const providers = new Map<string, Provider>();
  const sites = new Map<string, string>();
  for (const [id, name, site] of PROVIDER_LIST) {
    providers.set(id, { id, name, icon: `${CDN}/providers/${id}.png` });
    sites.set(id, site);
  }
  const provider = (id: string): Provider => providers.get(id)!;
  const site = (id: string): string => sites.get(id)!;
  const blink = (prov: string, kind: string, address: string, action: string): Blink => ({
    blinkUrl: `${BLINKS_BASE}/${prov}/${kind}/${address}/${action}`,
  });

  // Solana token pools.
  const solana = assets.filter((a) => a.chain === 'solana' && a.address);
  const bySymbol = new Map<string, AssetRecord>();
  for (const a of solana) if (!bySymbol.has(a.symbol)) bySymbol.set(a.symbol, a);
  const sym = (s: string): AssetRecord => {
    const a = bySymbol.get(s);
    if (!a) throw new Error(`no solana asset ${s}`);
    return a;
  };
  const stables = solana.filter((a) => a.tags.includes('stablecoin'));
  const solLikes = solana.filter((a) => a.address === WELL_KNOWN_SOLANA.SOL || a.tags.includes('lst'));
  const lsts = solana.filter((a) => a.tags.includes('lst'));
  const majors = ['WETH', 'cbBTC', 'JUP', 'JLP', 'JTO', 'PYTH', 'RAY', 'ORCA', 'RENDER', 'W', 'KMNO', 'DRIFT', 'BONK', 'WIF', 'POPCAT'].map(sym);
  const rwas = solana.filter((a) => a.type === 'rwa');
  const others = solana.filter((a) => !stables.includes(a) && !solLikes.includes(a) && !majors.includes(a) && !rwas.includes(a));
  const usdc = sym('USDC');
  const solAsset = sym('SOL');

  const kindOf = (a: AssetRecord): 'stable' | 'sol' | 'major' | 'rwa' | 'other' =>
    stables.includes(a) ? 'stable' : solLikes.includes(a) ? 'sol' : majors.includes(a) ? 'major' : rwas.includes(a) ? 'rwa' : 'other';

  const markets: Market[] = [];
  const usd = (a: AssetRecord, units: number): number => round(units * priceRef(a.id), 2);
  const unitsFor = (a: AssetRecord, usdValue: number): number => sig(usdValue / Math.max(priceRef(a.id), 1e-12), 8);
  const avgs = (base: number): [number, number, number] => [
    round(base * rng.float(0.8, 1.2), 6),
    round(base * rng.float(0.75, 1.25), 6),
    round(base * rng.float(0.7, 1.3), 6),
  ];
  const baseApy = (a: AssetRecord): number => {
    switch (kindOf(a)) {
      case 'stable':
        return rng.float(0.03, 0.12);
      case 'sol':
        return rng.float(0.002, 0.05);
      case 'major':
        return rng.float(0.001, 0.06);
      case 'rwa':
        return rng.float(0.035, 0.055);
      default:
        return rng.float(0, 0.15);
    }
  };
  const ltvFor = (a: AssetRecord): number => {
    switch (kindOf(a)) {
      case 'stable':
        return rng.float(0.8, 0.9);
      case 'sol':
        return rng.float(0.65, 0.9);
      case 'rwa':
        return rng.float(0.7, 0.85);
      case 'major':
        return rng.float(0.45, 0.75);
      default:
        return rng.float(0, 0.5);
    }
  };
  const rewardTokenOf: Record<string, string> = {
    kamino: 'KMNO',
    jupiter: 'JUP',
    drift: 'DRIFT',
    marginfi: 'JTO',
    save: 'PYTH',
    loopscale: 'JUP',
    lulo: 'USDC',
    carrot: 'JUP',
    defituna: 'RAY',
  };
  const rewardsFor = (prov: string, withBorrow: boolean): RewardApy[] | undefined => {
    if (!rng.chance(0.3)) return undefined;
    const token = toToken(sym(rewardTokenOf[prov] ?? 'JUP'));
    const out: RewardApy[] = [{ type: 'deposit', apy: round(rng.float(0.003, 0.04), 6), token }];
    if (withBorrow && rng.chance(0.4)) out.push({ type: 'borrow', apy: round(rng.float(0.003, 0.03), 6), token });
    return out;
  };


  return { rng, assets, priceRef, providers, provider, site, blink, sym, stables, solLikes, lsts, majors, rwas, others, usdc, solAsset, markets, usd, unitsFor, avgs, baseApy, ltvFor, rewardsFor, kindOf };
}

export type MarketsKit = ReturnType<typeof marketsKit>;

/** Providers and markets of all six types; every token inside a market is a Solana asset. */
import { CDN, WELL_KNOWN_SOLANA } from './assets.js';
import { Rng, round, sig } from '../prng.js';
import { DATA_START_MS, DAY, WORLD_REFERENCE_MS } from './series.js';
import type {
  AssetRecord,
  Blink,
  LendingMarket,
  LoopMarket,
  Market,
  PerpetualMarket,
  PredictionMarket,
  Provider,
  RewardApy,
  RewardMarket,
  Token,
  YieldMarket,
} from './types.js';

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

export interface MarketsBuild {
  providers: Provider[];
  markets: Market[];
  /** The yes/no outcome tokens of prediction markets, to add to the assets. */
  outcomeAssets: AssetRecord[];
}

export function toToken(a: AssetRecord): Token {
  return { address: a.address!, symbol: a.symbol, decimals: a.decimals ?? 0, icon: a.imageUrl, name: a.name };
}

const iso = (ms: number): string => new Date(ms).toISOString();
const sec = (ms: number): number => Math.floor(ms / 1000);

/**
 * Generates the markets. `priceRef(assetId)` is an asset's price at the world's reference instant
 * (used for the USD totals of the listing, which are static).
 */
export function generateMarkets(rng: Rng, assets: readonly AssetRecord[], priceRef: (assetId: string) => number): MarketsBuild {
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

  // ---- lending -------------------------------------------------------------------------------
  const lending = (prov: string, productName: string, marketName: string | undefined, a: AssetRecord, borrow?: AssetRecord): void => {
    const address = rng.solanaAddress();
    const baseDeposit = round(baseApy(a), 6);
    const util = rng.float(0.35, 0.92);
    const baseBorrow = round(Math.max(baseDeposit / (util * 0.9), baseDeposit + 0.005), 6);
    const rewards = rewardsFor(prov, true);
    const depositReward = rewards?.filter((r) => r.type === 'deposit').reduce((s, r) => s + r.apy, 0) ?? 0;
    const borrowReward = rewards?.filter((r) => r.type === 'borrow').reduce((s, r) => s + r.apy, 0) ?? 0;
    const totalDeposit = unitsFor(a, rng.logFloat(5e4, kindOf(a) === 'other' ? 5e6 : 8e8));
    const borrowAsset = borrow ?? a;
    const totalBorrow = borrow ? unitsFor(borrow, usd(a, totalDeposit) * util * 0.6) : sig(totalDeposit * util, 8);
    const maxLtv = round(ltvFor(a), 2);
    const [d30, d90, d180] = avgs(baseDeposit);
    const [b30, b90, b180] = avgs(baseBorrow);
    const maxDeposit = sig(totalDeposit * rng.float(1.1, 3), 6);
    const m: LendingMarket = {
      id: `${prov}.lend.${address}`,
      type: 'lending',
      productName,
      provider: provider(prov),
      websiteUrl: `${site(prov)}/lend/${address}`,
      ...(marketName ? { additionalData: { marketName } } : {}),
      token: toToken(a),
      ...(borrow ? { borrowToken: toToken(borrow) } : {}),
      depositApy: round(baseDeposit + depositReward, 6),
      baseDepositApy: baseDeposit,
      baseDepositApy30d: d30,
      baseDepositApy90d: d90,
      baseDepositApy180d: d180,
      borrowApy: round(Math.max(0, baseBorrow - borrowReward), 6),
      baseBorrowApy: baseBorrow,
      baseBorrowApy30d: b30,
      baseBorrowApy90d: b90,
      baseBorrowApy180d: b180,
      totalDeposit,
      totalDepositUsd: usd(a, totalDeposit),
      totalBorrow,
      totalBorrowUsd: usd(borrowAsset, totalBorrow),
      maxDeposit,
      maxBorrow: borrow ? sig(unitsFor(borrow, usd(a, maxDeposit) * 0.8), 6) : sig(maxDeposit * rng.float(0.7, 0.95), 6),
      maxLtv,
      liquidationLtv: round(Math.min(0.97, maxLtv + rng.float(0.03, 0.08)), 2),
      liquidationPenalty: round(rng.float(0.01, 0.1), 3),
      ...(rewards ? { rewards } : {}),
      actions: {
        deposit: blink(prov, 'lend', address, 'deposit'),
        withdraw: blink(prov, 'lend', address, 'withdraw'),
        borrow: blink(prov, 'lend', address, 'borrow'),
        repay: blink(prov, 'lend', address, 'repay'),
        ...(prov === 'kamino' ? { repayWithCollateral: blink(prov, 'lend', address, 'repay-with-collateral') } : {}),
        ...(rewards ? { claimRewards: blink(prov, 'lend', address, 'claim-rewards') } : {}),
      },
    };
    markets.push(m);
  };
  const kaminoGroups: [string, AssetRecord[]][] = [
    ['Main Market', [solAsset, usdc, sym('USDT'), sym('PYUSD'), ...lsts.slice(0, 5), sym('WETH'), sym('cbBTC'), sym('JUP'), sym('JTO'), sym('PYTH'), sym('BONK'), sym('WIF'), sym('JLP'), sym('USDY'), sym('RENDER'), sym('KMNO')]],
    ['JLP Market', [sym('JLP'), usdc, sym('USDT'), solAsset, sym('WETH'), sym('cbBTC')]],
    ['Jito Market', [sym('JitoSOL'), solAsset, usdc, sym('JTO')]],
    ['Altcoins Market', [usdc, ...rng.sample([...majors, ...others], 19)]],
  ];
  for (const [name, tokens] of kaminoGroups) for (const a of tokens) lending('kamino', 'Kamino Lend', name, a);
  for (const a of [...stables.slice(0, 3), ...solLikes.slice(0, 6), ...majors, ...rwas.slice(0, 2), ...rng.sample(others, 19)])
    lending('marginfi', 'marginfi Lend', 'Global Pool', a);
  for (const a of [usdc, sym('USDT'), solAsset, ...lsts.slice(0, 4), ...majors.slice(0, 13)]) lending('save', 'Save Lend', 'Main Pool', a);
  for (const a of rng.sample([...majors, ...others], 15)) lending('save', 'Save Isolated Pool', `${a.symbol}-USDC Pool`, a, usdc);
  for (const a of [usdc, sym('USDT'), sym('PYUSD'), solAsset, ...lsts.slice(0, 5), ...majors.slice(0, 16)]) lending('jupiter', 'Jupiter Lend', undefined, a);
  for (const a of rng.sample([...solLikes, ...majors, ...rwas, ...others], 25)) {
    const borrow = kindOf(a) === 'sol' ? solAsset : rng.pick([usdc, usdc, sym('USDT')]);
    lending('loopscale', 'Loopscale Lend', `${a.symbol}/${borrow.symbol}`, a, borrow === a ? usdc : borrow);
  }

  // ---- yield ---------------------------------------------------------------------------------
  const yieldMarket = (prov: string, productName: string, marketName: string | undefined, a: AssetRecord): void => {
    const address = rng.solanaAddress();
    const base = round(baseApy(a) * rng.float(1, 1.6), 6);
    const rewards = rewardsFor(prov, false);
    const rewardApy = rewards?.reduce((s, r) => s + r.apy, 0) ?? 0;
    const [d30, d90, d180] = avgs(base);
    const totalDeposit = unitsFor(a, rng.logFloat(2e4, 3e8));
    const m: YieldMarket = {
      id: `${prov}.earn.${address}`,
      type: 'yield',
      productName,
      provider: provider(prov),
      websiteUrl: `${site(prov)}/earn/${address}`,
      ...(marketName ? { additionalData: { marketName } } : {}),
      token: toToken(a),
      depositApy: round(base + rewardApy, 6),
      baseDepositApy: base,
      baseDepositApy30d: d30,
      baseDepositApy90d: d90,
      baseDepositApy180d: d180,
      totalDeposit,
      totalDepositUsd: usd(a, totalDeposit),
      ...(rewards ? { rewards } : {}),
      actions: {
        deposit: blink(prov, 'earn', address, 'deposit'),
        withdraw: blink(prov, 'earn', address, 'withdraw'),
        ...(rewards ? { claimRewards: blink(prov, 'earn', address, 'claim-rewards') } : {}),
      },
    };
    markets.push(m);
  };
  const luloTokens = [usdc, sym('USDT'), sym('PYUSD'), solAsset, ...stables.slice(3, 5)];
  for (const a of luloTokens) yieldMarket('lulo', 'Lulo Protected', undefined, a);
  for (const a of luloTokens) yieldMarket('lulo', 'Lulo Boosted', undefined, a);
  const curators = ['Steakhouse', 'Allez', 'Gauntlet', 'Re7', 'MEV Capital', 'Elemental', 'Sentora'];
  for (const a of rng.sample([...stables, ...solLikes, ...majors, ...rwas], 30))
    yieldMarket('kamino', 'Kamino Earn', `${rng.pick(curators)} ${a.symbol}`, a);
  for (const a of [usdc, sym('USDT'), sym('PYUSD')]) yieldMarket('carrot', 'Carrot Boost', undefined, a);
  for (const a of [usdc, sym('USDT'), sym('PYUSD'), solAsset, ...lsts.slice(0, 4), ...majors.slice(0, 12)]) yieldMarket('jupiter', 'Jupiter Lend Earn', undefined, a);
  for (const a of rng.sample([...solLikes, ...majors, ...others], 20)) yieldMarket('defituna', 'DefiTuna Liquidity', `${a.symbol} Lending Pool`, a);
  for (const a of [usdc, solAsset, ...rng.sample(majors, 8)]) yieldMarket('save', 'Save Vaults', undefined, a);
  for (const a of [usdc, sym('USDT'), solAsset, ...lsts.slice(0, 3), ...majors.slice(0, 9)]) yieldMarket('drift', 'Drift Insurance Fund Vault', `${a.symbol} Insurance Fund`, a);

  // ---- loop ----------------------------------------------------------------------------------
  const loop = (prov: string, productName: string, marketName: string, a: AssetRecord, b: AssetRecord): void => {
    const address = rng.solanaAddress();
    const maxLtv = round(kindOf(a) === 'sol' && b === solAsset ? rng.float(0.85, 0.92) : rng.float(0.6, 0.85), 2);
    const apy = round(kindOf(a) === 'sol' ? rng.float(0.04, 0.22) : rng.float(0.02, 0.4), 6);
    const [d30, d90, d180] = avgs(apy);
    const m: LoopMarket = {
      id: `${prov}.multiply.${address}`,
      type: 'loop',
      productName,
      provider: provider(prov),
      websiteUrl: `${site(prov)}/multiply/${address}`,
      additionalData: { marketName },
      tokenA: toToken(a),
      tokenB: toToken(b),
      depositApy: apy,
      depositApy30d: d30,
      depositApy90d: d90,
      depositApy180d: d180,
      maxLeverage: round(1 / (1 - maxLtv), 1),
      maxLtv,
      liquidationLtv: round(Math.min(0.97, maxLtv + rng.float(0.02, 0.05)), 2),
      actions: {
        ...(rng.chance(0.6) ? { setup: blink(prov, 'multiply', address, 'setup') } : {}),
        deposit: blink(prov, 'multiply', address, 'deposit'),
        withdraw: blink(prov, 'multiply', address, 'withdraw'),
      },
    };
    markets.push(m);
  };
  for (const a of lsts) loop('kamino', 'Kamino Multiply', rng.pick(['Main Market', 'Jito Market']), a, solAsset);
  for (const a of [sym('JLP'), sym('USDY'), sym('OUSG'), ...rng.sample(majors, 8)]) loop('kamino', 'Kamino Multiply', a.symbol === 'JLP' ? 'JLP Market' : 'Main Market', a, usdc);
  const kaminoLoops = markets.filter((m) => m.type === 'loop').length;
  for (let i = kaminoLoops; i < 30; i++) loop('kamino', 'Kamino Multiply', 'Altcoins Market', rng.pick(others), usdc);
  for (const a of rng.sample([...majors, ...others, solAsset], 25)) {
    const b = a === solAsset || rng.chance(0.6) ? usdc : solAsset;
    loop('defituna', 'DefiTuna Leveraged LP', `${a.symbol}-${b.symbol}`, a, b);
  }
  for (const a of rng.sample([...lsts, ...rwas, ...majors], 15)) {
    const b = kindOf(a) === 'sol' ? solAsset : usdc;
    loop('loopscale', 'Loopscale Loops', `${a.symbol}/${b.symbol} Loop`, a, b);
  }
  for (const a of rng.sample([...lsts, sym('JLP'), sym('cbBTC'), sym('WETH')], 10)) {
    const b = kindOf(a) === 'sol' ? solAsset : usdc;
    loop('marginfi', 'marginfi Looper', `${a.symbol}/${b.symbol}`, a, b);
  }

  // ---- perpetual -----------------------------------------------------------------------------
  const perp = (prov: string, productName: string, a: AssetRecord, maxLeverage: number): void => {
    const address = rng.solanaAddress();
    const base = a.symbol === 'cbBTC' ? 'BTC' : a.symbol === 'WETH' ? 'ETH' : a.symbol;
    const total = rng.logFloat(2e5, a === solAsset || base === 'BTC' || base === 'ETH' ? 8e8 : 3e7);
    const longShare = rng.float(0.3, 0.7);
    const m: PerpetualMarket = {
      id: `${prov}.perp.${address}`,
      type: 'perpetual',
      productName,
      provider: provider(prov),
      websiteUrl: prov === 'drift' ? `${site(prov)}/trade/${base}-PERP` : `${site(prov)}/perps/${base}-USD`,
      additionalData: { marketName: prov === 'drift' ? `${base}-PERP` : `${base}-USD` },
      tokenA: toToken(a),
      tokenB: toToken(usdc),
      liquidity: { longUsd: round(total * longShare, 2), shortUsd: round(total * (1 - longShare), 2) },
      maxLeverage,
      actions: {
        ...(rng.chance(0.5) ? { setup: blink(prov, 'perp', address, 'setup') } : {}),
        openPosition: blink(prov, 'perp', address, 'open'),
        closePosition: blink(prov, 'perp', address, 'close'),
      },
    };
    markets.push(m);
  };
  for (const a of [solAsset, sym('cbBTC'), sym('WETH')]) perp('jupiter', 'Jupiter Perps', a, 100);
  for (const a of [solAsset, sym('cbBTC'), sym('WETH')]) perp('drift', 'Drift Perpetuals', a, 101);
  for (const a of majors.filter((m) => m.symbol !== 'cbBTC' && m.symbol !== 'WETH' && m.symbol !== 'JLP')) perp('drift', 'Drift Perpetuals', a, rng.pick([10, 20]));
  for (const a of rng.sample(others, 38)) perp('drift', 'Drift Perpetuals', a, rng.pick([3, 5, 5, 10]));

  // ---- reward --------------------------------------------------------------------------------
  const reward = (prov: string, productName: string, a: AssetRecord): void => {
    const address = rng.solanaAddress();
    const m: RewardMarket = {
      id: `${prov}.reward.${address}`,
      type: 'reward',
      productName,
      provider: provider(prov),
      websiteUrl: `${site(prov)}/rewards/${address}`,
      token: toToken(a),
      rewardApy: round(rng.logFloat(0.005, 0.35), 6),
      ...(rng.chance(0.7) ? { endsAt: iso(Date.parse('2026-12-15T00:00:00Z') + rng.int(0, 200) * DAY) } : {}),
      actions: { claimRewards: blink(prov, 'reward', address, 'claim') },
    };
    markets.push(m);
  };
  for (let s = 1; s <= 15; s++) reward('kamino', `Kamino Season ${1 + (s % 5)} Rewards`, sym('KMNO'));
  for (let s = 1; s <= 10; s++) reward('jupiter', rng.pick(['Jupiter Active Staking Rewards', 'Jupuary Rewards', 'JLP Rewards']), sym('JUP'));
  for (let s = 1; s <= 10; s++) reward('drift', rng.pick(['Drift Fuel Rewards', 'Drift Staking Rewards']), sym('DRIFT'));
  for (let s = 1; s <= 5; s++) reward('marginfi', 'marginfi Emissions', rng.pick([sym('JTO'), sym('PYTH'), sym('W')]));
  const carrotToken = rng.pick(others);
  for (let s = 1; s <= 5; s++) reward('carrot', 'Carrot Harvest', carrotToken);
  for (let s = 1; s <= 5; s++) reward('save', 'Save Points Rewards', rng.pick([sym('PYTH'), sym('RAY'), ...others.slice(0, 3)]));

  // ---- prediction ----------------------------------------------------------------------------
  const outcomeAssets: AssetRecord[] = [];
  const tickers = new Set<string>();
  const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
  const LONG_MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
  const TEAMS = ['Lakers', 'Celtics', 'Warriors', 'Knicks', 'Chiefs', 'Eagles', 'Yankees', 'Dodgers', 'Arsenal', 'Real Madrid', 'Barcelona', 'Bayern', 'Inter', 'PSG', 'Liverpool', 'Bucks'];
  const LEAGUES = ['NBA Finals', 'Super Bowl', 'World Series', 'Champions League final', 'Premier League title'];
  const statusMix: ['open' | 'closed' | 'settled', number][] = [
    ['open', 0.55],
    ['closed', 0.15],
    ['settled', 0.3],
  ];
  const strikeOf = (price: number): number => {
    const target = price * rng.float(0.7, 1.5);
    const mag = 10 ** Math.floor(Math.log10(target));
    return Math.round(target / (mag / 4)) * (mag / 4);
  };
  const fmtUsd = (n: number): string => (n >= 1000 ? Math.round(n).toLocaleString('en-US') : String(sig(n, 4)));
  for (let i = 0; i < 170; i++) {
    const status = rng.weighted(statusMix);
    const openMs = DATA_START_MS + rng.int(0, 300) * DAY + rng.int(0, 23) * 3_600_000;
    let closeMs: number;
    if (status === 'open') closeMs = Date.parse('2027-01-01T00:00:00Z') + rng.int(0, 700) * DAY;
    else closeMs = Math.min(WORLD_REFERENCE_MS - DAY, openMs + rng.int(20, 200) * DAY);
    closeMs = Math.floor(closeMs / 3_600_000) * 3_600_000 + 20 * 3_600_000;
    const close = new Date(closeMs);
    const code = `${String(close.getUTCFullYear()).slice(2)}${MONTHS[close.getUTCMonth()]}${String(close.getUTCDate()).padStart(2, '0')}`;
    const dateText = `${LONG_MONTHS[close.getUTCMonth()]} ${close.getUTCDate()}, ${close.getUTCFullYear()}`;
    let title: string;
    let subtitle: string | undefined;
    let prefix: string;
    const template = rng.int(0, 5);
    if (template === 0 || template === 1) {
      const a = rng.pick([solAsset, sym('cbBTC'), sym('WETH'), sym('JUP'), sym('BONK'), sym('WIF')]);
      const name = a.symbol === 'cbBTC' ? 'BTC' : a.symbol === 'WETH' ? 'ETH' : a.symbol;
      const strike = strikeOf(priceRef(a.id));
      prefix = `KX${name}${template === 0 ? 'D' : 'MAX'}`;
      title = template === 0 ? `Will ${name} be above $${fmtUsd(strike)} on ${dateText}?` : `Will ${name} reach $${fmtUsd(strike)} by ${dateText}?`;
      subtitle = `${name} price market`;
    } else if (template === 2) {
      prefix = 'KXFEDDECISION';
      title = `Will the Fed cut rates at the ${LONG_MONTHS[close.getUTCMonth()]} ${close.getUTCFullYear()} meeting?`;
      subtitle = 'Federal Reserve';
    } else if (template === 3) {
      const ticker = rng.pick(['AAPL', 'TSLA', 'NVDA', 'MSFT', 'META', 'COIN']);
      const strike = strikeOf(assets.find((x) => x.id === `stock:${ticker}`)?.model.base ?? 100);
      prefix = `KX${ticker}`;
      title = `Will ${ticker} close above $${fmtUsd(strike)} on ${dateText}?`;
      subtitle = 'Stocks';
    } else if (template === 4) {
      const [t1, t2] = rng.sample(TEAMS, 2) as [string, string];
      prefix = 'KXGAME';
      title = `Will the ${t1} beat the ${t2}?`;
      subtitle = `${t1} vs ${t2}`;
    } else {
      const league = rng.pick(LEAGUES);
      const team = rng.pick(TEAMS);
      prefix = 'KXCHAMP';
      title = `Will the ${team} win the ${league}?`;
      subtitle = league;
    }
    let ticker = `${prefix}-${code}-${rng.alnum(3)}`;
    while (tickers.has(ticker)) ticker = `${prefix}-${code}-${rng.alnum(4)}`;
    tickers.add(ticker);

    const mid = round(rng.float(0.04, 0.96), 2);
    const spread = rng.pick([0.01, 0.01, 0.02, 0.03]);
    const result = status === 'settled' ? (rng.chance(mid) ? 'yes' : 'no') : undefined;
    const expirationMs = status === 'open' ? closeMs + rng.int(1, 7) * DAY : status === 'closed' ? Date.parse('2026-12-01T00:00:00Z') + rng.int(0, 120) * DAY : closeMs + rng.int(1, 3) * DAY;
    const yesAddress = rng.solanaAddress();
    const noAddress = rng.solanaAddress();
    const volume = round(rng.logFloat(1e4, 5e7), 2);
    const outcome = (address: string, side: 'yes' | 'no'): AssetRecord => {
      const yes = side === 'yes';
      const settledValue = result === undefined ? undefined : (result === side ? 1 : 0);
      return {
        id: `solana:${address}`,
        chain: 'solana',
        address,
        type: 'token',
        name: `${yes ? 'Yes' : 'No'}: ${title}`,
        symbol: `${ticker}-${yes ? 'YES' : 'NO'}`,
        imageUrl: `${CDN}/prediction/${ticker}-${side}.png`,
        decimals: 6,
        tags: ['prediction', 'outcome-token'],
        description: `The "${side}" outcome token of the prediction market "${title}".`,
        websiteUrl: `${site('dflow')}/markets/${ticker}`,
        model: yes
          ? {
              base: mid,
              vol: rng.float(0.15, 0.35),
              min: 0.01,
              max: 0.99,
              ...(status === 'settled' ? { fixed: settledValue!, fixedFromMs: closeMs } : status === 'closed' ? { fixed: mid, fixedFromMs: closeMs } : {}),
              supply: volume * 0.3,
            }
          : {
              base: 1 - mid,
              vol: 0,
              complementOf: `solana:${yesAddress}`,
              ...(status === 'settled' ? { fixed: settledValue!, fixedFromMs: closeMs } : status === 'closed' ? { fixed: round(1 - mid, 2), fixedFromMs: closeMs } : {}),
              supply: volume * 0.3,
            },
      };
    };
    const yesAsset = outcome(yesAddress, 'yes');
    const noAsset = outcome(noAddress, 'no');
    outcomeAssets.push(yesAsset, noAsset);
    let yesBid = round(Math.max(0.01, mid - spread / 2), 2);
    let yesAsk = round(Math.min(0.99, yesBid + spread), 2);
    if (result !== undefined) yesBid = yesAsk = result === 'yes' ? 1 : 0;
    const m: PredictionMarket = {
      id: `dflow.predict.${ticker}`,
      type: 'prediction',
      productName: 'DFlow Prediction Markets',
      provider: provider('dflow'),
      websiteUrl: `${site('dflow')}/markets/${ticker}`,
      additionalData: { ticker, eventTicker: `${prefix}-${code}` },
      title,
      ...(subtitle ? { subtitle } : {}),
      status,
      ...(result ? { result } : {}),
      volume,
      openInterest: status === 'settled' ? 0 : round(volume * rng.float(0.05, 0.5), 2),
      yesBid,
      yesAsk,
      noBid: round(1 - yesAsk, 2),
      noAsk: round(1 - yesBid, 2),
      openTime: sec(openMs),
      closeTime: sec(closeMs),
      expirationTime: sec(expirationMs),
      yesToken: toToken(yesAsset),
      noToken: toToken(noAsset),
    };
    markets.push(m);
  }

  return { providers: [...providers.values()], markets, outcomeAssets };
}

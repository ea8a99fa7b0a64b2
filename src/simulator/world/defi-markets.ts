/** The lending, yield, loop, perpetual and reward markets of the simulated world. */
import { round, sig } from '../prng.js';
import { iso, toToken, type MarketsKit } from './market-kit.js';
import { DAY } from './series.js';
import type { AssetRecord } from './asset-types.js';
import type { LendingMarket, LoopMarket, PerpetualMarket, RewardMarket, YieldMarket } from './market-types.js';

/** Appends the markets of the five DeFi kinds to `kit.markets`, in the listing's order. */
export function generateDefiMarkets(kit: MarketsKit): void {
  const { rng, provider, site, blink, sym, lsts, majors, others, usdc, solAsset, markets, usd, unitsFor, avgs, baseApy, ltvFor, rewardsFor, stables, solLikes, rwas, kindOf } = kit;

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

}

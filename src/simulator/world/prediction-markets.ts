/** The prediction markets of the simulated world (DFlow), and their yes/no outcome tokens. */
import { round, sig } from '../prng.js';
import { CDN } from './assets.js';
import { sec, toToken, type MarketsKit } from './market-kit.js';
import { DATA_START_MS, DAY, WORLD_REFERENCE_MS } from './series.js';
import type { AssetRecord } from './asset-types.js';
import type { PredictionMarket } from './market-types.js';

/** Appends 170 prediction markets to `kit.markets`; returns their outcome tokens, to add to the assets. */
export function generatePredictionMarkets(kit: MarketsKit): AssetRecord[] {
  const { rng, assets, priceRef, provider, site, sym, solAsset, markets } = kit;

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


  return outcomeAssets;
}

/** The baseline's mapping of upstream records to the screens' shape (the gateway's field names and nesting). */
import type { RawAsset, RawMarket, RawToken } from './upstream.js';

export const globalId = (type: string, id: string): string => Buffer.from(`${type}:${id}`).toString('base64');
export const TYPENAMES: Record<string, string> = {
  lending: 'Lending',
  yield: 'Yield',
  loop: 'Loop',
  perpetual: 'Perpetual',
  reward: 'Reward',
  prediction: 'Prediction',
};
export const typename = (type: string, suffix: 'Market' | 'Position') => `${TYPENAMES[type] ?? 'Unknown'}${suffix}`;
export const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : null);
/** A token shown by its id and symbol (the asset's symbol, else the listing's). */
export const tokenSymbol = (t: RawToken | undefined, assets: Map<string, RawAsset | null>) =>
  t ? { assetId: `solana:${t.address}`, symbol: assets.get(t.address)?.symbol ?? t.symbol } : null;

/** A token as the mobile and wallet screens show it: id, symbol, logo, price. */
export function tokenBrief(t: RawToken | undefined, assets: Map<string, RawAsset | null>) {
  if (!t) return null;
  const a = assets.get(t.address);
  return { assetId: `solana:${t.address}`, symbol: a?.symbol ?? t.symbol, imageUrl: a?.imageUrl ?? t.icon, price: a?.price ? { usd: a.price.usd } : null };
}

/** A token as the markets page shows it: every metadata field and the price. */
export function tokenFull(t: RawToken | undefined, assets: Map<string, RawAsset | null>) {
  if (!t) return null;
  const a = assets.get(t.address);
  return {
    assetId: `solana:${t.address}`,
    symbol: a?.symbol ?? t.symbol,
    name: a?.name ?? t.name ?? t.symbol,
    decimals: a?.decimals ?? t.decimals,
    imageUrl: a?.imageUrl ?? t.icon,
    metadataSource: a ? 'LIVE' : 'FALLBACK',
    price: a?.price ? { usd: a.price.usd, change24h: a.price.change24h } : null,
  };
}

export const provider = (m: RawMarket) => ({ id: globalId('Provider', m.provider.id), name: m.provider.name, icon: m.provider.icon });
export const blink = (b: { blinkUrl?: string } | undefined) => b?.blinkUrl ?? null;
export const seconds = (s: number | undefined) => (typeof s === 'number' ? new Date(s * 1000).toISOString() : null);

/** The fields every market shows on the wallet and markets screens. */
export function marketHeader(m: RawMarket, withWebsite: boolean): Record<string, unknown> {
  const kind = typename(m.type, 'Market');
  return {
    __typename: kind,
    id: globalId(kind, m.id),
    marketId: m.id,
    type: upper(m.type),
    productName: m.productName,
    marketName: m['additionalData']?.marketName ?? null,
    ...(withWebsite ? { websiteUrl: m['websiteUrl'] ?? null } : {}),
    status: upper(m['status']),
    provider: provider(m),
  };
}

export function walletMarket(m: RawMarket, assets: Map<string, RawAsset | null>) {
  const out = marketHeader(m, false);
  if (m.type === 'lending') Object.assign(out, { depositApy: m['depositApy'], borrowApy: m['borrowApy'], token: tokenBrief(m['token'], assets) });
  if (m.type === 'yield') Object.assign(out, { depositApy: m['depositApy'], token: tokenBrief(m['token'], assets) });
  if (m.type === 'loop') {
    Object.assign(out, { depositApy: m['depositApy'], maxLeverage: m['maxLeverage'], tokenA: tokenBrief(m['tokenA'], assets), tokenB: tokenBrief(m['tokenB'], assets) });
  }
  if (m.type === 'perpetual') Object.assign(out, { maxLeverage: m['maxLeverage'], tokenA: tokenBrief(m['tokenA'], assets), tokenB: tokenBrief(m['tokenB'], assets) });
  if (m.type === 'prediction') Object.assign(out, { title: m['title'], yesAsk: m['yesAsk'] ?? null, noAsk: m['noAsk'] ?? null });
  return out;
}


export function marketsPageNode(m: RawMarket, assets: Map<string, RawAsset | null>) {
  const out = marketHeader(m, true);
  const averages = (prefix: string) => ({ '30d': m[`${prefix}30d`] ?? null, '90d': m[`${prefix}90d`] ?? null, '180d': m[`${prefix}180d`] ?? null });
  if (m.type === 'lending') {
    const deposit = averages('baseDepositApy');
    const borrow = averages('baseBorrowApy');
    const a = m['actions'] ?? {};
    Object.assign(out, {
      depositApy: m['depositApy'],
      baseDepositApy: m['baseDepositApy'],
      borrowApy: m['borrowApy'],
      baseBorrowApy: m['baseBorrowApy'],
      apyAverages: {
        deposit30d: deposit['30d'],
        deposit90d: deposit['90d'],
        deposit180d: deposit['180d'],
        borrow30d: borrow['30d'],
        borrow90d: borrow['90d'],
        borrow180d: borrow['180d'],
      },
      totalDeposit: m['totalDeposit'] ?? null,
      totalDepositUsd: m['totalDepositUsd'] ?? null,
      totalBorrow: m['totalBorrow'],
      totalBorrowUsd: m['totalBorrowUsd'] ?? null,
      limits: { maxDeposit: m['maxDeposit'] ?? null, maxBorrow: m['maxBorrow'] ?? null, maxLtv: m['maxLtv'] ?? null, liquidationLtv: m['liquidationLtv'] ?? null },
      actions: { deposit: blink(a.deposit), withdraw: blink(a.withdraw), borrow: blink(a.borrow), repay: blink(a.repay), repayWithCollateral: blink(a.repayWithCollateral) },
      token: tokenFull(m['token'], assets),
      borrowToken: tokenFull(m['borrowToken'], assets),
    });
  }
  if (m.type === 'yield') {
    const deposit = averages('baseDepositApy');
    Object.assign(out, {
      depositApy: m['depositApy'],
      baseDepositApy: m['baseDepositApy'],
      totalDeposit: m['totalDeposit'] ?? null,
      totalDepositUsd: m['totalDepositUsd'] ?? null,
      apyAverages: { deposit30d: deposit['30d'], deposit90d: deposit['90d'], deposit180d: deposit['180d'] },
      token: tokenFull(m['token'], assets),
    });
  }
  if (m.type === 'loop') {
    Object.assign(out, {
      depositApy: m['depositApy'],
      maxLeverage: m['maxLeverage'],
      limits: { maxLtv: m['maxLtv'] ?? null, liquidationLtv: m['liquidationLtv'] ?? null },
      tokenA: tokenFull(m['tokenA'], assets),
      tokenB: tokenFull(m['tokenB'], assets),
    });
  }
  if (m.type === 'perpetual') {
    Object.assign(out, {
      maxLeverage: m['maxLeverage'],
      liquidity: { longUsd: m['liquidity']?.longUsd ?? null, shortUsd: m['liquidity']?.shortUsd ?? null },
      tokenA: tokenFull(m['tokenA'], assets),
      tokenB: tokenFull(m['tokenB'], assets),
    });
  }
  if (m.type === 'prediction') {
    Object.assign(out, {
      title: m['title'],
      subtitle: m['subtitle'] ?? null,
      result: m['result'] ?? null,
      yesBid: m['yesBid'] ?? null,
      yesAsk: m['yesAsk'] ?? null,
      noBid: m['noBid'] ?? null,
      noAsk: m['noAsk'] ?? null,
      volume: m['volume'] ?? null,
      openInterest: m['openInterest'] ?? null,
      openTime: seconds(m['openTime']),
      closeTime: seconds(m['closeTime']),
      expirationTime: seconds(m['expirationTime']),
      yesToken: tokenSymbol(m['yesToken'], assets),
      noToken: tokenSymbol(m['noToken'], assets),
    });
  }
  return out;
}

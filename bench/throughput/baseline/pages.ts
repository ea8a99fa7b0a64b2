/** The wallet screen and the markets page, hand-written: positions every time, listings and assets shared. */
import { globalId, marketsPageNode, tokenBrief, tokenSymbol, typename, upper, walletMarket } from './map.js';
import { MARKETS, assetsFor, get, listing, type RawPosition, type RawToken } from './upstream.js';

/** Every token of a position whose asset the wallet screen shows with a price. */
function walletTokens(p: RawPosition): RawToken[] {
  const m = p.market;
  const tokens: RawToken[] = [];
  if (m?.['token']) tokens.push(m['token']);
  if (m?.['tokenA']) tokens.push(m['tokenA']);
  if (m?.['tokenB']) tokens.push(m['tokenB']);
  if ((p.type === 'reward' || p.type === 'prediction') && p['token']) tokens.push(p['token']);
  for (const r of (p['rewards'] ?? []) as { tokenAddress: string }[]) tokens.push({ address: r.tokenAddress } as RawToken);
  return tokens;
}

/** A wallet's positions with their markets, providers and token assets (bench/throughput/screens.ts `WalletScreen`). */
export async function walletScreen(address: string, first: number) {
  const { positions } = await get<{ positions: RawPosition[] }>(`${MARKETS}/v0/positions/owners?walletAddresses=${encodeURIComponent(address)}`);
  const shown = positions.slice(0, first);
  const assets = await assetsFor(shown.flatMap((p) => walletTokens(p).map((t) => t.address)));
  const rewardToken = (address: string) => {
    const a = assets.get(address);
    return { assetId: `solana:${address}`, symbol: a?.symbol ?? null, imageUrl: a?.imageUrl ?? null, price: a?.price ? { usd: a.price.usd } : null };
  };

  return {
    wallet: {
      id: globalId('Wallet', address),
      address,
      totalValueUsd: positions.reduce((sum, p) => sum + (p.amountUsd ?? 0), 0),
      positions: {
        totalCount: positions.length,
        edges: shown.map((p) => {
          const m = p.market;
          const kind = typename(p.type, 'Position');
          const node: Record<string, unknown> = {
            __typename: kind,
            id: globalId(kind, `${address}:${p.id}`),
            positionId: p.id,
            type: upper(p.type),
            amount: p.amount,
            amountUsd: p.amountUsd ?? null,
            websiteUrl: p['websiteUrl'] ?? null,
            rewards: ((p['rewards'] ?? []) as { tokenAddress: string; amount: number; amountUsd?: number }[]).map((r) => ({
              amount: r.amount,
              amountUsd: r.amountUsd ?? null,
              token: rewardToken(r.tokenAddress),
            })),
            market: m ? walletMarket(m, assets) : null,
          };
          if (p.type === 'lending') Object.assign(node, { side: upper(p['side']), ltv: p['ltv'] ?? null, liquidationPrice: p['liquidationPrice'] ?? null });
          if (p.type === 'loop') Object.assign(node, { leverage: p['leverage'] ?? null, amountTokenA: p['amountTokenA'], amountTokenB: p['amountTokenB'] });
          if (p.type === 'perpetual') {
            Object.assign(node, { side: upper(p['side']), leverage: p['leverage'], entryPrice: p['entryPrice'], markPrice: p['markPrice'] ?? null });
          }
          if (p.type === 'reward') Object.assign(node, { parentPositionId: p['position']?.id ?? null, token: tokenBrief(p['token'], assets) });
          if (p.type === 'prediction') {
            Object.assign(node, {
              side: upper(p['side']),
              token: tokenSymbol(p['token'], assets),
              costBasis: { averageEntryPrice: p['costBasisAvg'] ?? null, totalCapitalCommitted: p['costBasisTotal'] ?? null },
              pnl: p['pnl'] ? { total: p['pnl'].total, realized: p['pnl'].realized, unrealized: p['pnl'].unrealized } : null,
            });
          }
          return { node };
        }),
      },
    },
  };
}

/** A page of markets with every kind's fields and token assets (bench/throughput/screens.ts `MarketsScreen`). */
export async function marketsScreen(first: number) {
  const { markets, cursor } = await listing(`limit=${first}`);
  const tokens = markets.flatMap((m) =>
    (['token', 'borrowToken', 'tokenA', 'tokenB', 'yesToken', 'noToken'] as const).flatMap((k) => (m[k] ? [(m[k] as RawToken).address] : [])),
  );
  const assets = await assetsFor(tokens);
  const edges = markets.map((m, i) => ({ cursor: Buffer.from(`markets:${i + 1}`).toString('base64url'), node: marketsPageNode(m, assets) }));
  return { markets: { pageInfo: { hasNextPage: cursor !== null, endCursor: edges.at(-1)?.cursor ?? null }, edges } };
}

/** MobileHome as a team would hand-write it: the per-user reads every time, public reads shared. */
import { globalId, provider, tokenBrief, typename, upper } from './map.js';
import { ALERTS, MARKETS, assetsFor, get, listing, type RawChannel, type RawMarket, type RawPosition, type RawToken } from './upstream.js';

const HOME_POSITIONS = 20;
const HOME_MARKETS = 5;

/** MobileHome (test/operations/MobileHome.graphql): the subscriber, its channels, 20 positions with markets and tokens, 5 lending markets. */
export async function mobileHome(headers: Record<string, string>) {
  const [auth, channels, summary, lending] = await Promise.all([
    get<{ walletAddress: string }>(`${ALERTS}/v2/auth`, headers),
    get<Record<string, RawChannel>>(`${ALERTS}/v2/channels`, headers),
    get<{ unreadCount: number }>(`${ALERTS}/v2/history/summary`, headers),
    listing(`type=lending&limit=${HOME_MARKETS}`),
  ]);
  const { positions } = await get<{ positions: RawPosition[] }>(
    `${MARKETS}/v0/positions/owners?walletAddresses=${encodeURIComponent(auth.walletAddress)}`,
  );
  const shown = positions.slice(0, HOME_POSITIONS);
  const priced = shown.map((p) => p.market).filter((m): m is RawMarket => !!m && (m.type === 'lending' || m.type === 'yield') && !!m['token']);
  // As the gateway does: the top lending markets' symbols and logos come from the assets service too.
  const assets = await assetsFor([...priced, ...lending.markets].map((m) => (m['token'] as RawToken).address));
  const wallet = auth.walletAddress;

  return {
    viewer: {
      id: globalId('Subscriber', wallet),
      walletAddress: wallet,
      unreadCount: summary.unreadCount,
      channels: Object.entries(channels).map(([key, c]) => ({
        key,
        type: c.type,
        value: c.value,
        verified: c.verified,
        subscribed: c.subscribed,
        subscribedApps: (c.subscribedApps ?? []).map((app) => ({ id: globalId('SubscribedApp', app.id), appId: app.id, name: app.name, icon: app.icon ?? null })),
      })),
      wallet: {
        id: globalId('Wallet', wallet),
        address: wallet,
        totalValueUsd: positions.reduce((sum, p) => sum + (p.amountUsd ?? 0), 0),
        positions: {
          totalCount: positions.length,
          edges: shown.map((p) => {
            const m = p.market;
            return {
              node: {
                __typename: typename(p.type, 'Position'),
                id: globalId(typename(p.type, 'Position'), `${wallet}:${p.id}`),
                type: upper(p.type),
                amount: p.amount,
                amountUsd: p.amountUsd ?? null,
                market: m
                  ? {
                      __typename: typename(m.type, 'Market'),
                      id: globalId(typename(m.type, 'Market'), m.id),
                      productName: m.productName,
                      provider: provider(m),
                      ...(m.type === 'lending' || m.type === 'yield' ? { depositApy: m['depositApy'], token: tokenBrief(m['token'], assets) } : {}),
                    }
                  : null,
              },
            };
          }),
        },
      },
    },
    topLending: {
      edges: lending.markets.map((m) => ({
        node: {
          id: globalId('LendingMarket', m.id),
          marketId: m.id,
          productName: m.productName,
          depositApy: m['depositApy'],
          borrowApy: m['borrowApy'],
          token: { symbol: assets.get(m['token'].address)?.symbol ?? m['token'].symbol, imageUrl: assets.get(m['token'].address)?.imageUrl ?? m['token'].icon },
        },
      })),
    },
  };
}

/**
 * The hand-written baseline of the throughput benchmark: what a team would write instead of the gateway.
 * One route per screen, each making the upstream calls the gateway's cold path makes for that screen
 * (undici `request` on one shared `Agent`, independent calls side by side with `Promise.all`), then
 * mapping the records to the JSON the screen needs, in the gateway's response shape (`{"data": ...}`,
 * same field names and nesting). No GraphQL, no cache, no breaker, no retry, no validation beyond
 * what the screen needs.
 *
 *   POST /mobile-home   Authorization + X-Service-Client-Key of a subscriber
 *   POST /wallet        body {"address": string, "first"?: number}
 *   POST /markets       body {"first"?: number}
 *
 * Started by bench/throughput/run.ts as its own process: `PORT`, `ALERTS_URL`, `MARKETS_URL`, `ASSETS_URL`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Agent, request } from 'undici';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value.replace(/\/+$/, '');
};
const ALERTS = env('ALERTS_URL');
const MARKETS = env('MARKETS_URL');
const ASSETS = env('ASSETS_URL');
/** The gateway's upstream pool settings (src/upstream/http.ts): same sockets per origin. */
const agent = new Agent({ connections: 64, keepAliveTimeout: 10_000 });

class UpstreamError extends Error {
  constructor(readonly status: number, url: string) {
    super(`GET ${url}: ${status}`);
  }
}

async function get<T>(url: string, headers: Record<string, string> = {}): Promise<T> {
  const response = await request(url, { method: 'GET', dispatcher: agent, headers: { accept: 'application/json', ...headers } });
  if (response.statusCode !== 200) {
    await response.body.dump();
    throw new UpstreamError(response.statusCode, url);
  }
  return (await response.body.json()) as T;
}

/** An asset record, or null when the service does not know it (the screen then shows the listing's token record). */
async function getAsset(address: string): Promise<RawAsset | null> {
  try {
    return await get<RawAsset>(`${ASSETS}/v0/assets/${encodeURIComponent(`solana:${address}`)}`);
  } catch (error) {
    if (error instanceof UpstreamError && error.status === 404) return null;
    throw error;
  }
}

/** Fetches each distinct address once, side by side. */
async function assetsFor(addresses: Iterable<string>): Promise<Map<string, RawAsset | null>> {
  const distinct = [...new Set(addresses)];
  const records = await Promise.all(distinct.map(getAsset));
  return new Map(distinct.map((a, i) => [a, records[i]!]));
}

// ---------------------------------------------------------------------------------------------
// Upstream records (only what the screens read)
// ---------------------------------------------------------------------------------------------

interface RawToken {
  address: string;
  symbol: string;
  decimals: number;
  icon: string | null;
  name?: string | null;
}
interface RawAsset {
  id: string;
  name: string;
  symbol: string;
  imageUrl: string | null;
  decimals: number | null;
  price: { usd: number; change24h: number | null } | null;
}
type RawMarket = Record<string, any> & { id: string; type: string; productName: string; provider: { id: string; name: string; icon: string } };
type RawPosition = Record<string, any> & { id: string; type: string; marketId: string; amount: number; amountUsd?: number; market?: RawMarket };
interface RawChannel {
  id: string;
  type: string;
  value: string;
  verified: boolean;
  subscribed: boolean;
  subscribedApps?: { id: string; name: string; icon?: string | null }[];
}

// ---------------------------------------------------------------------------------------------
// Mapping to the screens' shape
// ---------------------------------------------------------------------------------------------

const globalId = (type: string, id: string): string => Buffer.from(`${type}:${id}`).toString('base64');
const TYPENAMES: Record<string, string> = {
  lending: 'Lending',
  yield: 'Yield',
  loop: 'Loop',
  perpetual: 'Perpetual',
  reward: 'Reward',
  prediction: 'Prediction',
};
const typename = (type: string, suffix: 'Market' | 'Position') => `${TYPENAMES[type] ?? 'Unknown'}${suffix}`;
const upper = (value: unknown) => (typeof value === 'string' ? value.toUpperCase() : null);
/** A token shown by its id and symbol (the asset's symbol, else the listing's). */
const tokenSymbol = (t: RawToken | undefined, assets: Map<string, RawAsset | null>) =>
  t ? { assetId: `solana:${t.address}`, symbol: assets.get(t.address)?.symbol ?? t.symbol } : null;

/** A token as the mobile and wallet screens show it: id, symbol, logo, price. */
function tokenBrief(t: RawToken | undefined, assets: Map<string, RawAsset | null>) {
  if (!t) return null;
  const a = assets.get(t.address);
  return { assetId: `solana:${t.address}`, symbol: a?.symbol ?? t.symbol, imageUrl: a?.imageUrl ?? t.icon, price: a?.price ? { usd: a.price.usd } : null };
}

/** A token as the markets page shows it: every metadata field and the price. */
function tokenFull(t: RawToken | undefined, assets: Map<string, RawAsset | null>) {
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

const provider = (m: RawMarket) => ({ id: globalId('Provider', m.provider.id), name: m.provider.name, icon: m.provider.icon });
const blink = (b: { blinkUrl?: string } | undefined) => b?.blinkUrl ?? null;
const seconds = (s: number | undefined) => (typeof s === 'number' ? new Date(s * 1000).toISOString() : null);

// ---------------------------------------------------------------------------------------------
// Screens
// ---------------------------------------------------------------------------------------------

const HOME_POSITIONS = 20;
const HOME_MARKETS = 5;

/** MobileHome (test/operations/MobileHome.graphql): the subscriber, its channels, 20 positions with markets and tokens, 5 lending markets. */
async function mobileHome(headers: Record<string, string>) {
  const [auth, channels, summary, lending] = await Promise.all([
    get<{ walletAddress: string }>(`${ALERTS}/v2/auth`, headers),
    get<Record<string, RawChannel>>(`${ALERTS}/v2/channels`, headers),
    get<{ unreadCount: number }>(`${ALERTS}/v2/history/summary`, headers),
    get<{ markets: RawMarket[] }>(`${MARKETS}/v0/markets?type=lending&limit=${HOME_MARKETS}`),
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
async function walletScreen(address: string, first: number) {
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

/** The fields every market shows on the wallet and markets screens. */
function marketHeader(m: RawMarket, withWebsite: boolean): Record<string, unknown> {
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

function walletMarket(m: RawMarket, assets: Map<string, RawAsset | null>) {
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

/** A page of markets with every kind's fields and token assets (bench/throughput/screens.ts `MarketsScreen`). */
async function marketsScreen(first: number) {
  const { markets, cursor } = await get<{ markets: RawMarket[]; cursor: string | null }>(`${MARKETS}/v0/markets?limit=${first}`);
  const tokens = markets.flatMap((m) =>
    (['token', 'borrowToken', 'tokenA', 'tokenB', 'yesToken', 'noToken'] as const).flatMap((k) => (m[k] ? [(m[k] as RawToken).address] : [])),
  );
  const assets = await assetsFor(tokens);
  const edges = markets.map((m, i) => ({ cursor: Buffer.from(`markets:${i + 1}`).toString('base64url'), node: marketsPageNode(m, assets) }));
  return { markets: { pageInfo: { hasNextPage: cursor !== null, endCursor: edges.at(-1)?.cursor ?? null }, edges } };
}

function marketsPageNode(m: RawMarket, assets: Map<string, RawAsset | null>) {
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

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

async function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  let raw = '';
  for await (const chunk of req) raw += chunk;
  return raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload) });
  res.end(payload);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const input = await readJson(req);
  const number = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isInteger(v) && v > 0 && v <= 200 ? v : fallback);
  switch (req.url) {
    case '/health':
      return send(res, 200, { status: 'ok' });
    case '/mobile-home': {
      const authorization = req.headers.authorization;
      const clientKey = req.headers['x-service-client-key'];
      if (typeof authorization !== 'string' || typeof clientKey !== 'string') return send(res, 401, { errors: [{ message: 'unauthenticated' }] });
      return send(res, 200, { data: await mobileHome({ authorization, 'x-service-client-key': clientKey }) });
    }
    case '/wallet': {
      if (typeof input['address'] !== 'string') return send(res, 400, { errors: [{ message: 'address is required' }] });
      return send(res, 200, { data: await walletScreen(input['address'], number(input['first'], 50)) });
    }
    case '/markets':
      return send(res, 200, { data: await marketsScreen(number(input['first'], 100)) });
    default:
      return send(res, 404, { errors: [{ message: 'not found' }] });
  }
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    const status = error instanceof UpstreamError ? 502 : 500;
    if (!res.headersSent) send(res, status, { errors: [{ message: String(error instanceof Error ? error.message : error) }] });
    else res.destroy();
  });
});
server.listen(Number(process.env['PORT'] ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`baseline listening on ${typeof address === 'object' && address ? address.port : '?'}`);
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));

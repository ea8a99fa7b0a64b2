/**
 * Real screens and the bombs the cost limit must tell apart (issue 10): each with the variables it is
 * sent with. The operations of test/operations are measured with the values the frontends send.
 */
import { operation } from '../helpers/gateway.js';

export interface Measured {
  name: string;
  query: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/** Distinct well-formed Solana addresses (base58, 44 characters), for costs that only count them. */
export const addresses = (n: number) => Array.from({ length: n }, (_, i) => `${'A'.repeat(40)}${String(1000 + i)}`.replace(/0/g, 'z'));
const weekAgo = () => new Date(Date.now() - 7 * 86_400_000).toISOString();

const asset = 'assetId symbol name imageUrl decimals metadataSource price { usd change24h }';
const market = `
  __typename id marketId type productName marketName status websiteUrl
  provider { id providerId name icon }
  ... on LendingMarket { depositApy borrowApy totalDepositUsd totalBorrowUsd token { ${asset} } borrowToken { ${asset} } rewards { apy side token { ${asset} } } }
  ... on YieldMarket { depositApy totalDepositUsd token { ${asset} } rewards { apy side token { ${asset} } } }
  ... on LoopMarket { depositApy maxLeverage tokenA { ${asset} } tokenB { ${asset} } }
  ... on PerpetualMarket { maxLeverage liquidity { longUsd shortUsd } tokenA { ${asset} } tokenB { ${asset} } }
  ... on RewardMarket { rewardApy endsAt token { ${asset} } }
  ... on PredictionMarket { title yesAsk noAsk volume yesToken { ${asset} } noToken { ${asset} } }`;
const position = `
  __typename id positionId type amount amountUsd websiteUrl
  rewards { amount amountUsd token { ${asset} } }
  market { ${market} }
  ... on LendingPosition { side ltv liquidationPrice }
  ... on RewardPosition { parentPositionId token { ${asset} } }
  ... on PredictionPosition { side pnl { total } token { ${asset} } }`;

/**
 * Ordinary screens: every one is admitted. `wallet` holds positions, `wallets` are 25 wallets (both
 * from the simulator when run against it; costs do not depend on them).
 */
export const screens = (wallet: string, wallets: string[], appId: string): Measured[] => [
  { name: 'AssetDetail (first: 5)', query: operation('AssetDetail'), variables: { id: 'bitcoin:native', from: weekAgo(), first: 5 } },
  { name: 'AssetDetail (a week, whole range)', query: operation('AssetDetail'), variables: { id: 'bitcoin:native', from: weekAgo() } },
  { name: 'MarketsPage (first: 25)', query: operation('MarketsPage'), variables: { first: 25, filter: { types: ['LENDING', 'LOOP', 'PERPETUAL', 'PREDICTION'] } } },
  { name: 'MarketsPage (first: 100)', query: operation('MarketsPage'), variables: { first: 100 } },
  { name: 'MobileHome', query: operation('MobileHome'), variables: {} },
  { name: 'SearchAssets (first: 5)', query: operation('SearchAssets'), variables: { query: 'sol', first: 5 } },
  { name: 'ViewerInbox (first: 5)', query: operation('ViewerInbox'), variables: { first: 5 } },
  { name: 'WalletHistory (a week, ONE_DAY)', query: operation('WalletHistory'), variables: { address: wallet, from: weekAgo(), resolution: 'ONE_DAY' } },
  { name: 'WalletHistory (a week, ONE_HOUR)', query: operation('WalletHistory'), variables: { address: wallet, from: weekAgo(), resolution: 'ONE_HOUR' } },
  { name: 'WalletPositions (first: 50)', query: operation('WalletPositions'), variables: { address: wallet, first: 50 } },
  { name: 'WalletPositions (first: 100)', query: operation('WalletPositions'), variables: { address: wallet, first: 100 } },
  {
    name: 'SendNotification',
    query: operation('SendNotification'),
    variables: { appId, wallets: wallets.slice(0, 3), key: 'cost-test' },
  },
  { name: 'ChannelSetup PrepareEmail', query: operation('ChannelSetup'), variables: { email: 'someone@example.com' }, operationName: 'PrepareEmail' },
  { name: 'ChannelSetup VerifyEmail', query: operation('ChannelSetup'), variables: { code: '000000' }, operationName: 'VerifyEmail' },
  { name: 'ChannelSetup MarkAllRead', query: operation('ChannelSetup'), variables: {}, operationName: 'MarkAllRead' },
  {
    name: "A wallet's 50 positions with market, provider and token assets",
    query: `query($address: String!) { wallet(address: $address) { address totalValueUsd positions(first: 50) { totalCount edges { node { ${position} } } } } }`,
    variables: { address: wallet },
  },
  {
    name: "100 markets with every kind's fields and token assets",
    query: `query($first: Int) { markets(first: $first) { pageInfo { hasNextPage endCursor } edges { cursor node { ${market} } } } }`,
    variables: { first: 100 },
  },
  {
    name: "A dashboard: 25 wallets, each with 50 positions with market, provider and token assets",
    query: `query($a: [String!]!) { wallets(addresses: $a) { address totalValueUsd positions(first: 50) { totalCount edges { node { ${position} } } } } }`,
    variables: { a: wallets.slice(0, 25) },
  },
  {
    name: '25 wallets with their positions',
    query: `query($a: [String!]!) { wallets(addresses: $a) { address totalValueUsd positions { totalCount edges { node { __typename id type amount amountUsd market { id marketId productName provider { name } } } } } } }`,
    variables: { a: wallets.slice(0, 25) },
  },
];

const cycle = (wallet: string, depth: number) =>
  `{ wallet(address: "${wallet}") { ${'positions { edges { node { owner { '.repeat(depth)}address${' } } } }'.repeat(depth)} } }`;

/** Bombs: every one is refused. */
export const bombs = (wallet: string): Measured[] => [
  { name: 'Position -> owner -> positions, 50 deep', query: cycle(wallet, 50), variables: {} },
  {
    name: 'Position -> owner -> positions(first: 100), twice (within the depth limit)',
    query: `{ wallet(address: "${wallet}") { positions(first: 100) { edges { node { owner { positions(first: 100) { edges { node { id market { marketId provider { name } } } } } } } } } } }`,
    variables: {},
  },
  {
    name: '30 aliases of a 100-position wallet',
    query: `{ ${Array.from({ length: 30 }, (_, i) => `w${i}: wallet(address: "${wallet}") { positions(first: 100) { edges { node { id amountUsd market { marketId provider { name } } } } } }`).join(' ')} }`,
    variables: {},
  },
  {
    name: '30 aliases of 200 markets with tokens',
    query: `{ ${Array.from({ length: 30 }, (_, i) => `m${i}: markets(first: 200) { edges { node { marketId ... on LendingMarket { token { symbol price { usd } } } } } }`).join(' ')} }`,
    variables: {},
  },
  {
    name: 'nodes(ids: 100 wallets), each with 100 positions',
    query: `query($ids: [ID!]!) { nodes(ids: $ids) { id ... on Wallet { positions(first: 100) { edges { node { id amountUsd market { marketId } } } } } } }`,
    variables: { ids: addresses(100).map((a) => Buffer.from(`Wallet:${a}`).toString('base64')) },
  },
  {
    name: 'nodes(ids: 100 assets), each with 100 price points',
    query: `query($ids: [ID!]!, $from: DateTime!) { nodes(ids: $ids) { id ... on Asset { priceHistory(from: $from, first: 100) { edges { node { timestamp priceUsd } } } } } }`,
    variables: { ids: Array.from({ length: 100 }, (_, i) => Buffer.from(`Asset:bitcoin:native${i}`).toString('base64')), from: weekAgo() },
  },
];

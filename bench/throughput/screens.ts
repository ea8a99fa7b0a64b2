/**
 * The three screens of the throughput benchmark, as the gateway is asked for them (GraphQL) and as the
 * hand-written baseline serves them (one route each, bench/throughput/baseline/).
 */
import { readFileSync } from 'node:fs';
import type { ServerKind } from './types.js';

export type ScreenName = 'mobile' | 'mobile1000' | 'mobile-cold' | 'wallet' | 'markets';

export interface Screen {
  name: ScreenName;
  title: string;
  /** The GraphQL document the gateway runs. */
  query: string;
  variables: Record<string, unknown>;
  /** The baseline's route for the same screen, and its JSON body. */
  baselinePath: string;
  baselineBody: Record<string, unknown>;
  /** Whether each request carries a subscriber's credentials (rotated over `users` subscribers). */
  signedIn: boolean;
  /** How many distinct subscribers a signed-in screen rotates over. */
  users?: number;
  /** The servers measured on this screen (against the baseline), in turn. */
  servers: readonly ServerKind[];
  /** Every request a user the process was never sent: a warm window never holds more requests than users are left. */
  distinctUsers?: boolean;
}

/** How many distinct subscribers the many-users mobile screen rotates over. */
export const MANY_USERS = 1000;
/** Subscribers of the cold per-user screen: the simulator's most, more than any process of the rig is sent. */
export const COLD_USERS = 10_000;
/** Subscribers of the hot mobile screen: twice the connections, so no two connections send one user's request at once. */
const HOT_USERS = 100;
const DEFAULTS: readonly ServerKind[] = ['gateway', 'gateway-off', 'baseline'];
/** How many positions the wallet screen asks for. */
export const WALLET_POSITIONS = 50;
/** How many markets the markets screen asks for. */
export const MARKETS_PAGE = 100;

const TOKEN = 'assetId symbol imageUrl price { usd }';
const FULL_TOKEN = 'assetId symbol name decimals imageUrl metadataSource price { usd change24h }';

/** A wallet's positions with their markets, providers and token assets (prices included). */
export const WALLET_SCREEN = /* GraphQL */ `
  query WalletScreen($address: String!, $first: Int) {
    wallet(address: $address) {
      id
      address
      totalValueUsd
      positions(first: $first) {
        totalCount
        edges {
          node {
            __typename
            id
            positionId
            type
            amount
            amountUsd
            websiteUrl
            rewards { amount amountUsd token { ${TOKEN} } }
            market {
              __typename
              id
              marketId
              type
              productName
              marketName
              status
              provider { id name icon }
              ... on LendingMarket { depositApy borrowApy token { ${TOKEN} } }
              ... on YieldMarket { depositApy token { ${TOKEN} } }
              ... on LoopMarket { depositApy maxLeverage tokenA { ${TOKEN} } tokenB { ${TOKEN} } }
              ... on PerpetualMarket { maxLeverage tokenA { ${TOKEN} } tokenB { ${TOKEN} } }
              ... on PredictionMarket { title yesAsk noAsk }
            }
            ... on LendingPosition { side ltv liquidationPrice }
            ... on LoopPosition { leverage amountTokenA amountTokenB }
            ... on PerpetualPosition { side leverage entryPrice markPrice }
            ... on RewardPosition { parentPositionId token { ${TOKEN} } }
            ... on PredictionPosition {
              side
              token { assetId symbol }
              costBasis { averageEntryPrice totalCapitalCommitted }
              pnl { total realized unrealized }
            }
          }
        }
      }
    }
  }
`;

/** A page of markets selecting the fields of every market kind, with their token assets. */
export const MARKETS_SCREEN = /* GraphQL */ `
  query MarketsScreen($first: Int, $after: String) {
    markets(first: $first, after: $after) {
      pageInfo { hasNextPage endCursor }
      edges {
        cursor
        node {
          __typename
          id
          marketId
          type
          productName
          marketName
          websiteUrl
          status
          provider { id name icon }
          ... on LendingMarket {
            depositApy baseDepositApy borrowApy baseBorrowApy
            apyAverages { deposit30d deposit90d deposit180d borrow30d borrow90d borrow180d }
            totalDeposit totalDepositUsd totalBorrow totalBorrowUsd
            limits { maxDeposit maxBorrow maxLtv liquidationLtv }
            actions { deposit withdraw borrow repay repayWithCollateral }
            token { ${FULL_TOKEN} }
            borrowToken { ${FULL_TOKEN} }
          }
          ... on YieldMarket {
            depositApy baseDepositApy totalDeposit totalDepositUsd
            apyAverages { deposit30d deposit90d deposit180d }
            token { ${FULL_TOKEN} }
          }
          ... on LoopMarket {
            depositApy maxLeverage limits { maxLtv liquidationLtv }
            tokenA { ${FULL_TOKEN} }
            tokenB { ${FULL_TOKEN} }
          }
          ... on PerpetualMarket {
            maxLeverage liquidity { longUsd shortUsd }
            tokenA { ${FULL_TOKEN} }
            tokenB { ${FULL_TOKEN} }
          }
          ... on PredictionMarket {
            title subtitle result yesBid yesAsk noBid noAsk volume openInterest openTime closeTime expirationTime
            yesToken { assetId symbol }
            noToken { assetId symbol }
          }
        }
      }
    }
  }
`;

export function screens(wallet: string): Screen[] {
  const mobileHome = readFileSync(new URL('../../test/operations/MobileHome.graphql', import.meta.url), 'utf8');
  return [
    {
      name: 'mobile',
      title: `Mobile home (MobileHome, ${HOT_USERS} subscribers rotated)`,
      query: mobileHome,
      variables: {},
      baselinePath: '/mobile-home',
      baselineBody: {},
      signedIn: true,
      users: HOT_USERS,
      servers: DEFAULTS,
    },
    {
      name: 'mobile1000',
      title: 'Mobile home (MobileHome, 1,000 distinct subscribers: most requests miss the response cache)',
      query: mobileHome,
      variables: {},
      baselinePath: '/mobile-home',
      baselineBody: {},
      signedIn: true,
      users: MANY_USERS,
      servers: DEFAULTS,
    },
    {
      name: 'mobile-cold',
      title: `Mobile home, cold per user (each request a different one of ${COLD_USERS.toLocaleString('en')} subscribers, per-user sharing off)`,
      query: mobileHome,
      variables: {},
      baselinePath: '/mobile-home',
      baselineBody: {},
      signedIn: true,
      users: COLD_USERS,
      servers: ['gateway-cold', 'baseline'],
      distinctUsers: true,
    },
    {
      name: 'wallet',
      title: `Wallet: ${WALLET_POSITIONS} positions with markets, providers, tokens`,
      query: WALLET_SCREEN,
      variables: { address: wallet, first: WALLET_POSITIONS },
      baselinePath: '/wallet',
      baselineBody: { address: wallet, first: WALLET_POSITIONS },
      signedIn: false,
      servers: DEFAULTS,
    },
    {
      name: 'markets',
      title: `Markets: a page of ${MARKETS_PAGE}, every kind's fields and tokens`,
      query: MARKETS_SCREEN,
      variables: { first: MARKETS_PAGE },
      baselinePath: '/markets',
      baselineBody: { first: MARKETS_PAGE },
      signedIn: false,
      servers: DEFAULTS,
    },
  ];
}

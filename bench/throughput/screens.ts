/**
 * The three screens of the throughput benchmark, as the gateway is asked for them (GraphQL) and as the
 * hand-written baseline serves them (one route each, bench/throughput/baseline.ts).
 */
import { readFileSync } from 'node:fs';

export type ScreenName = 'mobile' | 'mobile1000' | 'wallet' | 'markets';

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
}

/** How many distinct subscribers the many-users mobile screen rotates over. */
export const MANY_USERS = 1000;
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
  return [
    {
      name: 'mobile',
      title: 'Mobile home (MobileHome, 20 subscribers rotated)',
      query: readFileSync(new URL('../../test/operations/MobileHome.graphql', import.meta.url), 'utf8'),
      variables: {},
      baselinePath: '/mobile-home',
      baselineBody: {},
      signedIn: true,
      users: 20,
    },
    {
      name: 'mobile1000',
      title: 'Mobile home (MobileHome, 1,000 distinct subscribers: most requests miss the response cache)',
      query: readFileSync(new URL('../../test/operations/MobileHome.graphql', import.meta.url), 'utf8'),
      variables: {},
      baselinePath: '/mobile-home',
      baselineBody: {},
      signedIn: true,
      users: MANY_USERS,
    },
    {
      name: 'wallet',
      title: `Wallet: ${WALLET_POSITIONS} positions with markets, providers, tokens`,
      query: WALLET_SCREEN,
      variables: { address: wallet, first: WALLET_POSITIONS },
      baselinePath: '/wallet',
      baselineBody: { address: wallet, first: WALLET_POSITIONS },
      signedIn: false,
    },
    {
      name: 'markets',
      title: `Markets: a page of ${MARKETS_PAGE}, every kind's fields and tokens`,
      query: MARKETS_SCREEN,
      variables: { first: MARKETS_PAGE },
      baselinePath: '/markets',
      baselineBody: { first: MARKETS_PAGE },
      signedIn: false,
    },
  ];
}

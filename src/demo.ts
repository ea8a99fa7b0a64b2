/**
 * Headers GraphiQL opens with in development, besides the demo credentials: `X-Gateway-Debug: 1` puts
 * the upstream ledger (the calls, cache uses and budget of each operation) in the result's `extensions`.
 */
export const DEV_HEADERS: Readonly<Record<string, string>> = { 'X-Gateway-Debug': '1' };

/** What GraphiQL opens with in development: one round trip for a home screen, ready to run. */
export const DEMO_QUERY = `# Welcome! The demo subscriber's headers are filled in below (Headers tab).
# Run this, then try \`wallet(address:)\`, \`markets(filter:)\` or \`searchAssets(query:)\`.
# Live prices tick over server-sent events: replace this document with
#   subscription { prices(assetIds: ["solana:So11111111111111111111111111111111111111112", "bitcoin:native", "stock:AAPL"]) { asset { symbol } usd change24h asOf stale } }
query Home {
  viewer {
    walletAddress
    unreadCount
    channels { key type value verified }
    wallet {
      totalValueUsd
      positions(first: 5) {
        totalCount
        edges {
          node {
            __typename
            type
            amountUsd
            market { productName provider { name } }
          }
        }
      }
    }
  }
  markets(first: 3, filter: { types: [LENDING] }) {
    edges {
      node {
        marketId
        productName
        ... on LendingMarket { depositApy borrowApy token { symbol price { usd } } }
      }
    }
  }
}
`;

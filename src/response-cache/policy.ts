import {
  getNamedType,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type GraphQLNamedType,
  type GraphQLSchema,
} from 'graphql';
import type { ResponseCacheTtls } from '../config.js';

/**
 * What kind of data each composite type holds, which decides how long a result holding it may be
 * cached and for whom. `private` data is the caller's own: cached per credentials only. `shared`
 * types (page info) are public and hold nothing that ages: they bound no TTL. `live` data describes
 * this very answer (freshness: a cached result would repeat an ORIGIN or a stale flag that are no
 * longer true): a document selecting it is not cached.
 */
export type DataKind = keyof ResponseCacheTtls | 'shared' | 'live';

/**
 * Every object, interface and union type reachable from `Query`. A type that can reach a caller's own
 * data through any field (or, for `Node`, any possible type) must be `private`: the schema test walks
 * the schema and fails otherwise, and a type missing here counts as private.
 */
export const DATA_KINDS: Readonly<Record<string, DataKind>> = {
  // The caller's own data.
  Subscriber: 'private',
  Channel: 'private',
  SubscribedApp: 'private',
  Topic: 'private', // `subscribed` is the caller's
  Notification: 'private',
  NotificationAction: 'private',
  NotificationConnection: 'private',
  NotificationEdge: 'private',
  Node: 'private', // `node(id:)` may answer a Subscriber or a Channel

  Market: 'markets',
  LendingMarket: 'markets',
  LoopMarket: 'markets',
  PerpetualMarket: 'markets',
  PredictionMarket: 'markets',
  RewardMarket: 'markets',
  YieldMarket: 'markets',
  LendingMarketActions: 'markets',
  LoopMarketActions: 'markets',
  PerpetualMarketActions: 'markets',
  RewardMarketActions: 'markets',
  YieldMarketActions: 'markets',
  ApyAverages: 'markets',
  MarketApyPoint: 'markets',
  MarketConnection: 'markets',
  MarketEdge: 'markets',
  MarketIncentive: 'markets',
  MarketLimits: 'markets',
  PerpetualLiquidity: 'markets',
  Provider: 'markets',

  AssetPrice: 'prices',
  PricePoint: 'prices',
  PricePointConnection: 'prices',
  PricePointEdge: 'prices',
  // Wallets are public on chain; their values move with prices.
  Wallet: 'prices',
  WalletPositionsConnection: 'prices',
  WalletPositionsEdge: 'prices',
  WalletValuePoint: 'prices',
  Position: 'prices',
  LendingPosition: 'prices',
  LoopPosition: 'prices',
  PerpetualPosition: 'prices',
  PredictionPosition: 'prices',
  RewardPosition: 'prices',
  YieldPosition: 'prices',
  LendingPositionActions: 'prices',
  CostBasis: 'prices',
  PositionReward: 'prices',
  ProfitAndLoss: 'prices',

  Asset: 'metadata',
  AssetSearchConnection: 'metadata',
  AssetSearchEdge: 'metadata',

  PageInfo: 'shared',
  Freshness: 'live',
};

/** The types the issue names as a caller's own data: everything that can reach one is private too. */
export const PRIVATE_ROOTS = ['Subscriber', 'Channel', 'SubscribedApp', 'Notification', 'NotificationConnection'] as const;

/** How one query document may be cached; `null` when it may not be (mutation, subscription, introspection, unparsable). */
export interface CachePolicy {
  scope: 'PUBLIC' | 'PRIVATE';
  ttlMs: number;
}

/**
 * Reads a query document's cache policy from the types its fields return: private when any selected
 * field returns private data, and the shortest TTL of the kinds of data selected. Decided from the
 * document alone, so a public answer is shared by every caller whatever credentials they send.
 */
export function documentPolicy(
  schema: GraphQLSchema,
  document: DocumentNode,
  ttls: Readonly<ResponseCacheTtls>,
  kinds: Readonly<Record<string, DataKind>> = DATA_KINDS,
): CachePolicy | null {
  if (document.definitions.some((d) => d.kind === Kind.OPERATION_DEFINITION && d.operation !== OperationTypeNode.QUERY)) return null;
  const typeInfo = new TypeInfo(schema);
  let cacheable = true;
  let isPrivate = false;
  let ttlMs = Math.min(ttls.markets, ttls.prices, ttls.metadata);
  let bounded = false;
  const note = (type: GraphQLNamedType | undefined) => {
    if (!type || !isCompositeType(type)) return;
    if (type.name.startsWith('__')) {
      cacheable = false;
      return;
    }
    const kind = kinds[type.name] ?? 'private';
    if (kind === 'shared') return;
    if (kind === 'live') {
      cacheable = false;
      return;
    }
    if (kind === 'private') isPrivate = true;
    ttlMs = bounded ? Math.min(ttlMs, ttls[kind]) : ttls[kind];
    bounded = true;
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Field: () => note(getNamedType(typeInfo.getType() ?? undefined)),
      InlineFragment: () => note(typeInfo.getType() ? getNamedType(typeInfo.getType()!) : undefined),
      FragmentDefinition: () => note(typeInfo.getType() ? getNamedType(typeInfo.getType()!) : undefined),
    }),
  );
  if (!cacheable) return null;
  if (isPrivate) ttlMs = Math.min(ttlMs, ttls.private);
  return { scope: isPrivate ? 'PRIVATE' : 'PUBLIC', ttlMs };
}

/**
 * Checks `kinds` against the schema: every type reachable from `Query` has a kind, and every type
 * that can reach one of `privateRoots` (through a field, or as an interface or union through a
 * possible type) is private. Returns the faults, one line each; none when the policy is sound.
 */
export function policyFaults(
  schema: GraphQLSchema,
  kinds: Readonly<Record<string, DataKind>> = DATA_KINDS,
  privateRoots: readonly string[] = PRIVATE_ROOTS,
): string[] {
  const query = schema.getQueryType();
  if (!query) return [];
  const edges = new Map<string, Set<string>>();
  const reachable = new Set<string>();
  const pending: GraphQLNamedType[] = [query];
  while (pending.length > 0) {
    const type = pending.pop()!;
    const next = new Set<string>();
    if (isObjectType(type) || isInterfaceType(type)) {
      for (const field of Object.values(type.getFields())) next.add(getNamedType(field.type).name);
    }
    if (isAbstractType(type)) for (const possible of schema.getPossibleTypes(type)) next.add(possible.name);
    edges.set(type.name, next);
    for (const name of next) {
      const target = schema.getType(name)!;
      if (!isCompositeType(target) || reachable.has(name)) continue;
      reachable.add(name);
      pending.push(target);
    }
  }

  // Fixpoint: a type is private data when it is a root or leads to private data.
  const reachesPrivate = new Set<string>(privateRoots);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, targets] of edges) {
      if (reachesPrivate.has(name) || name === query.name) continue;
      if ([...targets].some((t) => reachesPrivate.has(t))) {
        reachesPrivate.add(name);
        grew = true;
      }
    }
  }

  const faults: string[] = [];
  for (const name of [...reachable].sort()) {
    const kind = kinds[name];
    if (kind === undefined) faults.push(`${name}: no data kind (add it to DATA_KINDS)`);
    else if (reachesPrivate.has(name) && kind !== 'private') faults.push(`${name}: reaches private data but is cached as ${kind} (public)`);
  }
  return faults;
}

import { marketTokens, type Market, type Position, type Provider, type TokenRef } from '../models/index.js';

/**
 * The upstreams repeat the same records many times: every market of a provider carries its own copy of
 * the provider, markets of one token their own copy of the token, and each position its market's whole
 * record, links and texts included, parsed into strings and objects of their own. What the stores hold
 * across requests (the market index, the shared positions) takes one object or string for equal values
 * instead, so that a held record keeps only what differs from the one it repeats.
 */

/** Deepest nesting compared: a market's parts are two levels deep; deeper passthrough values are shared only when identical. */
const MAX_DEPTH = 4;

type Plain = Record<string, unknown>;

const isPlain = (value: unknown): value is Plain =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype;

/** Whether two values of mapped upstream data are equal: primitives, plain objects and arrays, to `MAX_DEPTH`. */
export function sameValue(a: unknown, b: unknown, depth = 0): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth >= MAX_DEPTH) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i], depth + 1)) return false;
    return true;
  }
  if (!isPlain(a) || !isPlain(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) if (!Object.hasOwn(b, key) || !sameValue(a[key], b[key], depth + 1)) return false;
  return true;
}

const sameProvider = (a: Provider, b: Provider) => a === b || (a.providerId === b.providerId && a.name === b.name && a.icon === b.icon);

/** Whether two token records are equal, field by field (the mapped shape is fixed). */
export const sameToken = (a: TokenRef, b: TokenRef) =>
  a === b || (a.assetId === b.assetId && a.address === b.address && a.symbol === b.symbol && a.decimals === b.decimals && a.icon === b.icon && a.name === b.name);

/**
 * One provider and token object per equal record over a listing read: the markets of one read hand
 * out the first one seen. Lives for one read; the objects it handed out stay with their markets.
 */
export class ListingParts {
  readonly #providers = new Map<string, Provider>();
  readonly #tokens = new Map<string, TokenRef>();

  /** `market` with its provider and tokens replaced by equal ones seen before in this read. */
  share(market: Market): void {
    const provider = this.#providers.get(market.provider.providerId);
    if (provider === undefined) this.#providers.set(market.provider.providerId, market.provider);
    else if (sameProvider(provider, market.provider)) market.provider = provider;
    const tokens = market as unknown as Record<string, TokenRef | null | undefined>;
    for (const key of TOKEN_FIELDS) {
      const token = tokens[key];
      if (token) tokens[key] = this.#token(token);
    }
    if ('rewards' in market) for (const reward of market.rewards) reward.token = this.#token(reward.token);
  }

  #token(token: TokenRef): TokenRef {
    const first = this.#tokens.get(token.assetId);
    if (first === undefined) this.#tokens.set(token.assetId, token);
    return first !== undefined && sameToken(first, token) ? first : token;
  }
}

const TOKEN_FIELDS = ['token', 'borrowToken', 'tokenA', 'tokenB', 'yesToken', 'noToken'] as const;

/** `like`'s token when equal to `mine` (each field compared: the mapped shape is fixed), else `mine`. */
const oneToken = <T extends TokenRef | null>(mine: T, like: TokenRef | null): T => (mine !== null && like !== null && sameToken(mine, like) ? (like as T) : mine);

/** `like`'s part when equal to `mine`, else `mine`. */
const onePart = <T>(mine: T, like: T): T => (mine !== like && sameValue(mine, like) ? like : mine);

/**
 * An embedded market takes its index record's equal parts: the provider, tokens, links, passthrough
 * data and averages, and the longest texts. Each field by name: a generic walk over the keys costs
 * several times as much CPU for the same sharing.
 */
function shareMarketParts(mine: Market, like: Market): void {
  if (mine.marketId === like.marketId) mine.marketId = like.marketId;
  if (mine.websiteUrl !== null && mine.websiteUrl === like.websiteUrl) mine.websiteUrl = like.websiteUrl;
  if (sameProvider(mine.provider, like.provider)) mine.provider = like.provider;
  mine.actions = onePart(mine.actions, like.actions);
  mine.additionalData = onePart(mine.additionalData, like.additionalData);
  if (mine.type === 'LENDING' && like.type === 'LENDING') {
    mine.token = oneToken(mine.token, like.token);
    mine.borrowToken = oneToken(mine.borrowToken, like.borrowToken);
    mine.apyAverages = onePart(mine.apyAverages, like.apyAverages);
    mine.limits = onePart(mine.limits, like.limits);
  } else if (mine.type === 'YIELD' && like.type === 'YIELD') {
    mine.token = oneToken(mine.token, like.token);
    mine.apyAverages = onePart(mine.apyAverages, like.apyAverages);
  } else if ((mine.type === 'LOOP' && like.type === 'LOOP') || (mine.type === 'PERPETUAL' && like.type === 'PERPETUAL')) {
    mine.tokenA = oneToken(mine.tokenA, like.tokenA);
    mine.tokenB = oneToken(mine.tokenB, like.tokenB);
  } else if (mine.type === 'REWARD' && like.type === 'REWARD') mine.token = oneToken(mine.token, like.token);
  else if (mine.type === 'PREDICTION' && like.type === 'PREDICTION') {
    mine.yesToken = oneToken(mine.yesToken, like.yesToken);
    mine.noToken = oneToken(mine.noToken, like.noToken);
    if (mine.title === like.title) mine.title = like.title;
  }
}

/**
 * A position as held for sharing: its embedded market takes the index's record's equal parts (`like`,
 * the same market in the index; none when the index does not hold it), its links and token the
 * market's equal ones, and its owner the wallet's one string. Changes `position` in place.
 */
export function sharePositionParts(position: Position, owner: string, like: Market | undefined): void {
  if (position.ownerAddress === owner) position.ownerAddress = owner;
  if (like && position.market) shareMarketParts(position.market, like);
  const market = position.market ?? like;
  if (!market) return;
  if (position.marketId === market.marketId) position.marketId = market.marketId;
  if (position.websiteUrl !== null && position.websiteUrl === market.websiteUrl) position.websiteUrl = market.websiteUrl;
  // A position's links are some of its market's, by action.
  const links = position.actions;
  for (const action in links) if (links[action] === market.actions[action]) links[action] = market.actions[action]!;
  if (position.type === 'PREDICTION' && position.token && market.type === 'PREDICTION') {
    position.token = oneToken(oneToken(position.token, market.yesToken), market.noToken);
  } else if (position.type === 'REWARD') {
    for (const token of marketTokens(market)) position.token = oneToken(position.token, token);
  }
}

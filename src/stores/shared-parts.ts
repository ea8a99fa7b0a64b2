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

/**
 * Each field of `mine` equal to the same field of `like` (a string, or a whole part) becomes `like`'s;
 * a part that differs keeps its own object and shares its fields in turn. Changes `mine` in place.
 */
export function shareEqualFields(mine: Plain, like: Plain, depth = 0): void {
  for (const key of Object.keys(mine)) {
    const value = mine[key];
    if (typeof value !== 'string' && typeof value !== 'object') continue;
    if (value === null || !Object.hasOwn(like, key)) continue;
    const theirs = like[key];
    if (value === theirs) {
      // Equal strings: one copy (a no-op when they are already the same string).
      if (typeof value === 'string') mine[key] = theirs;
    } else if (sameValue(value, theirs, depth + 1)) mine[key] = theirs;
    else if (depth + 1 < MAX_DEPTH && isPlain(value) && isPlain(theirs)) shareEqualFields(value, theirs, depth + 1);
  }
}

/**
 * One provider and token object per equal record over a listing read: the markets of one read hand
 * out the first one seen. Lives for one read; the objects it handed out stay with their markets.
 */
export class ListingParts {
  readonly #providers = new Map<string, Provider>();
  readonly #tokens = new Map<string, TokenRef>();

  /** `market` with its provider and tokens replaced by equal ones seen before in this read. */
  share(market: Market): void {
    market.provider = this.#one(this.#providers, market.provider.providerId, market.provider);
    const tokens = market as unknown as Plain;
    for (const key of TOKEN_FIELDS) {
      const token = tokens[key];
      if (isPlain(token)) tokens[key] = this.#one(this.#tokens, (token as unknown as TokenRef).assetId, token as unknown as TokenRef);
    }
    if ('rewards' in market) for (const reward of market.rewards) reward.token = this.#one(this.#tokens, reward.token.assetId, reward.token);
  }

  #one<T>(seen: Map<string, T>, key: string, value: T): T {
    const first = seen.get(key);
    if (first !== undefined && sameValue(first, value)) return first;
    if (first === undefined) seen.set(key, value);
    return value;
  }
}

const TOKEN_FIELDS = ['token', 'borrowToken', 'tokenA', 'tokenB', 'yesToken', 'noToken'] as const;

/**
 * A position as held for sharing: its embedded market takes the index's record's equal parts (`like`,
 * the same market in the index; none when the index does not hold it), its links and token the
 * market's equal ones, and its owner the wallet's one string. Changes `position` in place.
 */
export function sharePositionParts(position: Position, owner: string, like: Market | undefined): void {
  if (position.ownerAddress === owner) position.ownerAddress = owner;
  const market = position.market ?? like;
  if (like && position.market) shareEqualFields(position.market as unknown as Plain, like as unknown as Plain);
  if (!market) return;
  if (position.marketId === market.marketId) position.marketId = market.marketId;
  if (position.websiteUrl !== null && position.websiteUrl === market.websiteUrl) position.websiteUrl = market.websiteUrl;
  // A position's links are some of its market's, by action.
  const links = position.actions;
  for (const action of Object.keys(links)) if (links[action] === market.actions[action]) links[action] = market.actions[action]!;
  if ((position.type === 'REWARD' || position.type === 'PREDICTION') && position.token) {
    const { assetId } = position.token;
    const same = marketTokens(market).find((token) => token.assetId === assetId && sameValue(token, position.token));
    if (same) position.token = same;
  }
}

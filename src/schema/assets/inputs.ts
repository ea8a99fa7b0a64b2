import { createHash } from 'node:crypto';
import { badUserInput } from '../../errors.js';
import type { AssetType, Resolution } from '../../models/index.js';
import { isValidAssetId } from '../../upstream/index.js';

/** Checks of caller input for the asset fields: every failure is a BAD_USER_INPUT saying what is allowed, before any call. */

export const MAX_ASSET_IDS = 100;
export const SEARCH_PAGE = { default: 20, max: 100 } as const;
export const MAX_QUERY_LENGTH = 100;
/** The assets service answers at most this many points per series call. */
export const MAX_PRICE_POINTS = 2_000;
export const PRICE_RESOLUTIONS = ['FIVE_MINUTES', 'ONE_HOUR', 'ONE_DAY'] as const satisfies readonly Resolution[];

const STEP_MS: Record<(typeof PRICE_RESOLUTIONS)[number], number> = {
  FIVE_MINUTES: 5 * 60_000,
  ONE_HOUR: 60 * 60_000,
  ONE_DAY: 24 * 60 * 60_000,
};

const ID_RULE =
  'an asset id is <chain>:<rest>: chain of 1–32 characters a-z, 0-9 or "-", rest of 1–128 characters A-Z, a-z, 0-9, ".", "_" or "-", not starting with "." and without "..", e.g. solana:So11111111111111111111111111111111111111112 or stock:AAPL';

export function checkAssetId(id: string, field = 'id'): string {
  if (!isValidAssetId(id)) throw badUserInput(`${field} "${clip(id)}" is not an asset id: ${ID_RULE}.`, field);
  return id;
}

export function checkAssetIds(ids: readonly string[]): readonly string[] {
  if (ids.length > MAX_ASSET_IDS) throw badUserInput(`ids holds ${ids.length} ids; at most ${MAX_ASSET_IDS} per request.`, 'ids');
  for (const id of ids) checkAssetId(id, 'ids');
  return ids;
}

export function checkFirst(first: number | null | undefined, limits: { default: number; max: number }, field = 'first'): number {
  if (first === null || first === undefined) return limits.default;
  if (!Number.isInteger(first) || first < 1 || first > limits.max) {
    throw badUserInput(`${field} must be from 1 to ${limits.max}.`, field);
  }
  return first;
}

export function checkSearchQuery(query: string): string {
  const text = query.trim();
  if (text.length > MAX_QUERY_LENGTH) throw badUserInput(`query must be at most ${MAX_QUERY_LENGTH} characters.`, 'query');
  return text;
}

export function checkSearchTypes(types: readonly AssetType[] | null | undefined): AssetType[] | undefined {
  if (!types || types.length === 0) return undefined;
  if (types.includes('UNKNOWN')) throw badUserInput('types accepts TOKEN, STOCK and RWA; UNKNOWN cannot be searched for.', 'types');
  return [...new Set(types)].sort();
}

export interface PriceRange {
  from: Date;
  /** null = now. */
  to: Date | null;
  resolution: (typeof PRICE_RESOLUTIONS)[number];
}

/** A price series request the assets service will accept: a known resolution, from before to, at most 2 000 points. */
export function checkPriceRange(
  args: { from: Date; to?: Date | null; resolution?: Resolution | null },
  now = Date.now(),
): PriceRange {
  const resolution = args.resolution ?? 'ONE_HOUR';
  if (!isPriceResolution(resolution)) {
    throw badUserInput(`resolution must be one of ${PRICE_RESOLUTIONS.join(', ')} for prices; ${resolution} is not offered.`, 'resolution');
  }
  const from = args.from.getTime();
  const to = args.to ? args.to.getTime() : now;
  if (!(from < to)) throw badUserInput(`from must be before to${args.to ? '' : ' (default now)'}.`, 'from');
  const step = STEP_MS[resolution];
  // The series ends now at the latest; its points sit on multiples of the step.
  const points = Math.floor(Math.min(to, now) / step) - Math.ceil(from / step) + 1;
  if (points > MAX_PRICE_POINTS) {
    throw badUserInput(
      `the range holds ${points} points at ${resolution}; at most ${MAX_PRICE_POINTS}: shorten the range or pick a coarser resolution.`,
      'from',
    );
  }
  return { from: args.from, to: args.to ?? null, resolution };
}

function isPriceResolution(value: Resolution): value is PriceRange['resolution'] {
  return (PRICE_RESOLUTIONS as readonly string[]).includes(value);
}

// ---------------------------------------------------------------------------------------------
// Cursors: opaque to callers, checked on the way in.
// ---------------------------------------------------------------------------------------------

const MAX_CURSOR_LENGTH = 1_024;
/** The upstream's cursor rides inside ours: printable ASCII of sane length, or it is not one we issued. */
const UPSTREAM_CURSOR = /^[\x21-\x7e]{1,512}$/;

/** A place in a search: the upstream cursor of a page (null = the first page) and how many of its results lie before it. */
export interface SearchPosition {
  cursor: string | null;
  skip: number;
}

/** Binds a search cursor to its query and types: the upstream refuses cursors of another search. */
export function searchFingerprint(query: string, types: readonly AssetType[] | undefined): string {
  return createHash('sha256')
    .update(JSON.stringify([query.toLowerCase(), types ?? []]))
    .digest('base64url')
    .slice(0, 12);
}

export function encodeSearchCursor(fingerprint: string, position: SearchPosition): string {
  return Buffer.from(JSON.stringify(['search', fingerprint, position.cursor, position.skip])).toString('base64url');
}

export function decodeSearchCursor(after: string, fingerprint: string): SearchPosition {
  const parsed = after.length <= MAX_CURSOR_LENGTH ? parseCursor(after) : null;
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    parsed[0] !== 'search' ||
    (parsed[2] !== null && !(typeof parsed[2] === 'string' && UPSTREAM_CURSOR.test(parsed[2]))) ||
    !Number.isInteger(parsed[3]) ||
    (parsed[3] as number) < 0 ||
    (parsed[3] as number) > SEARCH_PAGE.max
  ) {
    throw badUserInput('after is not a cursor of searchAssets: pass an endCursor or edge cursor it returned.', 'after');
  }
  if (parsed[1] !== fingerprint) {
    throw badUserInput('after belongs to another search: a cursor pages only the query and types it came from.', 'after');
  }
  return { cursor: parsed[2] as string | null, skip: parsed[3] as number };
}

/** A price point's cursor is its timestamp: stable while the series grows at its end. */
export function encodePointCursor(timestamp: string): string {
  return Buffer.from(`PricePoint:${timestamp}`).toString('base64url');
}

export function decodePointCursor(cursor: string, field: 'after' | 'before'): number {
  const text = cursor.length <= MAX_CURSOR_LENGTH ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  const time = text.startsWith('PricePoint:') ? Date.parse(text.slice('PricePoint:'.length)) : Number.NaN;
  if (Number.isNaN(time)) throw badUserInput(`${field} is not a cursor of priceHistory: pass a cursor it returned.`, field);
  return time;
}

function parseCursor(cursor: string): unknown {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

import { badUserInput } from '../../errors.js';
import { isValidAssetId, MAX_HISTORY_POINTS, PRICE_HISTORY_RESOLUTIONS, type AssetType } from '../../models/index.js';
import { cursorFingerprint, decodeCursor, encodeCursor, fieldsOf, type CursorSigning } from '../common/cursor.js';
import type { WindowRules } from '../common/inputs.js';
import { boundCursors, type UpstreamCursors } from '../common/upstream-page.js';

/** Checks of caller input for the asset fields: every failure is a BAD_USER_INPUT saying what is allowed, before any call. */

export const MAX_ASSET_IDS = 100;
export const SEARCH_PAGE = { default: 20, max: 100 } as const;
export const MAX_QUERY_LENGTH = 100;

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

export type PriceResolution = (typeof PRICE_HISTORY_RESOLUTIONS)[number];

/**
 * What `Asset.priceHistory` accepts: the window of the assets service's price history. The range itself
 * may hold any number of points: one page of it holds at most `MAX_HISTORY_POINTS` (what one upstream
 * call answers), and `first`/`after` page through the rest.
 */
export const PRICE_HISTORY_WINDOW: WindowRules<PriceResolution> = {
  field: 'priceHistory',
  resolutions: PRICE_HISTORY_RESOLUTIONS,
  defaultResolution: 'ONE_HOUR',
  strictOrder: true,
};

/** The most points one page of `priceHistory` holds: one upstream call's worth. */
export const PRICE_HISTORY_PAGE = { default: MAX_HISTORY_POINTS, max: MAX_HISTORY_POINTS } as const;

// ---------------------------------------------------------------------------------------------
// Cursors: opaque to callers, checked on the way in.
// ---------------------------------------------------------------------------------------------

/** The cursors of one search: bound to its query and types, as the upstream refuses cursors of another search. */
export function searchCursors(query: string, types: readonly AssetType[] | undefined, signing: CursorSigning): UpstreamCursors {
  return boundCursors({
    signing,
    kind: 'searchAssets',
    fingerprint: cursorFingerprint([query.toLowerCase(), types ?? []]),
    maxSkip: SEARCH_PAGE.max,
    notOurs: 'after is not a cursor of searchAssets: pass an endCursor or edge cursor it returned.',
    otherArguments: 'after belongs to another search: a cursor pages only the query and types it came from.',
  });
}

/** A price point's cursor is its timestamp: stable while the series grows at its end. */
export function encodePointCursor(signing: CursorSigning, timestamp: string): string {
  return encodeCursor(signing, { at: timestamp });
}

export function decodePointCursor(signing: CursorSigning, cursor: string, field: 'after' | 'before'): number {
  return decodeCursor(
    signing,
    cursor,
    (payload) => {
      const at = fieldsOf(payload)?.['at'];
      const time = typeof at === 'string' ? Date.parse(at) : Number.NaN;
      return Number.isNaN(time) ? null : time;
    },
    { field, message: `${field} is not a cursor of priceHistory: pass a cursor it returned.` },
  );
}

function clip(text: string): string {
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

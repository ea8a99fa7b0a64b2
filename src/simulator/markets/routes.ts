/**
 * The markets and positions service (docs/upstream.md section 2).
 *
 * Where the contract is silent, this simulator decides:
 * - cursors are base64url JSON `{"o": offset, "f": fingerprint}`; the fingerprint covers the normalised
 *   type / provider / asset lists and the prediction statuses (default applied), not `limit`;
 * - `asset` also accepts `solana:<address>`; an unknown provider or asset just matches nothing;
 * - `filters` ignores unknown keys; a bad `prediction.status` (or an empty list) is 400;
 * - markets/history: unknown ids are omitted; ids are deduplicated and answered in request order;
 *   points before 2025-10-08 are not produced (no 400); `endTime` later than now is clamped to now;
 *   no point limit; loop/reward markets have `depositApy` only, perpetual/prediction all nulls;
 * - positions/owners: `walletAddresses` required; unknown wallets give no positions; `market.status`
 *   takes a single value; with it, reward entries without an embedded market are left out;
 * - positions/history: `startTime` required; `endTime` clamped to now; the 2,000-point limit is
 *   counted on that clamped range; timestamps are aligned to the resolution (UTC); a position has
 *   `amount: 0, amountUsd: 0` before it was opened; unknown wallet → `positions: []`;
 * - times are ISO 8601 strings or epoch seconds/ms as digits.
 */
import { BadRequest, ok, type Router } from '../router.js';
import {
  DATA_START_MS,
  MARKET_STATUSES,
  MARKET_TYPES,
  RESOLUTION_MS,
  gridCount,
  timeGrid,
  type Market,
  type MarketStatus,
  type MarketType,
  type Position,
  type World,
} from '../world/index.js';
import { decodeCursor, encodeCursor, enumParam, fingerprint, intParam, list, requireClientKey, timeRange } from '../world/query.js';

export const MARKETS_LIMIT = { min: 1, max: 200, default: 50 } as const;
export const MARKET_HISTORY_MAX_IDS = 50;
export const POSITIONS_MAX_WALLETS = 25;
export const POSITIONS_HISTORY_MAX_POINTS = 2000;

const iso = (t: number): string => new Date(t).toISOString();

export function registerMarketsRoutes(router: Router, world: World, opts: { clientKey?: string }): void {
  const key = opts.clientKey;
  // Token addresses of each market (token / tokenA / tokenB), for the `asset` filter.
  const tokensOf = new Map<string, string[]>();
  for (const m of world.markets) tokensOf.set(m.id, marketTokenAddresses(m));

  router.get(
    '/v0/markets',
    requireClientKey(key, (req) => {
      const q = req.query;
      const types = list(q, 'type');
      for (const t of types ?? []) {
        if (!(MARKET_TYPES as readonly string[]).includes(t)) {
          throw new BadRequest(`unknown type "${t}": expected a comma list of ${MARKET_TYPES.join(', ')}`);
        }
      }
      const providers = list(q, 'provider');
      const assets = list(q, 'asset')?.map((a) => (a.startsWith('solana:') ? a.slice('solana:'.length) : a));
      const limit = intParam(q, 'limit', MARKETS_LIMIT.min, MARKETS_LIMIT.max, MARKETS_LIMIT.default);
      const statuses = predictionStatuses(q.get('filters'));

      const typeSet = types ? new Set(types) : undefined;
      const providerSet = providers ? new Set(providers) : undefined;
      const assetSet = assets ? new Set(assets) : undefined;
      const statusSet = new Set<string>(statuses);
      const fp = fingerprint({
        t: typeSet ? [...typeSet].sort() : null,
        p: providerSet ? [...providerSet].sort() : null,
        a: assetSet ? [...assetSet].sort() : null,
        s: statuses,
      });
      const offset = decodeCursor(q, fp);

      const matched = world.markets.filter(
        (m) =>
          (!typeSet || typeSet.has(m.type)) &&
          (!providerSet || providerSet.has(m.provider.id)) &&
          (!assetSet || tokensOf.get(m.id)!.some((a) => assetSet.has(a))) &&
          (m.type !== 'prediction' || statusSet.has(m.status)),
      );
      const page = matched.slice(offset, offset + limit);
      const next = offset + limit;
      return ok({ markets: page, cursor: next < matched.length ? encodeCursor(next, fp) : null });
    }),
  );

  router.get(
    '/v0/markets/history',
    requireClientKey(key, (req) => {
      const q = req.query;
      const ids = list(q, 'marketIds');
      if (!ids) throw new BadRequest('marketIds is required (a comma list of market ids)');
      const unique = [...new Set(ids)];
      if (unique.length > MARKET_HISTORY_MAX_IDS) throw new BadRequest(`marketIds accepts at most ${MARKET_HISTORY_MAX_IDS} ids`);
      const { from: start, to: end } = timeRange(q, 'startTime', 'endTime', Date.now());
      const resolution = enumParam(q, 'resolution', ['1h', '1d'] as const, '1d');
      const grid = timeGrid(Math.max(start, DATA_START_MS), end, RESOLUTION_MS[resolution]);
      const markets = unique
        .filter((id) => world.marketsById.has(id))
        .map((id) => ({
          id,
          history: grid.map((t) => ({ timestamp: iso(t), ...world.marketPointAt(id, t)! })),
        }));
      return ok({ data: { markets } });
    }),
  );

  router.get(
    '/v0/positions/owners',
    requireClientKey(key, (req) => {
      const q = req.query;
      const wallets = list(q, 'walletAddresses');
      if (!wallets) throw new BadRequest('walletAddresses is required');
      const unique = [...new Set(wallets)];
      if (unique.length > POSITIONS_MAX_WALLETS) throw new BadRequest(`walletAddresses accepts at most ${POSITIONS_MAX_WALLETS} addresses`);
      const type = singleType(q.get('type'));
      const status = enumParam(q, 'market.status', MARKET_STATUSES);
      const bundleIds = list(q, 'bundleIds');
      const bundleSet = bundleIds ? new Set(bundleIds) : undefined;
      const now = Date.now();
      const positions: Position[] = [];
      for (const wallet of unique) {
        for (const record of world.positionsByOwner.get(wallet) ?? []) {
          const p = record.position;
          if (type && p.type !== type) continue;
          if (status && p.market?.status !== status) continue;
          if (bundleSet && (!p.bundleId || !bundleSet.has(p.bundleId))) continue;
          positions.push(world.positionAt(record, now));
        }
      }
      return ok({ positions });
    }),
  );

  router.get(
    '/v0/positions/history',
    requireClientKey(key, (req) => {
      const q = req.query;
      const wallet = q.get('walletAddress')?.trim();
      if (!wallet) throw new BadRequest('walletAddress is required');
      if (wallet.includes(',')) throw new BadRequest('walletAddress takes one address per call');
      const { from: start, to: end } = timeRange(q, 'startTime', 'endTime', Date.now());
      if (start < DATA_START_MS) throw new BadRequest(`startTime must not be before ${iso(DATA_START_MS)}: no data exists earlier`);
      const resolution = enumParam(q, 'resolution', ['1m', '5m', '1h', '1d'] as const, '1h');
      const step = RESOLUTION_MS[resolution];
      const count = gridCount(start, end, step);
      if (count > POSITIONS_HISTORY_MAX_POINTS) {
        throw new BadRequest(
          `the range holds ${count} points at resolution ${resolution}; at most ${POSITIONS_HISTORY_MAX_POINTS} per position per call`,
        );
      }
      const ids = list(q, 'positionIds');
      const idSet = ids ? new Set(ids) : undefined;
      const grid = timeGrid(start, end, step);
      const positions = (world.positionsByOwner.get(wallet) ?? [])
        .filter((r) => !idSet || idSet.has(r.position.id))
        .map((r) => ({
          id: r.position.id,
          type: r.position.type,
          marketId: r.position.marketId,
          history: grid.map((t) => ({ timestamp: iso(t), ...world.positionValueAt(r, t) })),
        }));
      return ok({ data: { positions } });
    }),
  );
}

/** `token`, `tokenA` and `tokenB` addresses of a market. */
export function marketTokenAddresses(m: Market): string[] {
  switch (m.type) {
    case 'yield':
    case 'lending':
    case 'reward':
      return [m.token.address];
    case 'loop':
    case 'perpetual':
      return [m.tokenA.address, m.tokenB.address];
    default:
      return [];
  }
}

/** The prediction statuses of `filters` (URL-decoded JSON); default `["open"]`. */
function predictionStatuses(raw: string | null): MarketStatus[] {
  if (raw === null || raw.trim() === '') return ['open'];
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new BadRequest('filters must be URL-encoded JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequest('filters must be a JSON object');
  const prediction = (parsed as { prediction?: unknown }).prediction;
  if (prediction === undefined || prediction === null) return ['open'];
  if (typeof prediction !== 'object' || Array.isArray(prediction)) throw new BadRequest('filters.prediction must be an object');
  const status = (prediction as { status?: unknown }).status;
  if (status === undefined || status === null) return ['open'];
  const values = Array.isArray(status) ? status : [status];
  if (values.length === 0) throw new BadRequest('filters.prediction.status must not be an empty list');
  for (const v of values) {
    if (typeof v !== 'string' || !(MARKET_STATUSES as readonly string[]).includes(v)) {
      throw new BadRequest(`filters.prediction.status must be one of ${MARKET_STATUSES.join(', ')} or a list of them`);
    }
  }
  return [...new Set(values as MarketStatus[])].sort();
}

/** `type` of the positions call: exactly one type; a comma list is 400. */
function singleType(raw: string | null): MarketType | undefined {
  if (raw === null || raw === '') return undefined;
  if (raw.includes(',')) throw new BadRequest(`type takes exactly one of ${MARKET_TYPES.join(', ')}; a comma list is not accepted`);
  if (!(MARKET_TYPES as readonly string[]).includes(raw)) throw new BadRequest(`type must be one of ${MARKET_TYPES.join(', ')}`);
  return raw as MarketType;
}

/**
 * The assets service (docs/upstream.md section 3).
 *
 * Decisions where the contract is silent: an empty or missing `q` lists the whole catalogue (in its
 * stored order, well-known first); matches rank symbol exact, name exact, symbol prefix, name prefix,
 * tag exact, substring, tag substring, then market cap; `type` values are compared case-insensitively
 * and unknown types match nothing; cursors are base64url `{"o","f"}` bound to q and type; EVM ids
 * (`ethereum:`, `base:`) are looked up case-insensitively and answered in lowercase; history rejects a
 * bad id (400) before checking parameters, and an unknown id (404) after; `to` later than now is
 * clamped to now; any `from` is accepted (prices exist before 2025-10-08 too).
 */
import { BadRequest, notFound, ok, type Router } from '../router.js';
import { RESOLUTION_MS, WORLD_REFERENCE_MS, gridCount, timeGrid, type AssetRecord, type World } from '../world/index.js';
import { decodeCursor, encodeCursor, enumParam, fingerprint, intParam, list, requireClientKey, timeRange } from '../world/query.js';

export const SEARCH_LIMIT = { min: 1, max: 100, default: 20 } as const;
export const ASSET_HISTORY_MAX_POINTS = 2000;

const CHAIN_RE = /^[a-z0-9-]{1,32}$/;
const REST_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;
/** Chains whose addresses are hex and compared case-insensitively. */
const EVM_CHAINS = new Set(['ethereum', 'base']);

/** Checks an asset id against the contract's pattern; returns `[chain, rest]` or throws 400. */
export function parseAssetId(id: string): [string, string] {
  const i = id.indexOf(':');
  const chain = i < 0 ? '' : id.slice(0, i);
  const rest = i < 0 ? '' : id.slice(i + 1);
  if (!CHAIN_RE.test(chain) || !REST_RE.test(rest) || rest.includes('..')) {
    throw new BadRequest('invalid asset id: expected <chain>:<address or symbol> (chain [a-z0-9-]{1,32}, rest [A-Za-z0-9._-], no "..")');
  }
  return [chain, rest];
}

interface Indexed {
  asset: AssetRecord;
  symbol: string;
  name: string;
  tags: string[];
  capRef: number;
  order: number;
}

export function registerAssetsRoutes(router: Router, world: World, opts: { clientKey?: string }): void {
  const key = opts.clientKey;
  const index: Indexed[] = world.assets.map((asset, order) => ({
    asset,
    symbol: asset.symbol.toLowerCase(),
    name: asset.name.toLowerCase(),
    tags: asset.tags.map((t) => t.toLowerCase()),
    capRef: (asset.model.supply ?? 0) * (world.priceAt(asset.id, WORLD_REFERENCE_MS) ?? 0),
    order,
  }));

  const lookup = (id: string): AssetRecord | undefined => {
    const [chain, rest] = parseAssetId(id);
    return world.assetsById.get(id) ?? (EVM_CHAINS.has(chain) ? world.assetsById.get(`${chain}:${rest.toLowerCase()}`) : undefined);
  };

  router.get(
    '/v0/search',
    requireClientKey(key, (req) => {
      const q = req.query;
      const text = (q.get('q') ?? '').trim().toLowerCase();
      const limit = intParam(q, 'limit', SEARCH_LIMIT.min, SEARCH_LIMIT.max, SEARCH_LIMIT.default);
      const types = list(q, 'type')?.map((t) => t.toLowerCase());
      const typeSet = types ? new Set(types) : undefined;
      const fp = fingerprint({ q: text, t: typeSet ? [...typeSet].sort() : null });
      const offset = decodeCursor(q, fp);

      const ranked: { e: Indexed; rank: number }[] = [];
      for (const e of index) {
        if (typeSet && !typeSet.has(e.asset.type.toLowerCase())) continue;
        const rank = text === '' ? 0 : rankOf(e, text);
        if (rank >= 0) ranked.push({ e, rank });
      }
      if (text !== '') ranked.sort((a, b) => a.rank - b.rank || b.e.capRef - a.e.capRef || a.e.order - b.e.order);
      const page = ranked.slice(offset, offset + limit).map(({ e }) => world.assetSummary(e.asset));
      const next = offset + limit;
      return ok({ results: page, cursor: next < ranked.length ? encodeCursor(next, fp) : null });
    }),
  );

  router.get(
    '/v0/assets/:id',
    requireClientKey(key, (req) => {
      const asset = lookup(req.params['id'] ?? '');
      if (!asset) return notFound();
      return ok(world.assetAt(asset.id, Date.now()));
    }),
  );

  router.get(
    '/v0/assets/:id/history',
    requireClientKey(key, (req) => {
      const id = req.params['id'] ?? '';
      parseAssetId(id);
      const q = req.query;
      const { from, to } = timeRange(q, 'from', 'to', Date.now());
      const resolution = enumParam(q, 'resolution', ['5m', '1h', '1d'] as const, '1h');
      const step = RESOLUTION_MS[resolution];
      const count = gridCount(from, to, step);
      if (count > ASSET_HISTORY_MAX_POINTS) {
        throw new BadRequest(`the range holds ${count} points at resolution ${resolution}; at most ${ASSET_HISTORY_MAX_POINTS} per call`);
      }
      const asset = lookup(id);
      if (!asset) return notFound();
      const points = timeGrid(from, to, step).map((t) => ({
        timestamp: new Date(t).toISOString(),
        priceUsd: Number(world.priceAt(asset.id, t)!.toPrecision(8)),
      }));
      return ok({ id: asset.id, resolution, points });
    }),
  );
}

/** Lower is better; -1 = no match. Symbol and name exact, then prefixes, then substrings, then tags. */
function rankOf(e: Indexed, q: string): number {
  if (e.symbol === q) return 0;
  if (e.name === q) return 1;
  if (e.symbol.startsWith(q)) return 2;
  if (e.name.startsWith(q)) return 3;
  if (e.tags.includes(q)) return 4;
  if (e.symbol.includes(q) || e.name.includes(q)) return 5;
  if (e.tags.some((t) => t.includes(q))) return 6;
  return -1;
}

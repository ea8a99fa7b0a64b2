/**
 * Query-string helpers shared by the simulator's routes: lists, limits, times, cursors, client key.
 * The parsers throw `BadRequest`, which the server answers with 400.
 */
import { BadRequest, header, unauthorized, type SimRequest, type SimResponse } from '../router.js';
import { hashString } from '../prng.js';

/** A comma list: trimmed, empty items dropped; `undefined` when the parameter is absent or empty. */
export function list(q: URLSearchParams, name: string): string[] | undefined {
  const raw = q.getAll(name).join(',');
  const items = raw
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
  return items.length > 0 ? items : undefined;
}

/** An integer within [min, max]; `def` when absent. */
export function intParam(q: URLSearchParams, name: string, min: number, max: number, def: number): number {
  const raw = q.get(name);
  if (raw === null || raw === '') return def;
  if (!/^-?\d+$/.test(raw.trim())) throw new BadRequest(`${name} must be an integer between ${min} and ${max}`);
  const n = Number(raw);
  if (n < min || n > max) throw new BadRequest(`${name} must be an integer between ${min} and ${max}`);
  return n;
}

/**
 * A time: an ISO 8601 / RFC 3339 string, or epoch seconds / milliseconds as digits
 * (values below 10^11 are seconds). Returns epoch ms; `def` when absent; 400 when unparseable or
 * required and absent.
 */
export function timeParam(q: URLSearchParams, name: string, def?: number): number {
  const raw = q.get(name)?.trim();
  if (raw === undefined || raw === '') {
    if (def === undefined) throw new BadRequest(`${name} is required`);
    return def;
  }
  let t: number;
  if (/^\d+$/.test(raw)) {
    const n = Number(raw);
    t = n < 1e11 ? n * 1000 : n;
  } else t = Date.parse(raw);
  if (!Number.isFinite(t)) throw new BadRequest(`${name} must be an ISO 8601 timestamp`);
  return t;
}

/**
 * The range of two time parameters in epoch ms: `fromName` required, `toName` defaulting to `now` and
 * clamped to it; 400 when `from` is after `to`.
 */
export function timeRange(q: URLSearchParams, fromName: string, toName: string, now: number): { from: number; to: number } {
  const from = timeParam(q, fromName);
  const to = Math.min(timeParam(q, toName, now), now);
  if (from > to) throw new BadRequest(`${fromName} must not be after ${toName}`);
  return { from, to };
}

/** One value of an enumeration; `def` when absent. */
export function enumParam<T extends string>(q: URLSearchParams, name: string, values: readonly T[], def: T): T;
export function enumParam<T extends string>(q: URLSearchParams, name: string, values: readonly T[]): T | undefined;
export function enumParam<T extends string>(q: URLSearchParams, name: string, values: readonly T[], def?: T): T | undefined {
  const raw = q.get(name);
  if (raw === null || raw === '') return def;
  if (!(values as readonly string[]).includes(raw)) throw new BadRequest(`${name} must be one of ${values.join(', ')}`);
  return raw as T;
}

/** A short stable fingerprint of the parameters a cursor is bound to. */
export function fingerprint(value: unknown): string {
  const s = JSON.stringify(value);
  return hashString(s, 0x5eed).toString(36) + hashString(s, 0xc0de).toString(36);
}

/**
 * Opaque cursors: base64url of `{"o": offset, "f": fingerprint}`. The fingerprint binds a cursor to the
 * parameters of the listing it came from (not to `limit`).
 */
export function encodeCursor(offset: number, fp: string): string {
  return Buffer.from(JSON.stringify({ o: offset, f: fp }), 'utf8').toString('base64url');
}

/** The offset of a cursor (0 when absent); 400 when malformed or bound to other parameters. */
export function decodeCursor(q: URLSearchParams, fp: string): number {
  const raw = q.get('cursor');
  if (raw === null || raw === '' || raw === 'null') return 0;
  let parsed: unknown;
  try {
    if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw new Error('not base64url');
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw new BadRequest('cursor is not valid');
  }
  const c = parsed as { o?: unknown; f?: unknown };
  if (typeof c !== 'object' || c === null || !Number.isInteger(c.o) || (c.o as number) < 0 || typeof c.f !== 'string') {
    throw new BadRequest('cursor is not valid');
  }
  if (c.f !== fp) throw new BadRequest('cursor does not belong to these parameters; start again without a cursor');
  return c.o as number;
}

/** Wraps a handler: 401 unless the request carries the configured `X-Service-Client-Key`. */
export function requireClientKey(clientKey: string | undefined, handler: (req: SimRequest) => SimResponse): (req: SimRequest) => SimResponse {
  return (req) => (clientKey === undefined || header(req, 'x-service-client-key') === clientKey ? handler(req) : unauthorized());
}

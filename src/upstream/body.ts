import { UpstreamError, type ServiceName } from './errors.js';

/**
 * Upstream bodies read within bounds: each route's answer is capped at what its contract can hold
 * (docs/upstream.md's limits, with room to spare), and the bytes of every body being read at once, all
 * calls together, within a process-wide ceiling of bytes in flight. Past either, the call fails at once (the body is
 * dropped unread) with an `UpstreamError` its field reports, instead of the process holding it.
 * The reading itself is transport/send.ts's.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/**
 * The largest answer of each route, by route template. A record of a few KB gets tens; a page gets
 * its item limit times a generous record. Calls whose size depends on their arguments (a positions
 * call of N wallets) pass their own `maxBytes`.
 */
export const ROUTE_BODY_LIMITS: Readonly<Record<string, number>> = {
  // An asset record is a few hundred bytes (a long description included, well under 64 KiB).
  'GET /v0/assets/{id}': 64 * KiB,
  // At most 100 summaries of a few hundred bytes.
  'GET /v0/search': 512 * KiB,
  // At most 2,000 points of about 60 bytes.
  'GET /v0/assets/{id}/history': 1 * MiB,
  // At most 200 markets of about 2 KB (350 KB seen), passthrough data bounded per market.
  'GET /v0/markets': 8 * MiB,
  // 50 markets' histories; a year of days or months of hours.
  'GET /v0/markets/history': 8 * MiB,
  // One wallet's positions' histories, at most 2,000 points per position.
  'GET /v0/positions/history': 8 * MiB,
  'GET /v2/auth': 16 * KiB,
  'GET /v2/channels': 256 * KiB,
  'GET /v2/apps': 1 * MiB,
  // At most 20 alerts.
  'GET /v2/history': 1 * MiB,
  'GET /v2/history/summary': 16 * KiB,
  // At most 1,000 addresses.
  'GET /v2/{appId}/subscribers': 1 * MiB,
};

/** A route of no entry above (the writes' `{}` and channel records among them). */
export const DEFAULT_BODY_LIMIT = 1 * MiB;
/** One wallet's positions, markets embedded (about 2 KB each: 42 KB for 22 seen), room for 500. */
export const POSITIONS_BODY_LIMIT_PER_WALLET = 1 * MiB;
/** An error answer is read for its message only. */
export const ERROR_BODY_LIMIT = 64 * KiB;

/** The cap of one positions call: by the wallets it asks for, within 16 MiB. */
export function positionsBodyLimit(wallets: number): number {
  return Math.min(16 * MiB, Math.max(1, wallets) * POSITIONS_BODY_LIMIT_PER_WALLET);
}

/** The ceiling of bytes in flight by default, in bytes (`UPSTREAM_INFLIGHT_MAX_BYTES`). */
export const DEFAULT_INFLIGHT_MAX_BYTES = 64 * MiB;

/** The process-wide ceiling of upstream body bytes being read at once (`UPSTREAM_INFLIGHT_MAX_BYTES`). */
export class InFlightBytes {
  #used = 0;

  constructor(readonly limit: number) {}

  get used(): number {
    return this.#used;
  }

  /** Takes `bytes` under the ceiling; false (nothing taken) when they do not fit. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/** A body over its call's cap (a 2xx one; an error answer's is cut short and read as empty). */
export function tooLarge(service: ServiceName, status: number, limit: number): UpstreamError {
  return new UpstreamError({
    service,
    kind: 'UNAVAILABLE',
    status,
    code: 'EBODYTOOLARGE',
    retryable: false,
    message: `${service} upstream sent a body over this route's ${limit} bytes`,
  });
}

/** The ceiling of bytes in flight is reached: says nothing of the upstream (the breaker does not count it). */
export function inFlightBytesReached(service: ServiceName, status: number): UpstreamError {
  return new UpstreamError({
    service,
    kind: 'UNAVAILABLE',
    status,
    code: 'EINFLIGHTBYTES',
    message: `${service} upstream: the gateway is reading as many upstream bytes as it may at once`,
  });
}

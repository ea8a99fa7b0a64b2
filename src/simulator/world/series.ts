/**
 * Time series as pure functions of (seed, id, timestamp): multi-octave value noise built from hashed
 * lattice points, interpolated smoothly. The same (seed, id, t) always gives the same value, whatever
 * "now" is, so histories are deterministic and the current value is simply the series at now.
 */
import { hashString, mix32 } from '../prng.js';

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Data of the markets/positions service exists from this instant (docs/upstream.md 2.4). */
export const DATA_START_MS = Date.parse('2025-10-08T00:00:00.000Z');
/**
 * Generated facts (positions opened, trades, settled markets) happen between DATA_START_MS and this
 * fixed instant, so the world is the same whatever the clock says.
 */
export const WORLD_REFERENCE_MS = Date.parse('2026-10-01T00:00:00.000Z');

/** [period, amplitude]: a slow trend down to minute-level wiggles. */
const OCTAVES: readonly (readonly [number, number])[] = [
  [45 * DAY, 1],
  [12 * DAY, 0.6],
  [3 * DAY, 0.38],
  [16 * HOUR, 0.2],
  [4 * HOUR, 0.09],
  [50 * MINUTE, 0.04],
  [12 * MINUTE, 0.018],
  [3 * MINUTE, 0.008],
];
const NORM = OCTAVES.reduce((s, [, a]) => s + a, 0) * 0.5;

/** A key for `noise`, from the seed, an id and a channel name (`price`, `apy`, ...). */
export function seriesKey(seed: number, id: string, channel: string): number {
  return hashString(`${id}\u0000${channel}`, seed);
}

function lattice(key: number, octave: number, k: number): number {
  const h = mix32(mix32(key, octave + 1), k);
  return h / 2147483648 - 1; // [-1, 1)
}

/**
 * Smooth noise of time `t` (epoch ms) for `key`, roughly standard-normal-like in scale, |v| < ~2.2.
 * Continuous in t; the same t always gives the same value.
 */
export function noise(key: number, t: number): number {
  let sum = 0;
  for (let i = 0; i < OCTAVES.length; i++) {
    const [period, amp] = OCTAVES[i]!;
    const x = t / period;
    const k = Math.floor(x);
    const f = x - k;
    const s = f * f * (3 - 2 * f);
    const v0 = lattice(key, i, k);
    const v1 = lattice(key, i, k + 1);
    sum += amp * (v0 + (v1 - v0) * s);
  }
  return sum / NORM;
}

export type Resolution = '1m' | '5m' | '1h' | '1d';
export const RESOLUTION_MS: Record<Resolution, number> = { '1m': MINUTE, '5m': 5 * MINUTE, '1h': HOUR, '1d': DAY };

/** Timestamps aligned to multiples of `step` (UTC), from the first at or after `from` to the last at or before `to`. */
export function timeGrid(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let t = Math.ceil(from / step) * step; t <= to; t += step) out.push(t);
  return out;
}

/** How many points `timeGrid(from, to, step)` would give, without building it. */
export function gridCount(from: number, to: number, step: number): number {
  if (to < from) return 0;
  return Math.max(0, Math.floor(to / step) - Math.ceil(from / step) + 1);
}

/** Milliseconds of a time given as a Date or a number; now when absent. */
export const ms = (at: Date | number | undefined): number => (at === undefined ? Date.now() : typeof at === 'number' ? at : at.getTime());

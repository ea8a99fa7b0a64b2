import { describe, expect, test } from 'vitest';
import { freshnessBound, readCacheControl } from '../src/cache-control.js';

describe("a request's Cache-Control", () => {
  test.each([
    ['max-age=30', 30_000],
    ['MAX-AGE=30', 30_000],
    ['max-age="30"', 30_000],
    ['no-transform, max-age=0', 0],
    ['max-age=60, max-age=5', 5_000],
    ['max-age=99999999999', 2 ** 31 * 1000],
  ])('%s bounds shared copies to %i ms', (header, ms) => {
    expect(readCacheControl(header).maxAgeMs).toBe(ms);
    expect(freshnessBound(readCacheControl(header))?.maxAgeMs).toBe(ms);
  });

  test.each(['max-age=abc', 'max-age=5abc', 'max-age=1e3', 'max-age=-1', 'max-age=', 'max-age', 'max-age=1.5', 'max-stale=10', 'foo=bar, ,', '', `max-age=1, ${'x'.repeat(1100)}`])(
    '%j bounds nothing (malformed or unknown directives are ignored)',
    (header) => {
      expect(readCacheControl(header).maxAgeMs).toBeNull();
      expect(freshnessBound(readCacheControl(header))).toBeUndefined();
    },
  );

  test('no-cache revalidates (max-age=0); no-store alone bounds nothing', () => {
    expect(readCacheControl('No-Cache')).toEqual({ maxAgeMs: null, noCache: true, noStore: false });
    expect(freshnessBound(readCacheControl('no-cache, max-age=60'))?.maxAgeMs).toBe(0);
    expect(readCacheControl('no-store')).toEqual({ maxAgeMs: null, noCache: false, noStore: true });
    expect(freshnessBound(readCacheControl('no-store'))).toBeUndefined();
    expect(freshnessBound(readCacheControl(null))).toBeUndefined();
  });

  test('a bound accepts what was fetched less than max-age before its first use, on each clock', () => {
    let now = 100_000;
    const clock = () => now;
    const bound = freshnessBound(readCacheControl('max-age=10'))!;
    expect(bound.accepts(89_999, clock)).toBe(false);
    expect(bound.accepts(90_000, clock)).toBe(true);
    now += 60_000; // later lookups of the same operation: judged from its first one
    expect(bound.accepts(90_000, clock)).toBe(true);
    const revalidate = freshnessBound(readCacheControl('no-cache'))!;
    expect(revalidate.accepts(now - 1, clock)).toBe(false);
    expect(revalidate.accepts(now, clock)).toBe(true);
  });
});

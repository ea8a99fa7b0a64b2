import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/stores/bounded-map.js';

describe('BoundedMap: the asset copies and token records, bounded in entries and bytes', () => {
  it('holds at most `max` entries, dropping the oldest not read since the sweep last passed it', () => {
    const map = new BoundedMap<string, number>({ max: 3, maxSize: 1000 });
    const held = () => ['a', 'b', 'c', 'd', 'e', 'f'].filter((k) => map.has(k));
    for (const key of ['a', 'b', 'c']) map.set(key, key.charCodeAt(0));
    expect(map.get('a')).toBe(97);
    map.set('d', 100);
    // `a` was read: it stays (moved after `d`, unmarked), and `b`, the oldest unread, goes.
    expect(held()).toEqual(['a', 'c', 'd']);
    map.set('e', 101);
    expect(held()).toEqual(['a', 'd', 'e']);
    // Every entry read (held in the order a, d, e): each gets one more turn, then the oldest of them goes, never the newest.
    for (const key of ['d', 'a', 'e']) map.get(key);
    map.set('f', 102);
    expect(held()).toEqual(['d', 'e', 'f']);
    expect(map.size).toBe(3);
  });

  it('holds at most `maxSize` by the sizes it is given, refuses an entry larger than that, and counts what it holds', () => {
    const map = new BoundedMap<string, string>({ max: 100, maxSize: 10, sizeOf: (v) => v.length });
    map.set('a', 'xxxx');
    map.set('b', 'yyyy');
    expect(map.calculatedSize).toBe(8);
    map.set('c', 'zzzz');
    expect(map.get('a')).toBeUndefined();
    expect(map.calculatedSize).toBe(8);
    map.set('big', 'x'.repeat(11));
    expect(map.get('big')).toBeUndefined();
    expect(map.calculatedSize).toBe(8);
    // Set again: replaced, counted once.
    map.set('b', 'y');
    expect(map.calculatedSize).toBe(5);
    expect(map.delete('b')).toBe(true);
    expect(map.delete('b')).toBe(false);
    expect([map.size, map.calculatedSize]).toEqual([1, 4]);
  });

  it('stays within its bounds over many sets, however the entries are read', () => {
    const map = new BoundedMap<number, number>({ max: 50, maxSize: 400, sizeOf: (v) => v % 13 });
    for (let i = 0; i < 10_000; i++) {
      map.set(i, i);
      if (i % 3 === 0) map.get(i - 7);
      expect(map.size).toBeLessThanOrEqual(50);
      expect(map.calculatedSize).toBeLessThanOrEqual(400);
    }
    expect(map.get(9_999)).toBe(9_999);
  });
});

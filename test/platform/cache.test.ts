import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/platform/cache.js';

describe('ByteLru', () => {
  it('drops the least recently used entries once their bytes pass the budget, whatever their number', () => {
    const cache = new ByteLru<string, string>(100);
    cache.set('a', 'A', 20);
    cache.set('b', 'B', 20);
    cache.set('c', 'C', 20);
    expect(cache.size).toEqual({ entries: 3, bytes: 60 });
    // Reading `a` makes it the most recently used: `b` goes first.
    expect(cache.get('a')).toBe('A');
    cache.set('d', 'D', 25);
    cache.set('e', 'E', 25);
    expect(cache.size).toEqual({ entries: 4, bytes: 90 });
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd', 'e'].map((key) => cache.get(key))).toEqual(['A', 'C', 'D', 'E']);
    // Many small entries: kept by bytes, not by count.
    for (let i = 0; i < 50; i += 1) cache.set(`small${i}`, 's', 1);
    expect(cache.size.bytes).toBeLessThanOrEqual(100);
    expect(cache.size.entries).toBe(52);
  });

  it('replaces an entry set again, never keeps one larger than a quarter of the budget, and shrinks with its budget', () => {
    const cache = new ByteLru<string, number>(100);
    cache.set('a', 1, 10);
    cache.set('a', 2, 15);
    expect(cache.size).toEqual({ entries: 1, bytes: 15 });
    expect(cache.get('a')).toBe(2);
    cache.set('huge', 3, 26);
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.get('a')).toBe(2);
    cache.set('b', 4, 20);
    cache.set('c', 5, 20);
    cache.resize(40);
    expect(cache.size).toEqual({ entries: 2, bytes: 40 });
    expect(cache.get('a')).toBeUndefined();
  });
});

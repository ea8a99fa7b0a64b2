import { describe, expect, it } from 'vitest';
import { buildQuery } from '../../src/upstream/http.js';

describe('buildQuery', () => {
  it('leaves out undefined, null and empty lists; joins lists with commas; encodes', () => {
    expect(buildQuery({ a: undefined, b: null, c: [], d: ['x', 'y z'], e: 0, f: false })).toBe('?d=x%2Cy+z&e=0&f=false');
    expect(buildQuery({})).toBe('');
    expect(buildQuery({ filters: JSON.stringify({ prediction: { status: ['open'] } }) })).toBe(
      '?filters=%7B%22prediction%22%3A%7B%22status%22%3A%5B%22open%22%5D%7D%7D',
    );
  });

  it('encodes every name and value exactly as URLSearchParams does (space as +, !\'()~ escaped, a lone surrogate as U+FFFD)', () => {
    const asURLSearchParams = (value: string) => `?k=${new URLSearchParams({ k: value }).toString().slice(2)}`;
    for (let code = 0; code < 0x3000; code++) {
      const value = `${String.fromCharCode(code)}z`;
      expect(buildQuery({ k: value }), `U+${code.toString(16)}`).toBe(asURLSearchParams(value));
    }
    for (const value of ["x!'()~*-._", 'a&b=c?d#e/f+g%h', 'é€😀', '\ud800x', 'solana:So11111111111111111111111111111111111111112']) {
      expect(buildQuery({ k: value })).toBe(asURLSearchParams(value));
    }
    expect(buildQuery({ 'k y': 'v' })).toBe(`?${new URLSearchParams({ 'k y': 'v' }).toString()}`);
  });
});

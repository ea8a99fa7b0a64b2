import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256, sha256Pieces } from '../src/hashing.js';

describe('sha256', () => {
  it('gives the FIPS 180-2 digest of "abc", in hex and (by default) base64url', () => {
    const hex = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad';
    expect(sha256('abc', 'hex')).toBe(hex);
    expect(sha256('abc')).toBe(Buffer.from(hex, 'hex').toString('base64url'));
  });

  it('hashes a text as its UTF-8 bytes, as the digests written with createHash did', () => {
    const text = 'wallet ✓ 🚀';
    expect(sha256(text)).toBe(createHash('sha256').update(text).digest('base64url'));
    expect(sha256(Buffer.from(text))).toBe(sha256(text));
  });

  it('gives the same digest fed in pieces', () => {
    const pieces = sha256Pieces();
    for (const piece of ['wal', 'let ✓', ' 🚀']) pieces.update(piece);
    expect(pieces.digest('base64url')).toBe(sha256('wallet ✓ 🚀'));
  });
});

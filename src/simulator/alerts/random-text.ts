import { BASE58_ALPHABET, type Rng } from '../prng.js';

/** `n` random bytes as 2n hex digits. */
export function hexBytes(rng: Rng, n: number): string {
  return Buffer.from(rng.bytes(n)).toString('hex');
}

/** A 6-digit numeric code, leading zeros kept. */
export function sixDigitCode(rng: Rng): string {
  return String(rng.int(0, 999_999)).padStart(6, '0');
}

/** A Solana-looking base58 address (used only to pad when too few wallets are given). */
export function base58Address(rng: Rng): string {
  let s = '';
  const len = rng.int(43, 44);
  for (let i = 0; i < len; i++) s += BASE58_ALPHABET[rng.int(0, BASE58_ALPHABET.length - 1)];
  return s;
}

import { badUserInput } from '../../errors.js';
import type { Resolution } from '../../models/index.js';

/** The positions service is Solana-based: an owner is a base58 public key. */
const SOLANA_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** Most wallets one `wallets(addresses:)` call takes. */
export const MAX_WALLETS = 100;

/** Position snapshots exist from this instant (UPSTREAM.md 2.4). */
export const HISTORY_START = new Date('2025-10-08T00:00:00.000Z');
/** Most points one wallet's history may hold per call. */
export const MAX_HISTORY_POINTS = 2_000;

const RESOLUTION_MS: Record<Resolution, number> = {
  ONE_MINUTE: 60_000,
  FIVE_MINUTES: 300_000,
  ONE_HOUR: 3_600_000,
  ONE_DAY: 86_400_000,
};

export function isWalletAddress(value: string): boolean {
  return SOLANA_ADDRESS.test(value);
}

export function walletAddress(value: string, field = 'address'): string {
  if (!isWalletAddress(value)) {
    throw badUserInput(`${field} must be a Solana address: 32 to 44 base58 characters.`, field);
  }
  return value;
}

/** Distinct, valid addresses in the order given. */
export function walletAddresses(values: readonly string[]): string[] {
  const unique = [...new Set(values)];
  if (unique.length > MAX_WALLETS) {
    throw badUserInput(`addresses takes at most ${MAX_WALLETS} distinct wallets; got ${unique.length}.`, 'addresses');
  }
  return unique.map((value) => walletAddress(value, 'addresses'));
}

/**
 * Checks a value-history range the way the upstream would, so that a bad one never costs a call:
 * data starts at HISTORY_START, `from` is not after `to` (default now) and the range holds at most
 * MAX_HISTORY_POINTS timestamps at the resolution.
 */
export function historyRange(from: Date, to: Date | null, resolution: Resolution, now = Date.now()): void {
  if (from.getTime() < HISTORY_START.getTime()) {
    throw badUserInput(`from must be at or after ${HISTORY_START.toISOString()}: no position data exists earlier.`, 'from');
  }
  if (from.getTime() > now) throw badUserInput('from must not be in the future.', 'from');
  if (to && from.getTime() > to.getTime()) throw badUserInput('from must not be after to.', 'from');
  const step = RESOLUTION_MS[resolution];
  const end = Math.min(to?.getTime() ?? now, now);
  const points = Math.floor(end / step) - Math.ceil(from.getTime() / step) + 1;
  if (points > MAX_HISTORY_POINTS) {
    throw badUserInput(
      `The range holds ${points} points at ${resolution}; at most ${MAX_HISTORY_POINTS} are allowed. Shorten the range or use a coarser resolution.`,
      'from',
    );
  }
}

import { badUserInput } from '../../errors.js';
import { MAX_HISTORY_POINTS, POSITION_HISTORY_RESOLUTIONS, POSITION_HISTORY_START, type Resolution } from '../../models/index.js';
import { isSolanaAddress, type WindowRules } from '../common/inputs.js';

/** Most wallets one `wallets(addresses:)` call takes. */
export const MAX_WALLETS = 100;

/** The positions service is Solana-based: an owner is a base58 public key. */
export function walletAddress(value: string, field = 'address'): string {
  if (!isSolanaAddress(value)) {
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

/** What `Wallet.valueHistory` accepts: the window of the positions service's history. */
export const VALUE_HISTORY_WINDOW: WindowRules<Resolution> = {
  field: 'valueHistory',
  resolutions: POSITION_HISTORY_RESOLUTIONS,
  defaultResolution: 'ONE_HOUR',
  dataStart: POSITION_HISTORY_START,
  maxPoints: MAX_HISTORY_POINTS,
};

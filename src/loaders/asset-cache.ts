// STUB: the assets domain replaces this file, keeping the AssetCache members below.
import type { TokenRef } from '../models/index.js';
import type { ServiceDeps } from '../services.js';

export interface AssetCache {
  /** Token records seen in market listings and positions: the last metadata fallback when the assets service fails. */
  rememberTokens(tokens: readonly TokenRef[]): void;
}

export function createAssetCache(_deps: ServiceDeps): AssetCache {
  return { rememberTokens: () => {} };
}

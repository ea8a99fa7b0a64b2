/** `<chain>:<rest>` as one expression: chain `[a-z0-9-]{1,32}`, rest `[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}`. */
const ASSET_ID = /^[a-z0-9-]{1,32}:[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * The contract's asset id: `<chain>:<rest>`, chain `^[a-z0-9-]{1,32}$`, rest
 * `^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$` without `..`. Only such ids ever reach a URL.
 */
export function isValidAssetId(id: unknown): id is string {
  // One test of the whole id (the chain holds no `.`, so a `..` can only be in the rest).
  return typeof id === 'string' && ASSET_ID.test(id) && !id.includes('..');
}

/** Splits a valid id into its chain and the rest (the address for on-chain tokens). */
export function parseAssetId(id: string): { chain: string; rest: string } | null {
  if (!isValidAssetId(id)) return null;
  const colon = id.indexOf(':');
  return { chain: id.slice(0, colon), rest: id.slice(colon + 1) };
}

export function assetIdForSolana(address: string): string {
  return `solana:${address}`;
}

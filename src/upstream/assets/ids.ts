const CHAIN = /^[a-z0-9-]{1,32}$/;
const REST = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * The contract's asset id: `<chain>:<rest>`, chain `^[a-z0-9-]{1,32}$`, rest
 * `^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$` without `..`. Only such ids ever reach a URL.
 */
export function isValidAssetId(id: unknown): id is string {
  if (typeof id !== 'string') return false;
  const colon = id.indexOf(':');
  if (colon < 0) return false;
  const chain = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  return CHAIN.test(chain) && REST.test(rest) && !rest.includes('..');
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

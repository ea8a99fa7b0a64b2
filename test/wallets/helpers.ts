import type { TestGateway } from '../helpers/gateway.js';

/** What the positions service itself answers for a wallet (bypassing the gateway; counts are reset after). */
export async function rawPositions(gw: TestGateway, address: string): Promise<any[]> {
  const url = new URL(`${gw.sim.urls.markets}/v0/positions/owners`);
  url.searchParams.set('walletAddresses', address);
  const body = (await (await fetch(url)).json()) as { positions: any[] };
  gw.sim.controls.resetCounts();
  return body.positions;
}

/** The raw `/v0/positions/history` answer of a wallet (counts are reset after). */
export async function rawHistory(
  gw: TestGateway,
  params: { walletAddress: string; startTime: string; endTime?: string; resolution?: string },
): Promise<{ id: string; history: { timestamp: string; amountUsd: number | null }[] }[]> {
  const url = new URL(`${gw.sim.urls.markets}/v0/positions/history`);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`raw history answered ${response.status}: ${await response.text()}`);
  const body = (await response.json()) as { data: { positions: any[] } };
  gw.sim.controls.resetCounts();
  return body.data.positions;
}

/** Per timestamp, the sum of the positions' amountUsd (null counting 0), oldest first: computed by hand. */
export function sumByTimestamp(positions: { history: { timestamp: string; amountUsd: number | null }[] }[]) {
  const sums = new Map<number, number>();
  for (const position of positions) {
    for (const point of position.history) {
      const at = Date.parse(point.timestamp);
      sums.set(at, (sums.get(at) ?? 0) + (point.amountUsd ?? 0));
    }
  }
  return [...sums.entries()].sort(([a], [b]) => a - b).map(([at, valueUsd]) => ({ at, valueUsd }));
}

/** Wallet address → its raw positions, from the simulator's generated world. */
export function worldPositions(gw: TestGateway, address: string) {
  return (gw.sim.world.positionsByOwner.get(address) ?? []).map((record) => record.position);
}

/** A demo wallet holding positions of every type and in markets of every status. */
export function richWallet(gw: TestGateway): string {
  const found = gw.sim.world.demoWallets.find((address) => {
    const positions = worldPositions(gw, address);
    const types = new Set(positions.map((p) => p.type));
    const statuses = new Set(positions.map((p) => p.market?.status).filter(Boolean));
    return types.size === 6 && statuses.size === 3;
  });
  if (!found) throw new Error('no demo wallet holds every position type and market status');
  return found;
}

/** A known wallet without any position. */
export function emptyWallet(gw: TestGateway): string {
  const found = gw.sim.world.wallets.find((w) => worldPositions(gw, w.address).length === 0);
  if (!found) throw new Error('the world has no wallet without positions');
  return found.address;
}

export { totalCalls } from '../helpers/gateway.js';

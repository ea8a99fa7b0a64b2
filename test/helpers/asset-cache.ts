import { createServer } from 'node:net';
import { afterEach } from 'vitest';
import type { TokenRef } from '../../src/models/index.js';
import { startSimulator, type Simulator } from '../../src/simulator/index.js';
import type { GraphQLResponse, TestGateway, TestGatewayOptions } from './gateway.js';
import { startTestGateway } from './gateway.js';

/**
 * The asset cache's tests: their documents, the gateways and simulators each test starts (closed after
 * it), a fake clock for the TTLs and the token records the markets service would carry.
 */

export const SOL = 'solana:So11111111111111111111111111111111111111112';
export const ASSET_ROUTE = 'GET /v0/assets/:id';
/** Not on Solana, so no market listing carries a token record of it. */
export const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';

export const ASSET = `query($id: String!) { asset(id: $id) { assetId name symbol decimals imageUrl metadataSource price { usd updatedAt } } }`;
export const PRICED = `query($ids: [String!]!) { assets(ids: $ids) { assetId symbol metadataSource price { usd updatedAt } } }`;
export const METADATA = `query($ids: [String!]!) { assets(ids: $ids) { assetId symbol imageUrl metadataSource } }`;

export const calls = (gw: TestGateway) => gw.sim.controls.count('assets', ASSET_ROUTE);
export const sources = (res: GraphQLResponse) => res.data!['assets'].map((a: any) => a.metadataSource);
/** Ids of world assets other than SOL. */
export const worldIds = (gw: TestGateway, n: number) =>
  gw.sim.world.assets
    .map((a) => a.id)
    .filter((id) => id !== SOL)
    .slice(0, n);

/** Everything a test started, closed after it. */
const open: { close(): Promise<void> }[] = [];

export async function gateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const gw = await startTestGateway(options);
  open.push(gw);
  return gw;
}

export async function simulator(): Promise<Simulator> {
  const sim = await startSimulator({ seed: 42 });
  open.push(sim);
  return sim;
}

/** A fake clock for the asset cache: TTLs pass when the test says so. */
export function fakeClock() {
  let now = Date.now();
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** The token record the markets service would carry for a world asset. */
export function tokenRecord(gw: TestGateway, assetId: string): TokenRef {
  const asset = gw.sim.world.assetAt(assetId)!;
  return { assetId, address: asset.address!, symbol: asset.symbol, decimals: asset.decimals!, icon: asset.imageUrl, name: asset.name };
}

export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/assets`;
}

/** Closes after each test what it started. */
export function closeAfterEachTest(): void {
  afterEach(async () => {
    while (open.length > 0) await open.pop()!.close();
  });
}

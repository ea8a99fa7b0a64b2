import { afterEach, expect, test } from 'vitest';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

/** Not on Solana, so no market listing carries a token record of it: nothing but a copy can answer. */
const ETH = 'ethereum:0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const ASSET = `query($id: String!) { asset(id: $id) { assetId symbol metadataSource } }`;

let gw: TestGateway | undefined;
afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

test('while the assets service fails, a copy is served as STALE up to maxStaleMs old, and not after', async () => {
  let now = Date.now();
  gw = await startTestGateway({ assetCache: { now: () => now, metadataTtlMs: 1_000, priceTtlMs: 1_000, staleWhileRevalidateMs: 0, maxStaleMs: 60_000 } });
  const id = gw.sim.world.assets.find((a) => !a.id.startsWith('solana:'))?.id ?? ETH;
  const warm = await gw.execute(ASSET, { id });
  expect(warm.data!['asset'].metadataSource).toBe('PRIMARY');

  gw.sim.controls.setFault({ service: 'assets' }, { status: 503 });
  now += 60_000;
  const stale = await gw.execute(ASSET, { id });
  expect(stale.errors).toBeUndefined();
  expect(stale.data!['asset']).toEqual({ ...warm.data!['asset'], metadataSource: 'STALE' });

  now += 1;
  const gone = await gw.execute(ASSET, { id });
  expect(gone.data!['asset']).toBeNull();
  expect(gone.errors![0]).toMatchObject({ path: ['asset'], extensions: { code: 'UPSTREAM_UNAVAILABLE', upstream: 'assets' } });
});

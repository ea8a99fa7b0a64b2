import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';

/** The assets' GraphQL tests: one gateway for the file (`gw`), its simulator's counts and faults reset before each test. */

export const HOUR = 3_600_000;
export const SOL = 'solana:So11111111111111111111111111111111111111112';
export const UNKNOWN = 'solana:UnknownMint1111111111111111111111111111';

export let gw: TestGateway;

export const calls = (route?: string) => gw.sim.controls.count('assets', route);

/** Prices move between two reads: within 1 %. */
export function expectNear(actual: number, expected: number) {
  expect(Math.abs(actual - expected) / expected).toBeLessThan(0.01);
}

/** Starts the file's gateway and resets its simulator's controls before each test. */
export function useAssetsGateway(): void {
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });
  beforeEach(() => {
    gw.sim.controls.reset();
  });
}

import { afterEach, beforeAll, beforeEach, vi } from 'vitest';
import { richWallet, rawPositions } from '../wallets/helpers.js';
import { operation, type TestGateway } from './gateway.js';

/**
 * The wallet positions' tests: the operation, the upstream route and the position kinds, and the rich
 * wallet's raw positions read at a frozen instant before each test to compare the gateway's answer with.
 */

export const WalletPositions = operation('WalletPositions');
export const POSITIONS_ROUTE = 'GET /v0/positions/owners';
export const TYPES = ['YIELD', 'LENDING', 'LOOP', 'PERPETUAL', 'REWARD', 'PREDICTION'] as const;
export const STATUSES = ['OPEN', 'CLOSED', 'SETTLED'] as const;
export const TYPENAME: Record<string, string> = {
  YIELD: 'YieldPosition',
  LENDING: 'LendingPosition',
  LOOP: 'LoopPosition',
  PERPETUAL: 'PerpetualPosition',
  REWARD: 'RewardPosition',
  PREDICTION: 'PredictionPosition',
};
// USD values follow simulated prices that move with the clock: the gateway and the raw reference
// are read at the same frozen instant so they can be compared exactly.
const NOW = new Date('2026-11-01T12:00:00.000Z');

export const positionCalls = (gw: TestGateway) => gw.sim.controls.count('markets', POSITIONS_ROUTE);

/** Net value computed by hand from the raw answer: borrowed amounts subtracted, missing amounts 0. */
export function handTotal(raw: any[]): number {
  return raw.reduce((sum, p) => sum + (p.type === 'lending' && p.side === 'borrow' ? -1 : 1) * (p.amountUsd ?? 0), 0);
}

function freezeClock() {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
}

export let address: string;
export let raw: any[];

/** Reads the rich wallet's raw positions before each test, the clock frozen, into `address` and `raw`. */
export function useRichWalletPositions(gw: TestGateway): void {
  beforeAll(() => {
    address = richWallet(gw);
  });
  beforeEach(async () => {
    freezeClock();
    gw.sim.controls.reset();
    raw = await rawPositions(gw, address);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });
}

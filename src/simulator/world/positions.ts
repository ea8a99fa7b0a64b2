/** Wallets and their positions of every type. */
import type { Rng } from '../prng.js';
import { defiPositionMakers } from './defi-positions.js';
import { positionsKit, type PositionsInput } from './position-kit.js';
import { predictionPositionMaker } from './prediction-positions.js';
import type { MarketType } from './market-types.js';
import type { LendingPosition, LoopPosition, PositionRecord, YieldPosition } from './position-types.js';

export type { PositionsInput } from './position-kit.js';

export interface PositionsBuild {
  wallets: { address: string }[];
  demoWallets: string[];
  positions: PositionRecord[];
}

const WALLET_COUNT = 220;
const DEMO_COUNT = 3;

export function generatePositions(rng: Rng, input: PositionsInput): PositionsBuild {
  const kit = positionsKit(rng, input);
  const { positions } = kit;
  const { addLending, addYield, addLoop, addPerp, addReward } = defiPositionMakers(kit);
  const addPrediction = predictionPositionMaker(kit);

  const wallets: { address: string }[] = [];
  const demoWallets: string[] = [];
  for (let w = 0; w < WALLET_COUNT; w++) {
    const owner = rng.solanaAddress();
    wallets.push({ address: owner });
    const parents: (LendingPosition | YieldPosition | LoopPosition)[] = [];
    if (w < DEMO_COUNT) {
      // Demo wallets: several positions of every type, every prediction status, orphaned rewards.
      demoWallets.push(owner);
      for (let i = 0; i < 3; i++) parents.push(...addLending(owner));
      for (let i = 0; i < 4; i++) parents.push(addYield(owner));
      for (let i = 0; i < 2; i++) parents.push(addLoop(owner));
      addPerp(owner, 'long');
      addPerp(owner, 'short');
      addPerp(owner);
      addReward(owner, parents, 'parent');
      addReward(owner, parents, 'market');
      addReward(owner, parents, 'orphan');
      addReward(owner, parents, 'orphan');
      addPrediction(owner, 'open');
      addPrediction(owner, 'open');
      addPrediction(owner, 'closed');
      addPrediction(owner, 'settled');
      addPrediction(owner);
      continue;
    }
    if (rng.chance(0.03)) continue; // a few wallets hold nothing
    const groups = rng.int(1, 8);
    for (let g = 0; g < groups; g++) {
      const type = rng.weighted<MarketType>([
        ['lending', 3],
        ['yield', 3],
        ['prediction', 2.5],
        ['perpetual', 1.5],
        ['loop', 1.5],
        ['reward', 1.5],
      ]);
      if (type === 'lending') parents.push(...addLending(owner));
      else if (type === 'yield') parents.push(addYield(owner));
      else if (type === 'loop') parents.push(addLoop(owner));
      else if (type === 'perpetual') addPerp(owner);
      else if (type === 'reward') addReward(owner, parents);
      else addPrediction(owner);
    }
  }
  return { wallets, demoWallets, positions };
}

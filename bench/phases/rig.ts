/** What every phase script starts with: this process pinned to the rig's core, the simulator and its fixtures. */
import { canPin, pin } from '../throughput/processes.js';
import { startRig } from '../throughput/rig.js';
import { COLD_USERS, screens, type Screen, type ScreenName } from '../throughput/screens.js';
import { RIG_CORE } from '../throughput/types.js';

export async function startPhaseRig() {
  const pinned = canPin();
  if (pinned) pin(process.pid, RIG_CORE);
  const started = await startRig(pinned, COLD_USERS);
  const screenOf = (name: string): Screen => screens(started.rig.fixtures.wallet.address).find((s) => s.name === (name as ScreenName))!;
  return { ...started, pinned, screenOf };
}

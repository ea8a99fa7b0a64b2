/** The rig every throughput run and phase profile stands on: the standalone simulator, its fixtures, the bundled baseline. */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { loadFixtures } from './fixtures.js';
import { freePort, startNode, waitReady, type Proc } from './processes.js';
import { ROOT } from './servers.js';
import { RIG_CORE, type Rig } from './types.js';

/** Starts the simulator (seed 42, `subscribers` subscribers) on the rig's core, loads its fixtures and bundles the baseline. */
export async function startRig(pinned: boolean, subscribers: number): Promise<{ sim: Proc; rig: Rig }> {
  const simPort = await freePort();
  // One gateway process is measured at a time: it signs cursors with a key of its own.
  const baseEnv: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', SINGLE_REPLICA: 'true' };
  delete baseEnv['REDIS_URL'];
  const sim = startNode(
    ['--import', 'tsx', join(ROOT, 'src/simulator/main.ts')],
    { ...baseEnv, SIMULATOR_PORT: String(simPort), SIMULATOR_SEED: '42', SIMULATOR_SUBSCRIBERS: String(subscribers) },
    pinned ? RIG_CORE : null,
  );
  const simUrl = `http://127.0.0.1:${simPort}`;
  try {
    await waitReady(sim, `${simUrl}/__sim/state`);
    const fixtures = await loadFixtures(simUrl, subscribers);
    const env: NodeJS.ProcessEnv = { ...baseEnv, ALERTS_URL: `${simUrl}/alerts`, MARKETS_URL: `${simUrl}/markets`, ASSETS_URL: `${simUrl}/assets` };
    // Inside the project's node_modules, so that the bundle's external packages (undici, lru-cache) resolve from the project.
    const baselineJs = join(ROOT, 'node_modules/.cache/bench/baseline.mjs');
    const esbuild = join(ROOT, 'node_modules/.bin/esbuild');
    execFileSync(esbuild, [join(ROOT, 'bench/throughput/baseline/main.ts'), '--bundle', '--platform=node', '--format=esm', '--packages=external', `--outfile=${baselineJs}`], { cwd: ROOT, stdio: 'ignore' });
    return { sim, rig: { simUrl, baselineJs, env, fixtures, pinned } };
  } catch (error) {
    await sim.stop();
    throw error;
  }
}

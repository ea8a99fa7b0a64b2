import autocannon from 'autocannon';
import { startPhaseRig } from './rig.js';
import { startTarget } from '../throughput/servers.js';
import { requestFor, settle } from '../throughput/measure.js';
import { cpuMs } from '../throughput/processes.js';
const { rig, screenOf, sim } = await startPhaseRig();
const screen = screenOf('mobile-cold');
const W = Number(process.env.W ?? 800), N = Number(process.env.N ?? 8), WARM = Number(process.env.WARM ?? 1000);
for (let r = 0; r < Number(process.env.ROUNDS ?? 2); r++) {
  const targets = [await startTarget(rig, 'gateway-cold'), await startTarget(rig, 'baseline')];
  const states = targets.map(() => ({ lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null }));
  const reqs = targets.map((t, i) => requestFor(t, screen, rig.fixtures, states[i] as any));
  const run = (i: number, amount: number) => autocannon({ url: `http://127.0.0.1:${targets[i]!.port}`, connections: 50, pipelining: 1, amount, requests: [reqs[i]!] });
  for (let i = 0; i < 2; i++) await run(i, 100 + WARM);
  const cpu = [[], []] as number[][];
  for (let k = 0; k < N; k++) for (const i of k % 2 ? [1, 0] : [0, 1]) {
    await settle(rig.simUrl, targets[i]!.proc.pid);
    const c0 = cpuMs(targets[i]!.proc.pid);
    await run(i, W);
    cpu[i]!.push((cpuMs(targets[i]!.proc.pid) - c0) / W);
  }
  const sum = (a: number[]) => a.reduce((x, y) => x + y, 0);
  console.log('round', r, 'g', cpu[0]!.map((v) => v.toFixed(2)).join(' '), '| b', cpu[1]!.map((v) => v.toFixed(2)).join(' '), '| ratio', (sum(cpu[0]!) / sum(cpu[1]!)).toFixed(3));
  for (const t of targets) await t.proc.stop();
}
await sim.stop();
process.exit(0);

/**
 * The V8 heap a server keeps live after its start and after one request (issue 29: V8 schedules the next
 * full collection at a multiple of what is live after the last one, so each megabyte live at start
 * raises the peak by more):
 *
 *   npm run build && node --import tsx bench/phases/start-heap.ts <gateway|gateway-off|baseline> [screen] [node flags...]
 *
 * The server runs as memory.ts starts it, with `--expose-gc` and a preloaded probe (heap-probe.cjs) that,
 * on SIGHUP, runs four full collections and records V8's spaces, code and RSS. Prints those figures idle
 * (one second after ready), after one request of the screen (default mobile1000) and after 20. GATEWAY_ENTRY
 * measures another build of the gateway, as memory.ts does.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { startPhaseRig } from './rig.js';
import { requestFor, type WindowState } from '../throughput/measure.js';
import { type ScreenName } from '../throughput/screens.js';
import { startTarget } from '../throughput/servers.js';
import { type ServerKind } from '../throughput/types.js';

const kind = (process.argv[2] ?? 'gateway') as ServerKind;
const screenName = (process.argv[3] ?? 'mobile1000') as ScreenName;
const probe = fileURLToPath(new URL('heap-probe.cjs', import.meta.url));
const entry = process.env['GATEWAY_ENTRY'];

const { sim, rig, screenOf } = await startPhaseRig();
rig.nodeFlags = ['--expose-gc', '--require', probe, ...process.argv.slice(3 + 1)];
if (entry) rig.gatewayEntry = resolve(entry);
// HEAP_PROBE_SNAPSHOT=<dir>: a heap snapshot at each reading too, written there.
if (process.env['HEAP_PROBE_SNAPSHOT']) rig.env = { ...rig.env, HEAP_PROBE_SNAPSHOT: process.env['HEAP_PROBE_SNAPSHOT'] };
try {
  const target = await startTarget(rig, kind);
  const pid = target.proc.pid;
  const out = `/tmp/heap-probe-${pid}.jsonl`;
  const read = async (label: string) => {
    const before = existsSync(out) ? readFileSync(out, 'utf8').split('\n').length : 1;
    process.kill(pid, 'SIGHUP');
    for (let i = 0; i < 300 && (!existsSync(out) || readFileSync(out, 'utf8').split('\n').length === before); i++) await new Promise((r) => setTimeout(r, 50));
    console.log(label, readFileSync(out, 'utf8').trim().split('\n').at(-1));
  };
  try {
    await new Promise((r) => setTimeout(r, 1000));
    await read('idle    ');
    const run = async (amount: number) => {
      const state: WindowState = { lastResponseAt: 0, graphqlErrors: 0, firstError: null, lastGoodBody: null };
      await autocannon({ url: `http://127.0.0.1:${target.port}`, connections: 1, amount, requests: [requestFor(target, screenOf(screenName), rig.fixtures, state)] });
      if (state.graphqlErrors > 0) throw new Error(`a request failed: ${state.firstError}`);
    };
    await run(1);
    await read('afterOne');
    // The compiled code of a document comes with its second run (src/plugins/jit.ts).
    await run(19);
    await read('after20 ');
  } finally {
    await target.proc.stop();
    rmSync(out, { force: true });
  }
} finally {
  await sim.stop();
}

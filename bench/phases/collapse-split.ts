/**
 * The samples of the "response cache and collapse" phase split by where they are (bench/PHASES.md,
 * issue 29): under the execution the collapse plugin calls (its stack puts them there), or the
 * plugin's own work, with its most frequent leaf frames:
 *
 *   node --import tsx bench/phases/collapse-split.ts <file.cpuprofile> <window.json>
 */
import { readFileSync } from 'node:fs';
import { PHASES, type Frame, type Profile } from './aggregate.js';

const [file, windowFile] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as Profile;
const window = JSON.parse(readFileSync(windowFile!, 'utf8')) as { startUs: number; endUs: number; cpuMsPerRequest: number };
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const stackOf = (id: number): Frame[] => {
  const frames: Frame[] = [];
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) frames.push(byId.get(at)!.callFrame);
  return frames;
};
const PLUGIN = /collapse-inflight|\/dist\/inflight/;
const EXECUTION = ['@envelop/core', 'graphql-jit', '/dist/sources/', '/dist/schema/'];
const collapse = PHASES.find((p) => p.name === 'response cache and collapse')!;

let t = profile.startTime;
let busy = 0;
let own = 0;
let execution = 0;
const leaves = new Map<string, number>();
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]!;
  if (t < window.startUs || t > window.endUs) continue;
  const stack = stackOf(profile.samples[i]!);
  const leaf = stack[0]!.functionName;
  if (leaf === '(idle)') continue;
  busy++;
  // A sample belongs to the first phase any of its frames matches, as in aggregate.ts.
  if (leaf === '(program)' || PHASES.find((p) => stack.some((f) => p.test(f))) !== collapse) continue;
  const below = stack.slice(0, stack.findIndex((f) => PLUGIN.test(f.url)));
  if (below.some((f) => EXECUTION.some((part) => f.url.includes(part)))) {
    execution++;
    continue;
  }
  own++;
  const key = `${leaf || '(anonymous)'} ${stack[0]!.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}`;
  leaves.set(key, (leaves.get(key) ?? 0) + 1);
}
const share = (n: number) => `${((100 * n) / busy).toFixed(2)} % (${((window.cpuMsPerRequest * 1000 * n) / busy).toFixed(1)} µs)`;
console.log(`collapse phase: the plugin's own work ${share(own)}, the execution under it ${share(execution)}, of ${busy} busy samples`);
for (const [key, n] of [...leaves].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${share(n)} ${key}`);

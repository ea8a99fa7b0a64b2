/**
 * The upstream call's own machinery in a profile, wherever on the stack it runs (bench/PHASES.md):
 *
 *   node --import tsx bench/phases/own-layers.ts <dir written by profile.ts> [top]
 *
 * aggregate.ts gives a sample to the first phase any frame of its stack matches, undici before the own
 * layers: work the transport does inside undici's callbacks (a call settled as its answer ends, its
 * ledger and the waiters of a shared call) counts as undici there. Here each sample goes to the nearest
 * frame, from the leaf up, that is the transport's (dist/upstream/, dist/inflight*, cockatiel) or
 * undici's, so moving work into or out of a callback does not move it between the two. The transport's
 * part is split: the body's parse (status.js), the mapping (map files), the rest ("own").
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Profile } from './aggregate.js';

const [dir = '', topArg = '0'] = process.argv.slice(2);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (!file) throw new Error(`no .cpuprofile in ${dir}`);
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;
const window = JSON.parse(readFileSync(join(dir, 'window.json'), 'utf8')) as { startUs: number; endUs: number; cpuMsPerRequest: number };

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const transport = (url: string) => url.includes('/dist/upstream/') || url.includes('/dist/inflight') || url.includes('node_modules/cockatiel/');

/** The bucket of a sample's stack, and the transport frame it went to (if any). */
function classify(id: number): { bucket: string; frame?: string } {
  const leaf = byId.get(id)!.callFrame.functionName;
  if (leaf === '(idle)') return { bucket: 'idle' };
  if (leaf === '(garbage collector)') return { bucket: 'gc' };
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const { url, functionName } = byId.get(at)!.callFrame;
    if (transport(url)) {
      const bucket = /\/map[-.]/.test(url) ? 'map' : url.includes('/upstream/status.') ? 'parse' : 'own';
      return { bucket, frame: `${functionName || '(anonymous)'} ${url.replace(/^.*\/(dist|node_modules)\//, '$1/')}` };
    }
    if (url.includes('node_modules/undici/')) return { bucket: 'undici' };
  }
  return { bucket: 'other' };
}

const buckets = new Map<string, number>();
const frames = new Map<string, number>();
const known = new Map<number, ReturnType<typeof classify>>();
let t = profile.startTime;
let busy = 0;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]!;
  if (t < window.startUs || t > window.endUs) continue;
  const id = profile.samples[i]!;
  let got = known.get(id);
  if (!got) known.set(id, (got = classify(id)));
  buckets.set(got.bucket, (buckets.get(got.bucket) ?? 0) + 1);
  if (got.bucket !== 'idle') busy += 1;
  if (got.bucket === 'own' && got.frame) frames.set(got.frame, (frames.get(got.frame) ?? 0) + 1);
}

const perRequestUs = window.cpuMsPerRequest * 1000;
const share = (n: number) => `${((n / busy) * 100).toFixed(1)} % (${((n / busy) * perRequestUs).toFixed(0)} µs)`;
console.log(`${dir}: ${perRequestUs.toFixed(0)} µs a request (/proc), ${busy} busy samples`);
for (const name of ['own', 'parse', 'map', 'undici', 'gc']) console.log(`  ${name}: ${share(buckets.get(name) ?? 0)}`);
const top = Number(topArg);
if (top > 0) {
  for (const [frame, n] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`    ${frame} ${((n / busy) * 100).toFixed(2)} %`);
}

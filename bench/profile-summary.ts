/**
 * Self time by function of a `.cpuprofile`, within the window `profile-markets.ts` measured:
 *
 *   node --import tsx bench/profile-summary.ts /tmp/prof/<file>.cpuprofile [top]
 */
import { existsSync, readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const [file, topArg] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file!, 'utf8')) as Profile;
const windowFile = '/tmp/profile-markets-window.json';
const window = existsSync(windowFile) ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { startUs: number; endUs: number }) : null;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
let total = 0;
let t = profile.startTime;
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]!;
  if (window && (t < window.startUs || t > window.endUs)) continue;
  const dt = profile.timeDeltas[i + 1] ?? 0;
  const { functionName, url, lineNumber } = byId.get(profile.samples[i]!)!.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|src)\//, '$1/')}:${lineNumber + 1}` : '';
  const key = `${functionName || '(anonymous)'} ${where}`.trim();
  self.set(key, (self.get(key) ?? 0) + dt);
  total += dt;
}

const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 25));
console.log(`window: ${window ? 'measured loop only' : 'whole profile'}; sampled ${(total / 1000).toFixed(0)} ms`);
for (const [key, us] of rows) console.log(`${((us / total) * 100).toFixed(1).padStart(5)} %  ${key}`);
const grep = (re: RegExp) => [...self].filter(([k]) => re.test(k)).reduce((s, [, v]) => s + v, 0);
console.log(`mapMarketStrict and helpers (upstream/markets/map): ${((grep(/upstream\/markets\/map/) / total) * 100).toFixed(1)} %`);
console.log(`JSON.parse: ${((grep(/^(JSON\.)?parse /) / total) * 100).toFixed(1)} %`);
console.log(`garbage collector: ${((grep(/^\(garbage collector\)/) / total) * 100).toFixed(1)} %`);

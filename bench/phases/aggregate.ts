/**
 * CPU µs per request by phase, from a `.cpuprofile` of a server and the window a driver measured
 * (bench/phases/profile.ts writes both):
 *
 *   node --import tsx bench/phases/aggregate.ts <file.cpuprofile> <window.json> [--top 20]
 *
 * Each sample (counted, not weighted by its time: see below) goes to the first phase below that any frame of its stack matches (so JSON.parse
 * under undici is "body parse", undici under a resolver is "upstream call"); what matches none is "other".
 * The patterns name the gateway's files (dist/…) and the baseline's bundled functions.
 */
import { readFileSync } from 'node:fs';

export interface Frame {
  functionName: string;
  url: string;
}
export interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

type Test = (f: Frame) => boolean;
const inUrl = (...parts: string[]): Test => (f) => parts.some((p) => f.url.includes(p));
const named = (...names: string[]): Test => (f) => names.includes(f.functionName);
/** A function of the bundled baseline (node_modules/.cache/bench/baseline.mjs) by name. */
const baseline = (...names: string[]): Test => (f) => f.url.includes('/bench/baseline') && names.includes(f.functionName);
const native = (name: string): Test => (f) => f.url === '' && f.functionName === name;
const any = (...tests: Test[]): Test => (f) => tests.some((t) => t(f));

/** Phases in the order they claim a sample. */
export const PHASES: readonly { name: string; test: Test }[] = [
  { name: 'garbage collection', test: named('(garbage collector)') },
  { name: 'body parse (JSON.parse)', test: native('parse') },
  { name: 'serialization (JSON.stringify, result encoding)', test: any(native('stringify'), inUrl('fast-json-stringify'), named('jsonStringifyResultWithoutInternals'), baseline('serialize')) },
  {
    name: 'mapping records to models',
    test: any(
      (f) => inUrl('/dist/models/', '/upstream/alerts/map', '/upstream/assets/map', '/upstream/markets/map')(f) && !f.url.includes('/models/asset-ids'),
      baseline('tokenBrief', 'tokenFull', 'tokenSymbol', 'marketHeader', 'walletMarket', 'marketsPageNode', 'provider', 'globalId', 'typename', 'upper', 'averages', 'blink', 'seconds'),
    ),
  },
  { name: 'upstream call: undici', test: inUrl('node_modules/undici/') },
  {
    name: 'upstream call: own layers (transport, clients, breaker)',
    test: any(inUrl('/dist/upstream/', 'node_modules/cockatiel/'), baseline('get', 'assetsFor', 'listing')),
  },
  { name: 'document lookup, parse and validation', test: inUrl('graphql/validation/', 'graphql/language/', '/plugins/trusted-documents', 'plugin-persisted-operations', 'plugin-apq') },
  { name: 'limits and cost', test: inUrl('/plugins/document-limits', '/plugins/query-cost', 'graphql-armor', '/plugins/rate-limit', 'rate-limiter-flexible') },
  { name: 'response cache and collapse', test: inUrl('/dist/response-cache/', '/plugins/collapse-inflight') },
  { name: 'public caches (stores, lru-cache, dataloader)', test: inUrl('/dist/stores/', 'node_modules/lru-cache/', 'node_modules/dataloader/') },
  { name: 'context and sources (ids checked)', test: inUrl('/dist/request-context', '/dist/context', '/dist/sources/', '/dist/credentials', '/plugins/credentials', '/models/asset-ids') },
  {
    name: 'resolvers, execution and promise machinery',
    test: any(inUrl('graphql/execution/', 'graphql-jit', '/dist/execution-public', '/dist/schema/', '@pothos/', 'graphql/type/', 'graphql/jsutils/'), baseline('mobileHome', 'walletScreen', 'marketsScreen')),
  },
  {
    name: 'HTTP in and out (node http, Yoga adapter, plugin chain)',
    test: any(inUrl('node:_http', 'node:net', 'node:internal/', 'node:events', '@whatwg-node/', 'graphql-yoga', '@envelop/', '/dist/app', '/dist/plugins/', '/dist/node-http', 'node:stream'), baseline('handle', 'readJson', 'send')),
  },
];

/** Self time per phase, and per leaf frame within `detail` (a phase's name, or 'other'). */
export function aggregate(profile: Profile, window: { startUs: number; endUs: number } | null, detail = 'other') {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const phaseOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = phaseOf.get(id);
    if (known) return known;
    const leaf = byId.get(id)!.callFrame.functionName;
    let phase = leaf === '(idle)' ? 'idle' : leaf === '(program)' ? 'other: (program), native' : '';
    for (const { name, test } of phase ? [] : PHASES) {
      for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
        if (test(byId.get(at)!.callFrame)) {
          phase = name;
          break;
        }
      }
      if (phase) break;
    }
    phase ||= 'other';
    phaseOf.set(id, phase);
    return phase;
  };
  const us = new Map<string, number>();
  const self = new Map<string, number>();
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i]!;
    if (window && (t < window.startUs || t > window.endUs)) continue;
    // One sample, one tick of CPU: on a shared core a descheduled thread's next sample carries the wall
    // time it waited, so weighting by time deltas would charge that wait to whatever ran next.
    const dt = 1;
    const id = profile.samples[i]!;
    const phase = classify(id);
    us.set(phase, (us.get(phase) ?? 0) + dt);
    if (phase === detail) {
      const { functionName, url } = byId.get(id)!.callFrame;
      const key = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(node_modules|dist)\//, '$1/')}`;
      self.set(key, (self.get(key) ?? 0) + dt);
    }
  }
  return { us, other: self };
}

if (process.argv[1]?.endsWith('aggregate.ts')) {
  const [file, windowFile, detail] = process.argv.slice(2);
  const profile = JSON.parse(readFileSync(file!, 'utf8')) as Profile;
  const window = windowFile ? (JSON.parse(readFileSync(windowFile, 'utf8')) as { startUs: number; endUs: number; requests: number; cpuMsPerRequest: number }) : null;
  const { us, other } = aggregate(profile, window, detail);
  let busy = 0;
  for (const [phase, v] of us) if (phase !== 'idle') busy += v;
  // The sampler counts wall time, descheduled time included on a shared core: shares are what it measures
  // well, so each phase is its share of the CPU /proc counted over the window (utime + stime ÷ requests).
  const cpuUs = (window?.cpuMsPerRequest ?? NaN) * 1000;
  console.log(`| Phase | µs/req | share |\n|---|---:|---:|`);
  const order = [...PHASES.map((p) => p.name), 'other: (program), native', 'other'];
  for (const phase of order) {
    const share = (us.get(phase) ?? 0) / busy;
    console.log(`| ${phase} | ${(share * cpuUs).toFixed(0)} | ${(100 * share).toFixed(1)} % |`);
  }
  console.log(`| **CPU per request (/proc)** | **${cpuUs.toFixed(0)}** | ${window?.requests ?? '?'} requests |`);
  const top = [...other].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env["PHASE_TOP"] ?? 15));
  if (top.length > 0) console.log(`\nMost self time in ${detail}: ${top.map(([k, v]) => `${k} ${((100 * v) / busy).toFixed(1)} %`).join('; ')}`);
}
